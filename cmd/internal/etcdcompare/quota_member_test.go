package etcdcompare

import (
	"fmt"
	"os"
	"testing"
)

// TestQuotaPerMemberMatchesRealEtcd runs testdata/quota/permember.txt (m1's
// --quota-backend-bytes 26000, the others' the default) against a real
// etcd v3.6.16 (with RAFTSIM_ETCD; -update writes its transcript to
// testdata/expected/quota-permember.txt) and in raftsim's console, and
// compares the transcripts: the put m1 answers NOSPACE as it applies it
// (raising its alarm), the alarm in alarm list and in endpoint status's
// wrapped ERRORS cell, the keys there, the disarm. (Seen to fail without
// server.ApplyQuota: raftsim answered every put OK and listed no alarm;
// and before the console wrapped table cells.)
//
// Which put a real etcd refuses is timing: its file grows as bbolt's
// freelist frees pages, which waits for read transactions still open. A
// sweep of quotas from 22000 to 80000, four real runs each (load 1 to 12),
// found the refused put the same in all four only at some quotas; 26000
// is one where the real etcd refused k3 in every run from 26000 to 30000
// and the model refuses k3 (docs/semantics.md). At 50000 the real etcd
// refused k5 in two of four runs and k6 in two (a clean clone's CI saw
// k5), the model k6. So the real side gets three tries, and the test
// fails if none prints the expected transcript.
func TestQuotaPerMemberMatchesRealEtcd(t *testing.T) {
	steps, err := ParseFile("testdata/quota/permember.txt")
	if err != nil {
		t.Fatal(err)
	}
	const quota = 26000
	path := "testdata/expected/quota-permember.txt"
	if bin := etcdBinOrEmpty(t); bin != "" {
		var got string
		for try := 1; try <= 3; try++ {
			c, err := StartRealFlags(bin, t.TempDir(), map[string][]string{"m1": {fmt.Sprintf("--quota-backend-bytes=%d", quota)}})
			if err != nil {
				t.Fatal(err)
			}
			got = transcript(t, c, steps)
			c.Stop()
			if *update || got == expected(t, "quota-permember") {
				break
			}
			t.Logf("try %d: the real etcd refused a different put; trying again", try)
		}
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		} else if want := expected(t, "quota-permember"); got != want {
			t.Errorf("etcd v3.6.16 no longer prints %s:\n%s", path, diff(want, got, "expected", "etcd"))
		}
	}
	cfg := SimConfig()
	cfg.QuotaBackendBytesOf = map[string]int64{"m1": quota}
	s, err := StartSimWith(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := transcript(t, s, steps), expected(t, "quota-permember"); got != want {
		t.Errorf("raftsim differs from etcd v3.6.16:\n%s", diff(want, got, "etcd", "raftsim"))
	}
}
