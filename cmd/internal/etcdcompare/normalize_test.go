package etcdcompare

import (
	"strings"
	"testing"
)

// A member added at run time has an ID from the clock: its padding under
// %16x and its place in ID order are chance, and must not show.
func TestNormalizeRunTimeMembers(t *testing.T) {
	keep := []uint64{0xfc236d250b7a86a6, 0x627eeaf9fa47d23a}
	a := NewNormalizer(keep...).Normalize("member add m4 --peer-urls=x",
		"Member  28e2f51c7986e88 added to cluster 5954d197979886b4\n\nETCD_INITIAL_CLUSTER=\"m4=b,m1=a\"\n")
	b := NewNormalizer(keep...).Normalize("member add m4 --peer-urls=x",
		"Member ff2e2f51c7986e88 added to cluster 5954d197979886b4\n\nETCD_INITIAL_CLUSTER=\"m1=a,m4=b\"\n")
	if a != b {
		t.Errorf("two runs differ only by the clock, yet:\n%s\n%s", a, b)
	}
	known := "627eeaf9fa47d23a, started, m2, http://a, http://b, false\n"
	added := "28e2f51c7986e88, unstarted, , http://c, , false\n"
	x := NewNormalizer(keep...).Normalize("member list", known+added)
	y := NewNormalizer(keep...).Normalize("member list", added+known)
	if x != y {
		t.Errorf("member list order by a run-time ID shows:\n%s\n%s", x, y)
	}
}

// A live lease's remaining TTL is the real etcd's wall time: 9s or 8s
// after a 10s grant depending on how fast the machine ran the commands
// between. It must not show; an expired lease's -1 must.
func TestNormalizeRemainingTTL(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"lease 0000000000000001 granted with TTL(10s), remaining(9s), attached keys([lk])\n",
			"lease 0000000000000001 granted with TTL(10s), remaining(8s), attached keys([lk])\n"},
		{`{"cluster_id":1,"member_id":2,"revision":3,"raft_term":2,"id":1,"ttl":9,"granted-ttl":10,"keys":null}` + "\n",
			`{"cluster_id":1,"member_id":2,"revision":3,"raft_term":2,"id":1,"ttl":8,"granted-ttl":10,"keys":null}` + "\n"},
		{"\"ID\" : 1\n\"TTL\" : 9\n\"GrantedTTL\" : 10\n", "\"ID\" : 1\n\"TTL\" : 8\n\"GrantedTTL\" : 10\n"},
	} {
		a := NewNormalizer().Normalize("lease timetolive 1", c.a)
		b := NewNormalizer().Normalize("lease timetolive 1", c.b)
		if a != b || !strings.Contains(a, "<remaining>") {
			t.Errorf("the wall time shows:\n%s%s", a, b)
		}
	}
	for _, out := range []string{
		`{"cluster_id":1,"member_id":2,"revision":4,"raft_term":2,"id":1,"ttl":-1,"granted-ttl":0,"keys":null}` + "\n",
		"lease 0000000000000001 granted with TTL(10s), remaining(11s)\n",
	} {
		if got := NewNormalizer().Normalize("lease timetolive 1", out); strings.Contains(got, "<remaining>") {
			t.Errorf("a TTL that is no wall-time reading was hidden: %s", got)
		}
	}
}

// etcd answers a proposal whose deadline passed with one of its request
// timeout errors, or the client notices its deadline first: the same race.
func TestNormalizeTimedOut(t *testing.T) {
	want := NewNormalizer().Normalize("put k v", "Error: context deadline exceeded\n")
	for _, out := range []string{
		"Error: etcdserver: request timed out\n",
		"Error: etcdserver: request timed out, possibly due to previous leader failure\n",
		"Error: etcdserver: request timed out, possibly due to connection lost\n",
	} {
		if got := NewNormalizer().Normalize("put k v", out); got != want {
			t.Errorf("%q normalised to %q, want %q", out, got, want)
		}
	}
}
