package swarm

import (
	"strings"
	"testing"
	"time"
)

// TestCheckBoundsDurationTimesRate: a seed's duration times its rate is
// bounded up front, with the flags named (issue 29: `raftsim swarm --seeds
// 1 --duration 1h --rate 1000` ran out of memory in the generator at
// 2.37 GB; each bound alone let it through).
func TestCheckBoundsDurationTimesRate(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		rate int
		ok   bool
	}{
		{20 * time.Second, 10, true},
		{time.Hour, 10, true},
		{36 * time.Second, 1000, true},
		{time.Hour, 0, true},
		{time.Hour, 11, false},
		{36*time.Second + time.Millisecond, 1000, false},
		{time.Minute, 1000, false},
		{time.Hour, 1000, false},
	} {
		o := DefaultOptions()
		o.Duration, o.RequestsPerSecond = tc.d, tc.rate
		err := o.Check()
		if tc.ok != (err == nil) {
			t.Errorf("--duration %s --rate %d: %v, want ok %v", tc.d, tc.rate, err, tc.ok)
		}
		if err != nil && (!strings.Contains(err.Error(), "--duration") || !strings.Contains(err.Error(), "--rate") || !strings.Contains(err.Error(), "36000")) {
			t.Errorf("--duration %s --rate %d: %q does not name the flags and the limit", tc.d, tc.rate, err)
		}
	}
}
