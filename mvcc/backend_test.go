package mvcc

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// TestBackendAgreesWithASlice appends and deletes across many chunk
// boundaries and checks the chunked backend against a plain slice.
func TestBackendAgreesWithASlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var b backend
	var want []record
	main := int64(0)
	for round := range 40 {
		for range rng.IntN(3 * chunkSize) {
			main++
			r := record{rev: Revision{Main: main}, key: []byte(fmt.Sprint(main % 7))}
			b.append(&r)
			want = append(want, r)
		}
		if round%3 == 2 {
			keep := rng.IntN(4) // drop most records, sometimes all
			del := func(r *record) bool { return r.rev.Main%5 >= int64(keep) }
			b.deleteFunc(del)
			want = slices.DeleteFunc(want, func(r record) bool { return del(&r) })
		}
		if b.len() != len(want) {
			t.Fatalf("round %d: %d records, want %d", round, b.len(), len(want))
		}
		for i := range want {
			if got := b.at(i); got.rev != want[i].rev || !bytes.Equal(got.key, want[i].key) {
				t.Fatalf("round %d: record %d is %+v, want %+v", round, i, *b.at(i), want[i])
			}
		}
		for _, r := range want {
			i := b.search(func(x *record) bool { return r.rev.GreaterThan(x.rev) })
			if b.at(i).rev != r.rev {
				t.Fatalf("round %d: search for %v found %v", round, r.rev, b.at(i).rev)
			}
		}
	}
}

// TestStoreReadsAcrossChunks writes a few keys many times, with deletes
// and compactions, and reads every key at every revision still readable
// against a model of the history; the fetch fast path and the binary
// search must agree with it before and after compactions and a restore.
func TestStoreReadsAcrossChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s := New()
	keys := []string{"a", "b", "c", "d"}
	hist := map[int64]map[string]string{1: {}} // revision → the keys then
	check := func(when string) {
		for rev := s.FirstRev(); rev <= s.Rev(); rev++ {
			for _, k := range keys {
				resp, err := s.Range(&pb.RangeRequest{Key: []byte(k), Revision: rev})
				if err != nil {
					t.Fatalf("%s: get %s at %d: %v", when, k, rev, err)
				}
				v, ok := hist[rev][k]
				switch {
				case ok != (len(resp.Kvs) == 1):
					t.Fatalf("%s: get %s at %d: %d kvs, want exists=%v", when, k, rev, len(resp.Kvs), ok)
				case ok && string(resp.Kvs[0].Value) != v:
					t.Fatalf("%s: get %s at %d = %q, want %q", when, k, rev, resp.Kvs[0].Value, v)
				}
			}
		}
	}
	for step := range 3000 {
		k := keys[rng.IntN(len(keys))]
		now := map[string]string{}
		for kk, v := range hist[s.Rev()] {
			now[kk] = v
		}
		if rng.IntN(10) == 0 {
			s.DeleteRange(&pb.DeleteRangeRequest{Key: []byte(k)})
			if _, ok := now[k]; !ok {
				continue // nothing deleted: no new revision
			}
			delete(now, k)
		} else {
			v := fmt.Sprint(step)
			if _, _, err := s.Put(&pb.PutRequest{Key: []byte(k), Value: []byte(v)}); err != nil {
				t.Fatal(err)
			}
			now[k] = v
		}
		hist[s.Rev()] = now
		if step%700 == 699 {
			check(fmt.Sprintf("step %d", step))
			if _, err := s.Compact(s.Rev() - int64(rng.IntN(300))); err != nil {
				t.Fatal(err)
			}
			check(fmt.Sprintf("step %d, compacted", step))
			enc := s.Encode()
			c, err := Decode(enc, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(c.Encode(), enc) {
				t.Fatalf("step %d: a restored store encodes differently", step)
			}
			s = c
			check(fmt.Sprintf("step %d, restored", step))
		}
	}
}
