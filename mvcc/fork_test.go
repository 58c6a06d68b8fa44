package mvcc

import (
	"bytes"
	"fmt"
	"testing"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// TestForksChangeApart decodes a store with history, deletes, leases and
// a compaction once (DecodeShared), forks it twice, and wants each fork to
// encode as Decode's store does, to tell its lessor the same leases, and
// to change apart from the other: puts, deletes and a compaction on one
// leave the other and the shared store as they were. Seen to fail when a
// fork shared the key index's revision arrays at their full capacity (a
// put on one fork wrote into the other's history).
func TestForksChangeApart(t *testing.T) {
	src := New()
	src.SetLessor(fakeLessor{})
	for i := range 300 {
		k := []byte(fmt.Sprintf("k%03d", i%120))
		lease := int64(0)
		if i%7 == 0 {
			lease = 7
		}
		src.Put(&pb.PutRequest{Key: k, Value: []byte(fmt.Sprint(i)), Lease: lease})
		if i%11 == 0 {
			src.DeleteRange(&pb.DeleteRangeRequest{Key: k})
		}
	}
	src.Compact(100)
	data := src.Encode()
	want := fakeLessor{}
	dec, err := Decode(data, want)
	if err != nil {
		t.Fatal(err)
	}
	shared, err := DecodeShared(bytes.Clone(data))
	if err != nil {
		t.Fatal(err)
	}
	l1, l2 := fakeLessor{}, fakeLessor{}
	a, b := shared.Fork(l1), shared.Fork(l2)
	if !bytes.Equal(a.Encode(), data) || !bytes.Equal(b.Encode(), data) {
		t.Fatal("a fork does not encode as the store it was decoded from")
	}
	if len(want) == 0 {
		t.Fatal("no key has a lease")
	}
	if fmt.Sprint(l1) != fmt.Sprint(want) || fmt.Sprint(l2) != fmt.Sprint(want) {
		t.Errorf("the forks' leases %v, %v; Decode's %v", l1, l2, want)
	}
	for i := range 200 {
		k := []byte(fmt.Sprintf("k%03d", i%150))
		a.Put(&pb.PutRequest{Key: k, Value: []byte("a")})
		if i%9 == 0 {
			a.DeleteRange(&pb.DeleteRangeRequest{Key: k})
		}
	}
	a.Compact(a.Rev() - 10)
	if !bytes.Equal(b.Encode(), data) || !bytes.Equal(shared.Encode(), data) || !bytes.Equal(dec.Encode(), data) {
		t.Fatal("writes on one fork changed another")
	}
	aWas := a.Encode()
	aGet, _ := a.Range(&pb.RangeRequest{Key: []byte("k"), RangeEnd: []byte("l"), Revision: a.Rev() - 5})
	for i := range 200 {
		b.Put(&pb.PutRequest{Key: []byte(fmt.Sprintf("k%03d", i%150)), Value: []byte("a")})
	}
	if aNow, _ := a.Range(&pb.RangeRequest{Key: []byte("k"), RangeEnd: []byte("l"), Revision: a.Rev() - 5}); !bytes.Equal(a.Encode(), aWas) || fmt.Sprint(aNow) != fmt.Sprint(aGet) {
		t.Fatal("writes on one fork changed what another reads")
	}
	c := shared.Fork(nil)
	for i := range 200 {
		c.Put(&pb.PutRequest{Key: []byte(fmt.Sprintf("k%03d", i%150)), Value: []byte("a")})
	}
	if bytes.Equal(b.Encode(), data) {
		t.Error("a fork that was written encodes as the shared store")
	}
	d := shared.Fork(nil)
	if _, err := d.Compact(d.Rev()); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(d.Encode(), data) {
		t.Error("a fork that was compacted encodes as the shared store")
	}
	if !bytes.Equal(b.Encode(), c.Encode()) {
		t.Error("the same writes on two forks give different stores")
	}
}
