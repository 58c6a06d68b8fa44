package sim

import "testing"

// A fresh three-member cluster stands at index 8 and revision 1 once it has
// started, as a fresh etcd v3.6.16 does.
func TestFreshClusterIndexAndRevision(t *testing.T) {
	w := reviewWorld(t, 3, nil)
	if err := w.Advance(2e9); err != nil {
		t.Fatal(err)
	}
	for _, in := range w.Infos() {
		if in.Commit != 8 || in.Applied != 8 || !in.Ready {
			t.Errorf("%s: commit %d applied %d ready %v, want 8, 8, true", in.Name, in.Commit, in.Applied, in.Ready)
		}
		if rev, _, _ := w.MemberKV(in.Name); rev != 1 {
			t.Errorf("%s: revision %d, want 1", in.Name, rev)
		}
	}
}
