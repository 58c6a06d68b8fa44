package scenarios

import (
	"errors"
	"strings"
	"testing"
)

// TestQuotaConditions: db_size, db_in_use and alarm read what endpoint
// status and alarm list report, and fail with what they saw. A fresh
// member's file is 20480 bytes, 16384 in use (as a fresh real etcd's);
// 2000-byte puts through n1 take it past a 45000-byte quota, and n1 raises
// NOSPACE, which every member applies. (Seen to fail with db_size reading
// IN USE, and with alarm: none holding whatever the alarms.)
func TestQuotaConditions(t *testing.T) {
	const head = "name: q\ncluster: {members: 3, quota_backend_bytes: 45000}\nsteps:\n" +
		"  - expect: {leader: any, within: 3s}\n" +
		"  - expect: {commit: {n1: 8, n2: 8, n3: 8}, within: 2s}\n"
	var full strings.Builder
	full.WriteString(head)
	for i := range 20 {
		full.WriteString("  - put: {via: n1, key: k" + strings.Repeat("0", i%3) + string(rune('a'+i)) + ", value: " + strings.Repeat("x", 2000) + "}\n")
		full.WriteString("  - wait: 200ms\n")
	}
	for _, c := range []struct {
		steps string
		full  bool   // after the puts past the quota
		saw   string // "" when the expect holds; else what it saw
	}{
		{"  - expect: {db_size: {n1: 20480, n2: 20480}, db_in_use: {n1: 16384}, alarm: {n1: none, n3: none}}\n", false, ""},
		{"  - expect: {db_size: {n1: 16384}}\n", false, "n1's DB SIZE is 20480 (IN USE 16384)"},
		{"  - expect: {db_in_use: {n2: \">16384\"}}\n", false, "n2's IN USE is 16384 (DB SIZE 20480)"},
		{"  - expect: {alarm: {n1: NOSPACE}}\n", false, "n1 has no alarm"},
		{"  - expect: {alarm: {n1: NOSPACE, n2: NOSPACE, n3: NOSPACE}, db_size: {n1: \">45000\"}, within: 1s}\n", true, ""},
		{"  - expect: {alarm: {n2: none}, within: 1s}\n", true, "n2 has the alarms NOSPACE"},
		{"  - expect: {alarm: {n2: CORRUPT}, within: 1s}\n", true, "n2 has the alarms NOSPACE"},
		{"  - crash: n3\n  - expect: {alarm: {n3: none}}\n", true, "n3 is down"},
	} {
		src := head
		if c.full {
			src = full.String()
		}
		_, err := reviewRun(t, src+c.steps)
		var ee *ExpectError
		switch {
		case c.saw == "" && err != nil:
			t.Errorf("%s: %v", strings.TrimSpace(c.steps), err)
		case c.saw != "" && !errors.As(err, &ee):
			t.Errorf("%s: want it to fail seeing %q, got %v", strings.TrimSpace(c.steps), c.saw, err)
		case c.saw != "" && !strings.Contains(ee.Error(), c.saw):
			t.Errorf("%s: failed with %v, want it to see %q", strings.TrimSpace(c.steps), ee, c.saw)
		}
	}
}
