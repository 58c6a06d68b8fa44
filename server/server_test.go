package server

import (
	"strings"
	"testing"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
)

// A put decoded into the decoder's scratch leaves the store the bytes of
// its own entry: the next decode must not write into the last put's key or
// value, which the store keeps.
func TestDecoderScratchIsNotKept(t *testing.T) {
	kv := NewKV(1)
	var d Decoder
	apply := func(key, value string) {
		put := Put(key, value)
		data := Encode(&etcdserverpb.InternalRaftRequest{Header: &etcdserverpb.RequestHeader{ID: 7}, Put: put.Put})
		var r etcdserverpb.InternalRaftRequest
		if err := d.Decode(data, &r); err != nil {
			t.Fatal(err)
		}
		if RequestID(&r) != 7 || r.Put == nil {
			t.Fatalf("decoded %+v", &r)
		}
		if a := kv.Apply(&r, 0); a.Err != "" {
			t.Fatal(a.Err)
		}
	}
	apply("a", "first")
	apply("b", "second")
	if got, _ := kv.Get("a"); string(got.Value) != "first" {
		t.Fatalf("a = %q after the next put was decoded, want first", got.Value)
	}
	var r etcdserverpb.InternalRaftRequest
	data := Encode(&etcdserverpb.InternalRaftRequest{Header: &etcdserverpb.RequestHeader{ID: 8},
		DeleteRange: &etcdserverpb.DeleteRangeRequest{Key: []byte("a")}})
	if err := d.Decode(data, &r); err != nil || r.Put != nil || r.DeleteRange == nil {
		t.Fatalf("a delete decoded as %+v (%v)", &r, err)
	}
}

// The size check measures the entry as etcd marshals it; the request ID
// takes 9 or 10 bytes by the member's ID. Measured with a real etcd
// v3.6.16 (put k < file): a member whose ID ends in 0x4a3b takes 1572840
// bytes and refuses 1572841, one whose ID ends in 0xbcee refuses 1572840.
func TestTooLargeIsEtcds(t *testing.T) {
	for _, tc := range []struct {
		memberID uint64
		largest  int
	}{{0x55e7f8b37b434a3b, 1572840}, {0x0628170c800dbcee, 1572839}} {
		g := NewIDGen(tc.memberID, 1780000000000)
		put := func(n int) *Request {
			r := Put("k", strings.Repeat("a", n))
			return &r
		}
		if TooLarge(put(tc.largest), g.Peek()) || !TooLarge(put(tc.largest+1), g.Peek()) {
			t.Errorf("member %016x: want %d bytes taken and %d refused", tc.memberID, tc.largest, tc.largest+1)
		}
	}
}

func TestIDGen(t *testing.T) {
	g := NewIDGen(0xa3959071884acd0c, 5)
	first := g.Peek()
	if id := g.Next(); id != first || id>>48 != 0xcd0c || id&0xff != 1 || (id>>8)&(1<<40-1) != 5 {
		t.Fatalf("first ID %016x", id)
	}
	if l := g.NextLease(); l < 0 || uint64(l)&(1<<48-1) != 5<<8|2 {
		t.Fatalf("lease ID %016x", l)
	}
	if !g.Mine(first) || g.Mine(first-1) {
		t.Fatalf("Mine: its first ID %v, the one before %v", g.Mine(first), g.Mine(first-1))
	}
	later := NewIDGen(0xa3959071884acd0c, 6) // the same member, restarted a millisecond later
	if later.Mine(first) {
		t.Fatalf("a later life claims an earlier life's ID")
	}
}

func TestValidate(t *testing.T) {
	ignore := Put("k", "")
	ignore.Put.IgnoreValue = true
	withValue := Put("k", "v")
	withValue.Put.IgnoreValue = true
	withLease := Put("k", "v")
	withLease.Put.IgnoreLease, withLease.Put.Lease = true, 5
	for _, tc := range []struct {
		req  Request
		want string
	}{
		{Put("k", "v"), ""},
		{ignore, ""},
		{Put("", "v"), "etcdserver: key is not provided"},
		{withValue, "etcdserver: value is provided"},
		{withLease, "etcdserver: lease is provided"},
		{Get("", false), "etcdserver: key is not provided"},
		{Delete(""), "etcdserver: key is not provided"},
		{GetPrefix("", false), ""}, // the key "\x00", every key
		{Request{LeaseGrant: &etcdserverpb.LeaseGrantRequest{TTL: 9000000001}}, "etcdserver: too large lease TTL"},
	} {
		if got := Validate(&tc.req); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.req.Message(), got, tc.want)
		}
	}
}

func TestSummary(t *testing.T) {
	del := DeletePrefix("")
	for _, tc := range []struct {
		r    etcdserverpb.InternalRaftRequest
		want string
	}{
		{etcdserverpb.InternalRaftRequest{Put: Put("k", "v").Put}, "put k = v"},
		{etcdserverpb.InternalRaftRequest{DeleteRange: DeletePrefix("/a/").DeleteRange}, "del --prefix /a/"},
		{etcdserverpb.InternalRaftRequest{DeleteRange: del.DeleteRange}, "del --prefix "},
		{etcdserverpb.InternalRaftRequest{Alarm: &etcdserverpb.AlarmRequest{}}, "alarm list"},
		{etcdserverpb.InternalRaftRequest{Txn: &etcdserverpb.TxnRequest{}}, "?"},
	} {
		if got := Summary(Encode(&tc.r)); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
	}
}
