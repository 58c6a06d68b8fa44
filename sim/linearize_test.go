package sim

import (
	"strings"
	"testing"

	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/lincheck"
	"github.com/raftsim/raftsim/server"
)

// TestLinearizability feeds the checker hand-made client histories: the
// real World's ops list with the sim's op fields, so the test exercises the
// same translation to lincheck that a run uses. Events are numbered in the
// order they happened; times are whatever they were.
func TestLinearizability(t *testing.T) {
	ms := func(n int) Time { return Time(int64(n) * 1e6) }
	put := func(key, value string, start, end int, st OpStatus) *Op {
		return &Op{Kind: OpPut, Client: "a", Req: server.Put(key, value), Start: ms(start), End: ms(end),
			StartEvent: start, EndEvent: end, Status: st}
	}
	get := func(key string, found bool, value string, start, end int) *Op {
		op := &Op{Kind: OpGet, Client: "b", Req: server.Get(key, false), Start: ms(start), End: ms(end), StartEvent: start, EndEvent: end, Status: OpOK}
		op.Resp.Range = &etcdserverpb.RangeResponse{}
		if found {
			op.Resp.Range.Kvs = []*KeyValue{{Key: []byte(key), Value: []byte(value)}}
		}
		return op
	}
	for _, tc := range []struct {
		name string
		ops  []*Op
		want bool
	}{
		{"read your write", []*Op{put("k", "1", 0, 10, OpOK), get("k", true, "1", 20, 30)}, true},
		{"stale read after a finished write", []*Op{put("k", "1", 0, 10, OpOK), get("k", false, "", 20, 30)}, false},
		{"concurrent read may see either", []*Op{put("k", "1", 0, 30, OpOK), get("k", false, "", 10, 20)}, true},
		{"a timed-out write may have happened", []*Op{put("k", "1", 0, 10, OpTimeout), get("k", true, "1", 20, 30)}, true},
		{"a timed-out write may not have happened", []*Op{put("k", "1", 0, 10, OpTimeout), get("k", false, "", 20, 30)}, true},
		{"a failed write did not happen", []*Op{put("k", "1", 0, 10, OpError), get("k", true, "1", 20, 30)}, false},
		{"value went back in time", []*Op{put("k", "1", 0, 10, OpOK), put("k", "2", 20, 30, OpOK),
			get("k", true, "2", 40, 50), get("k", true, "1", 60, 70)}, false},
		{"prefix delete", []*Op{put("/a/x", "1", 0, 10, OpOK),
			{Kind: OpDelete, Client: "a", Req: server.DeletePrefix("/a/"), Start: ms(20), End: ms(30), StartEvent: 20, EndEvent: 30, Status: OpOK},
			get("/a/x", false, "", 40, 50)}, true},
		{"serializable stale reads are not checked", []*Op{put("k", "1", 0, 10, OpOK),
			{Kind: OpGet, Client: "b", Req: server.Get("k", true), Start: ms(20), End: ms(30), StartEvent: 20, EndEvent: 30, Status: OpOK}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &World{ops: tc.ops}
			w.newGroup(0, nil)
			got := w.checkOps(lincheck.Options{})
			if got.OK != tc.want {
				t.Fatalf("OK = %v (%s: %s), want %v", got.OK, got.Result, got.Detail, tc.want)
			}
			var html strings.Builder
			if err := got.WriteHTML(&html); err != nil || !strings.Contains(html.String(), "<html") {
				t.Fatalf("visualization: %v", err)
			}
		})
	}
}
