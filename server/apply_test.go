package server

import (
	"testing"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
)

// etcd's applier chain at a member: while NOSPACE is raised a put and a
// lease grant are refused with ErrNoSpace and change nothing, a delete
// is applied; a lease granted or revoked goes to the backend's lease
// bucket. The leader's lease answers: a keep-alive renews, a timetolive
// of an unknown lease is TTL -1. (Seen to fail with the capped applier
// off, and with a revocation not written to the lease bucket.)
func TestApplyCapped(t *testing.T) {
	kv := NewKV(1)
	var b Backend
	b.Attach(kv, func() int64 { return 0 })
	put := Put("k", "v")
	apply := func(r *etcdserverpb.InternalRaftRequest, alarms Alarms) Applied {
		return kv.ApplyCapped(r, 0, alarms, &b, 0, false)
	}
	if a := apply(&etcdserverpb.InternalRaftRequest{Put: put.Put}, nil); a.Err != "" || a.Rev != 2 {
		t.Fatalf("put: %+v", a)
	}
	noSpace := Alarms{{Member: 1, Kind: etcdserverpb.AlarmType_NOSPACE}}
	if a := apply(&etcdserverpb.InternalRaftRequest{Put: put.Put}, noSpace); a.Err != ErrNoSpace || a.Rev != 2 {
		t.Fatalf("put with NOSPACE raised: %+v", a)
	}
	grant := &etcdserverpb.InternalRaftRequest{LeaseGrant: &etcdserverpb.LeaseGrantRequest{ID: 5, TTL: 60}}
	if a := apply(grant, noSpace); a.Err != ErrNoSpace || len(kv.Lessor.Leases()) != 0 {
		t.Fatalf("lease grant with NOSPACE raised: %+v", a)
	}
	del := &etcdserverpb.InternalRaftRequest{DeleteRange: &etcdserverpb.DeleteRangeRequest{Key: []byte("k")}}
	if a := apply(del, noSpace); a.Err != "" || a.Rev != 3 {
		t.Fatalf("delete with NOSPACE raised: %+v", a)
	}
	before := b.File.Pending()
	if a := apply(grant, nil); a.Granted != 5 || b.File.Pending() != before+1 {
		t.Fatalf("grant: %+v, %d changes pending (was %d)", a, b.File.Pending(), before)
	}
	b.File.Commit()
	if a := apply(&etcdserverpb.InternalRaftRequest{LeaseRevoke: &etcdserverpb.LeaseRevokeRequest{ID: 5}}, nil); a.Revoked != 5 || b.File.Pending() != 1 {
		t.Fatalf("revoke: %+v, %d changes pending, want the lease's record deleted", a, b.File.Pending())
	}

	apply(grant, nil)
	kv.Lessor.Promote(0, 0) // the leader's
	resp, err, expired := kv.AnswerLease(&Request{LeaseKeepAlive: &etcdserverpb.LeaseKeepAliveRequest{ID: 5}}, 0)
	if err != "" || expired || resp.LeaseKeepAlive.TTL != 60 {
		t.Fatalf("keep-alive: %+v %q %v", resp, err, expired)
	}
	resp, _, _ = kv.AnswerLease(&Request{LeaseTimeToLive: &etcdserverpb.LeaseTimeToLiveRequest{ID: 6}}, 0)
	if resp.LeaseTimeToLive.TTL != -1 {
		t.Fatalf("timetolive of an unknown lease: %+v", resp)
	}
	if got := MinLeaseTTL(10, 100_000_000); got != 2 {
		t.Fatalf("MinLeaseTTL(10 ticks of 100ms) = %d, want 2 (1.5 s rounded up)", got)
	}
}

// A write proposed is the request in an InternalRaftRequest with the next
// request ID, which Proposal returns; a lease grant without an ID gets a
// lease ID drawn first, where it arrives, and one with an ID keeps it.
// (Seen to fail with the lease ID drawn after the request's.)
func TestProposal(t *testing.T) {
	ids := NewIDGen(0x1234, 1000)
	want := NewIDGen(0x1234, 1000)
	leaseID, reqID := want.NextLease(), want.Next()
	grant := Request{LeaseGrant: &etcdserverpb.LeaseGrantRequest{TTL: 60}}
	id, data := Proposal(&ids, &grant)
	var r etcdserverpb.InternalRaftRequest
	if err := r.Unmarshal(data); err != nil {
		t.Fatal(err)
	}
	if id != reqID || RequestID(&r) != reqID || r.LeaseGrant.ID != leaseID || r.LeaseGrant.TTL != 60 || grant.LeaseGrant.ID != 0 {
		t.Fatalf("grant proposed as %+v with ID %x; want request ID %x, lease ID %x, the client's request untouched", &r, id, reqID, leaseID)
	}
	grant.LeaseGrant.ID = 77
	id, data = Proposal(&ids, &grant)
	if err := r.Unmarshal(data); err != nil || id != want.Next() || r.LeaseGrant.ID != 77 {
		t.Fatalf("a grant with its own ID proposed as %+v (ID %x)", &r, id)
	}
}
