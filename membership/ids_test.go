package membership

import (
	"testing"
	"time"
)

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
	at := time.Unix(12, 0)
	if MemberID([]string{"http://127.0.0.1:24801"}, "", &at) == MemberID([]string{"http://127.0.0.1:24801"}, "", nil) {
		t.Error("a runtime member's ID ignores the time it was added")
	}
}
