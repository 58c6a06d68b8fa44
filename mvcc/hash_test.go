package mvcc

import (
	"testing"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// The hashes a real etcd v3.6.16 gave for the same changes (etcdctl
// endpoint hashkv; the session is cmd/internal/etcdcompare's hashkv.txt).
func TestHashByRevIsEtcds(t *testing.T) {
	s := New()
	want := func(rev int64, hash uint32) {
		t.Helper()
		h, _, err := s.HashByRev(rev)
		if err != nil {
			t.Fatalf("HashByRev(%d): %v", rev, err)
		}
		if h.Hash != hash {
			t.Errorf("HashByRev(%d) = %d, etcd gives %d", rev, h.Hash, hash)
		}
	}
	want(0, 1084519789) // empty: the bucket name alone
	put := func(k, v string) {
		if _, _, err := s.Put(&pb.PutRequest{Key: []byte(k), Value: []byte(v)}); err != nil {
			t.Fatal(err)
		}
	}
	put("a", "1")
	put("b", "2")
	put("a", "3")
	if _, _, err := s.DeleteRange(&pb.DeleteRangeRequest{Key: []byte("b")}); err != nil {
		t.Fatal(err)
	}
	put("c", "4")
	want(0, 2750537463)
	want(3, 1827592406)
	want(5, 1125682900)
	if _, err := s.Compact(4); err != nil {
		t.Fatal(err)
	}
	want(0, 2450235489)
	want(5, 1468967122)
	if _, _, err := s.HashByRev(2); err != ErrCompacted {
		t.Errorf("HashByRev below the compaction: %v, want ErrCompacted", err)
	}
	put("b", "5")
	if _, _, err := s.DeleteRange(&pb.DeleteRangeRequest{Key: []byte("a")}); err != nil {
		t.Fatal(err)
	}
	want(0, 3943726816)
}
