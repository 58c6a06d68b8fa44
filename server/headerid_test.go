package server

import (
	"testing"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
)

// TestHeaderID: the request ID read from an entry's bytes is the one its
// header holds, whatever the request (a put, a transaction, an alarm), and
// 0 without a header or for bytes that are not a request.
func TestHeaderID(t *testing.T) {
	ids := NewIDGen(0xabcd1234, 77)
	for _, req := range []Request{Put("k", "v"), {DeleteRange: &etcdserverpb.DeleteRangeRequest{Key: []byte("k")}},
		{LeaseGrant: &etcdserverpb.LeaseGrantRequest{TTL: 5}}} {
		id, data := Proposal(&ids, &req)
		if got := HeaderID(data); got != id || id == 0 {
			t.Errorf("%v: HeaderID %x, want %x", req, got, id)
		}
	}
	alarm := NoSpaceAlarm(0x1234, 9)
	var r etcdserverpb.InternalRaftRequest
	if err := r.Unmarshal(alarm); err != nil {
		t.Fatal(err)
	}
	if got := HeaderID(alarm); got != 0x1234 || got != RequestID(&r) {
		t.Errorf("alarm: HeaderID %x, want %x", got, RequestID(&r))
	}
	if got := HeaderID(Encode(&etcdserverpb.InternalRaftRequest{Put: &etcdserverpb.PutRequest{Key: []byte("k")}})); got != 0 {
		t.Errorf("no header: %x", got)
	}
	if got := HeaderID([]byte{0xff, 0xff}); got != 0 {
		t.Errorf("garbage: %x", got)
	}
}
