package mvcc

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// TestForksOfLiveStoresChangeApart forks stores that go on changing, as a
// member's raft snapshot forks its store and the member writes on: at
// random steps a store is forked (from the original or from a fork) and a
// Decode copy of its encoding is made beside the fork; random puts,
// deletes and compactions then go to every store and its copy, and each
// must encode and read as its copy. Copy on write that missed a shared
// block, keyIndex, revision array or chunk would make a store drift from
// its copy, on either side of the fork.
func TestForksOfLiveStoresChangeApart(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	stores, copies := []*Store{New()}, []*Store{New()}
	for step := range 6000 {
		if step%250 == 0 && len(stores) < 12 {
			i := rng.IntN(len(stores))
			c, err := Decode(stores[i].Encode(), nil)
			if err != nil {
				t.Fatal(err)
			}
			stores, copies = append(stores, stores[i].Fork(nil)), append(copies, c)
		}
		i := rng.IntN(len(stores))
		k := []byte(fmt.Sprintf("k%04d", rng.IntN(1500)))
		op, back := rng.IntN(40), int64(rng.IntN(50))
		for _, s := range []*Store{stores[i], copies[i]} {
			switch {
			case op == 0:
				s.Compact(s.Rev() - back)
			case op < 4:
				s.DeleteRange(&pb.DeleteRangeRequest{Key: k, RangeEnd: append(bytes.Clone(k), 0x7f)})
			default:
				s.Put(&pb.PutRequest{Key: k, Value: []byte(fmt.Sprint(step, i))})
			}
		}
		if step%97 == 0 {
			for j := range stores {
				for _, rev := range []int64{0, stores[j].Rev() - 20} {
					r := &pb.RangeRequest{Key: []byte("k"), RangeEnd: []byte("l"), Revision: rev}
					a, errA := stores[j].Range(r)
					b, errB := copies[j].Range(r)
					if fmt.Sprint(a, errA) != fmt.Sprint(b, errB) {
						t.Fatalf("step %d: store %d reads apart from its copy at %d", step, j, rev)
					}
				}
				if !bytes.Equal(stores[j].Encode(), copies[j].Encode()) {
					t.Fatalf("step %d: store %d differs from its copy", step, j)
				}
			}
		}
	}
	if len(stores) < 10 {
		t.Fatalf("only %d stores", len(stores))
	}
}
