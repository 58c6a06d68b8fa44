package membership

import (
	"strings"
	"testing"
)

// etcdutl snapshot restore's flags: the checks in etcdutl's order, and the
// IDs of the new cluster (those a real etcd v3.6.16 gave the same peer URLs
// and token; TestMemberAndClusterIDsAreEtcds).
func TestRestore(t *testing.T) {
	const three = "m1=http://127.0.0.1:24801,m2=http://127.0.0.1:24802,m3=http://127.0.0.1:24803"
	r, err := Restore("m2", "http://127.0.0.1:24802", three, "raftsim")
	if err != nil {
		t.Fatal(err)
	}
	want := []uint64{0xda30238056b31e7, 0x3779ba8acf292bab, 0x94c41003c59b7be6}
	if r.Self != 1 || len(r.IDs) != 3 || r.IDs[0] != want[0] || r.IDs[1] != want[1] || r.IDs[2] != want[2] || r.ClusterID != 2738856379658090205 {
		t.Errorf("Restore = self %d, IDs %x, cluster %d", r.Self, r.IDs, r.ClusterID)
	}
	if r.Peers[2] != (PeerMember{"m3", "http://127.0.0.1:24803"}) {
		t.Errorf("peer 3 = %+v", r.Peers[2])
	}
	// No --initial-cluster: the member alone, with etcd's default token.
	r, err = Restore("m1", "http://m1:2380", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Peers) != 1 || r.IDs[0] != MemberID([]string{"http://m1:2380"}, "etcd-cluster", nil) || r.ClusterID != ClusterID(r.IDs) {
		t.Errorf("Restore alone = %+v", r)
	}
	for _, c := range []struct{ name, peerURL, cluster, err string }{
		{"m1", "ftp://m1:2380", "m1=http://m1:2380", "URL scheme must be http, https, unix, or unixs: ftp://m1:2380"},
		{"m1", "http://m1:2380/x", "", "URL must not contain a path"},
		{"m1", "http://m1:2380", "m1", `invalid value "m1" for --initial-cluster`},
		{"m1", "http://m1:2380", "m1=http://m1:2380,m2=http://m1:2380", "has duplicate url"},
		{"m4", "http://m4:2380", three, `couldn't find local name "m4"`},
		{"m1", "http://m1:2380", three, "--initial-cluster has m1=http://127.0.0.1:24801 but missing from --initial-advertise-peer-urls=http://m1:2380"},
	} {
		_, err := Restore(c.name, c.peerURL, c.cluster, "")
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("Restore(%s, %s, %q) = %v, want %q", c.name, c.peerURL, c.cluster, err, c.err)
		}
	}
}
