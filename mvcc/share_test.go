package mvcc

import (
	"fmt"
	"testing"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// TestStoresShareRecords: three stores that apply the same writes through
// one pool keep one record for each change between them, and answer as a
// store of their own does; a store whose write differs at a revision (a
// value, a lease, a delete instead of a put) keeps its own record there.
// Seen to fail (each store kept its own records) with share copying
// every record.
func TestStoresShareRecords(t *testing.T) {
	var pool RecordPool
	alone := New()
	stores := []*Store{New(), New(), New()}
	for _, s := range stores {
		s.ShareRecords(&pool)
	}
	for i := range 3000 {
		p := &pb.PutRequest{Key: []byte(fmt.Sprint("k", i%700)), Value: []byte(fmt.Sprint("v", i))}
		for _, s := range append([]*Store{alone}, stores...) {
			// each store its own copy of the request, as each member decodes the entry
			q := &pb.PutRequest{Key: append([]byte(nil), p.Key...), Value: append([]byte(nil), p.Value...)}
			if _, _, err := s.Put(q); err != nil {
				t.Fatal(err)
			}
		}
		if i%500 == 499 {
			for _, s := range append([]*Store{alone}, stores...) {
				if _, _, err := s.DeleteRange(&pb.DeleteRangeRequest{Key: []byte("k1"), RangeEnd: []byte("k2")}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	r := &pb.RangeRequest{Key: []byte("k"), RangeEnd: []byte("l")}
	want, _ := alone.Range(r)
	got, _ := stores[1].Range(r)
	if fmt.Sprint(got.Kvs) != fmt.Sprint(want.Kvs) || got.Count != want.Count {
		t.Errorf("the shared store answers %d keys, the one of its own %d", got.Count, want.Count)
	}
	// the third store writes another value at the next revision
	for j, s := range stores {
		v := "same"
		if j == 2 {
			v = "other"
		}
		if _, _, err := s.Put(&pb.PutRequest{Key: []byte("k"), Value: []byte(v)}); err != nil {
			t.Fatal(err)
		}
	}
	n := stores[0].backend.len()
	if alone.backend.len()+1 != n {
		t.Fatalf("%d records, and %d in a store of its own", n, alone.backend.len())
	}
	for i := range n {
		a, b, c := stores[0].backend.at(i), stores[1].backend.at(i), stores[2].backend.at(i)
		switch {
		case i == n-1:
			if a != b || a == c || string(c.value) != "other" || string(a.value) != "same" {
				t.Errorf("the last record: %q %q %q, shared %v %v", a.value, b.value, c.value, a == b, a == c)
			}
		case a != b || a != c:
			t.Fatalf("record %d (%v) is not shared", i, a.rev)
		case !a.equal(alone.backend.at(i)):
			t.Fatalf("record %d: %+v, and %+v in a store of its own", i, *a, *alone.backend.at(i))
		}
	}
}
