package mvcc

import (
	"math"
	"strings"
	"testing"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
)

// TestLoadRefusesARevisionNear2To63 loads stores whose newest record, or
// compaction, is at 2^63-1 or just past 2^62: each is refused with an
// error that says why, where they opened (issue 30: the one at 2^63-1
// then panicked at its first put); seen to fail without the check. A
// store at 2^62 opens and takes a put.
func TestLoadRefusesARevisionNear2To63(t *testing.T) {
	one := func(rev int64) func(yield func(Revision, bool, *mvccpb.KeyValue) error) error {
		return func(yield func(Revision, bool, *mvccpb.KeyValue) error) error {
			return yield(Revision{Main: rev}, false, &mvccpb.KeyValue{Key: []byte("k"), Value: []byte("v"), CreateRevision: rev, ModRevision: rev, Version: 1})
		}
	}
	for _, tc := range []struct {
		name             string
		rev, compact, sc int64
	}{
		{"a record at 2^63-1", math.MaxInt64, -1, 0},
		{"a record at 2^62+1", MaxRestoredRev + 1, -1, 0},
		{"a compaction at 2^63-1", 5, math.MaxInt64, math.MaxInt64},
		{"a scheduled compaction at 2^63-1", 5, -1, math.MaxInt64},
	} {
		_, err := Load(tc.compact, tc.sc, nil, one(tc.rev))
		if err == nil || !strings.Contains(err.Error(), "too near 2^63-1") {
			t.Errorf("%s: %v, want the revision refused", tc.name, err)
		}
	}
	s, err := Load(-1, 0, nil, one(MaxRestoredRev))
	if err != nil {
		t.Fatal(err)
	}
	resp, _, err := s.Put(&pb.PutRequest{Key: []byte("k"), Value: []byte("w")})
	if err != nil || resp.Header.Revision != MaxRestoredRev+1 {
		t.Fatalf("a put on a store at 2^62: %v, %v", resp, err)
	}
}
