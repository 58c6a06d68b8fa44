package server

import (
	"strings"
	"testing"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
)

// TestDefragSizeDoesNotDependOnAStatus: the DB SIZE a defrag reports
// before it rewrites the file is the same whether or not a Status asked
// for the size after the batch's interval passed. Before, Size settled the
// batch and Defrag did not: a session with an endpoint status before its
// defrag reported 24576 → 24576, its replay (whose status is not a step)
// 20480 → 24576 (found by TestEveryVerbRoundTrip).
func TestDefragSizeDoesNotDependOnAStatus(t *testing.T) {
	defrag := func(askStatus bool) (int64, int64) {
		kv := NewKV(1)
		var b Backend
		now := int64(0)
		b.Attach(kv, func() int64 { return now })
		for i := range 40 {
			r := Put("k"+strings.Repeat("x", i), strings.Repeat("v", 500))
			if a := kv.ApplyCapped(&etcdserverpb.InternalRaftRequest{Put: r.Put}, 0, nil, &b, 0, false); a.Err != "" {
				t.Fatal(a.Err)
			}
		}
		now = 2 * BatchInterval
		if askStatus {
			b.Size(now)
		}
		return b.Defrag(now)
	}
	b1, a1 := defrag(true)
	b2, a2 := defrag(false)
	if b1 != b2 || a1 != a2 {
		t.Errorf("defrag with a status before it: %d → %d; without: %d → %d", b1, a1, b2, a2)
	}
}
