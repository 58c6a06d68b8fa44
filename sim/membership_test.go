package sim

import "testing"

// The IDs a real etcd v3.6.16 gave a three-member cluster started with
// --initial-cluster-token raftsim and peer URLs http://127.0.0.1:24801-3
// (etcdctl member list; endpoint status -w json for the cluster ID).
func TestMemberAndClusterIDsAreEtcds(t *testing.T) {
	want := []uint64{0xda30238056b31e7, 0x3779ba8acf292bab, 0x94c41003c59b7be6}
	var got []uint64
	for i, url := range []string{"http://127.0.0.1:24801", "http://127.0.0.1:24802", "http://127.0.0.1:24803"} {
		id := MemberID([]string{url}, "raftsim", nil)
		if id != want[i] {
			t.Errorf("MemberID(%s) = %x, want %x", url, id, want[i])
		}
		got = append(got, id)
	}
	if cid := ClusterID(got); cid != 2738856379658090205 {
		t.Errorf("ClusterID = %d, want 2738856379658090205", cid)
	}
	// A member added at runtime hashes in the time it was added.
	at := Time(12e9)
	if MemberID([]string{"http://127.0.0.1:24801"}, "", &at) == MemberID([]string{"http://127.0.0.1:24801"}, "", nil) {
		t.Error("a runtime member's ID ignores the time it was added")
	}
}

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
