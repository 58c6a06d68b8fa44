package mvcc

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// TestForksMatchDecodedCopies runs the same random writes and compactions
// on forks of one shared store and on stores Decode made of their own,
// interleaving the forks, and wants each fork to encode and read as its
// copy after every step: a fork that shared a mutable array with another
// (the index's blocks, which split past blockMax keys; the backend's
// chunks; a key's revisions) would drift from its copy.
func TestForksMatchDecodedCopies(t *testing.T) {
	src := New()
	for i := range 3000 {
		src.Put(&pb.PutRequest{Key: []byte(fmt.Sprintf("k%04d", i%1400)), Value: []byte(fmt.Sprint(i))})
		if i%13 == 0 {
			src.DeleteRange(&pb.DeleteRangeRequest{Key: []byte(fmt.Sprintf("k%04d", (i*7)%1400))})
		}
	}
	src.Compact(1500)
	data := src.Encode()
	shared, err := DecodeShared(bytes.Clone(data))
	if err != nil {
		t.Fatal(err)
	}
	const n = 3
	var forks, copies [n]*Store
	for i := range n {
		forks[i] = shared.Fork(nil)
		if copies[i], err = Decode(data, nil); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for step := range 3000 {
		i := rng.IntN(n)
		k := []byte(fmt.Sprintf("k%04d", rng.IntN(2200)))
		op, back := rng.IntN(20), int64(rng.IntN(50))
		for _, s := range []*Store{forks[i], copies[i]} {
			switch {
			case op == 0:
				s.Compact(s.Rev() - back)
			case op < 4:
				s.DeleteRange(&pb.DeleteRangeRequest{Key: k, RangeEnd: append(bytes.Clone(k), 0x7f)})
			default:
				s.Put(&pb.PutRequest{Key: k, Value: []byte(fmt.Sprint(step, i))})
			}
		}
		if step%100 == 0 {
			for _, rev := range []int64{0, forks[i].Rev() - 20} {
				r := &pb.RangeRequest{Key: []byte("k"), RangeEnd: []byte("l"), Revision: rev}
				a, errA := forks[i].Range(r)
				b, errB := copies[i].Range(r)
				if fmt.Sprint(a, errA) != fmt.Sprint(b, errB) {
					t.Fatalf("step %d: fork %d reads apart from its copy at %d", step, i, rev)
				}
			}
		}
	}
	for i := range n {
		if !bytes.Equal(forks[i].Encode(), copies[i].Encode()) {
			t.Errorf("fork %d differs from its copy", i)
		}
	}
	if !bytes.Equal(shared.Encode(), data) {
		t.Error("the forks' writes changed the shared store")
	}
}
