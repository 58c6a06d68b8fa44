package etcdcompare

import "testing"

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
