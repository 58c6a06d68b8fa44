package experiment

import (
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	ms := func(vs ...int) []Trial {
		var out []Trial
		for _, v := range vs {
			out = append(out, Trial{Downtime: time.Duration(v) * time.Millisecond, Elections: 1 + v%2})
		}
		return out
	}
	for _, tc := range []struct {
		name                        string
		trials                      []Trial
		min, median, mean, p99, max time.Duration
		failed                      int
	}{
		{"one", ms(7), 7 * time.Millisecond, 7 * time.Millisecond, 7 * time.Millisecond, 7 * time.Millisecond, 7 * time.Millisecond, 1},
		{"even count: the median is between the middle two", ms(4, 1, 3, 2), time.Millisecond, 2500 * time.Microsecond, 2500 * time.Microsecond, 4 * time.Millisecond, 4 * time.Millisecond, 2},
		{"odd count", ms(10, 30, 20), 10 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond, 30 * time.Millisecond, 30 * time.Millisecond, 0},
	} {
		s := Summarize(tc.name, tc.trials)
		if s.Min != tc.min || s.Median != tc.median || s.Mean != tc.mean || s.P99 != tc.p99 || s.Max != tc.max || s.Failed != tc.failed {
			t.Errorf("%s: got min %v median %v mean %v p99 %v max %v failed %d", tc.name, s.Min, s.Median, s.Mean, s.P99, s.Max, s.Failed)
		}
	}
}

func TestPercentileNearestRank(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 1000; i++ {
		ds = append(ds, time.Duration(i))
	}
	for p, want := range map[float64]time.Duration{99: 990, 50: 500, 100: 1000, 0: 1, 99.9: 999} {
		if got := Percentile(ds, p); got != want {
			t.Errorf("p%v of 1..1000 = %d, want %d", p, got, want)
		}
	}
}
