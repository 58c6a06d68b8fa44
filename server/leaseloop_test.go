package server

import (
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/lease"
)

// The leader's lessor loop: nothing before promotion, an expired lease's
// revocation once its check is due (and not again before the next check),
// and the revocation, applied, removes the lease and its keys.
func TestLeaseLoop(t *testing.T) {
	const s = int64(time.Second)
	kv := NewKV(1)
	ids := NewIDGen(0xabcd, 1)
	var loop LeaseLoop
	var d Decoder
	grant := func(id, ttl, now int64) {
		var r etcdserverpb.InternalRaftRequest
		data := Encode(&etcdserverpb.InternalRaftRequest{Header: &etcdserverpb.RequestHeader{ID: uint64(id)},
			LeaseGrant: &etcdserverpb.LeaseGrantRequest{ID: id, TTL: ttl}})
		if err := d.Decode(data, &r); err != nil {
			t.Fatal(err)
		}
		if a := kv.Apply(&r, now); a.Err != "" || a.Granted != id {
			t.Fatalf("grant: %+v", a)
		}
	}
	grant(42, 2, 0)
	if got := loop.Due(kv, &ids, 10*s); got != nil {
		t.Fatalf("a follower's lessor revoked %+v", got)
	}
	if n, ok := loop.Promote(kv, s, 10*s); !ok || n != 1 {
		t.Fatalf("Promote = %d, %v; want 1 lease inherited", n, ok)
	}
	if _, ok := loop.Promote(kv, s, 10*s); ok {
		t.Fatal("a primary lessor was promoted again")
	}
	// Inherited at 10s: it lives 2s + 1s, so it expires at 13s. Lease 43,
	// granted at the leader at 11.3s for 2s, expires at 13.3s.
	grant(43, 2, 11*s+3*s/10)
	if got := loop.Due(kv, &ids, 12*s); got != nil {
		t.Fatalf("revoked a live lease: %+v", got)
	}
	got := loop.Due(kv, &ids, 13*s)
	if len(got) != 1 || got[0].Lease != 42 {
		t.Fatalf("Due at 13s = %+v, want lease 42's revocation", got)
	}
	if again := loop.Due(kv, &ids, 13*s+lease.CheckInterval-1); again != nil {
		t.Fatalf("checked again before CheckInterval: %+v", again)
	}
	if next := loop.Due(kv, &ids, 13*s+lease.CheckInterval); len(next) != 1 || next[0].Lease != 43 || next[0].ID == got[0].ID {
		t.Fatalf("Due at the next check = %+v, want lease 43's revocation with an ID of its own", next)
	}
	var r etcdserverpb.InternalRaftRequest
	if err := d.Decode(got[0].Entry, &r); err != nil {
		t.Fatal(err)
	}
	if RequestID(&r) != got[0].ID || r.LeaseRevoke == nil || r.LeaseRevoke.ID != 42 {
		t.Fatalf("the revocation's entry is %+v, want lease 42 with ID %x", &r, got[0].ID)
	}
	if a := kv.Apply(&r, 13*s); a.Err != "" || a.Revoked != 42 || kv.Lessor.Exists(42) {
		t.Fatalf("applying the revocation: %+v", a)
	}
	loop.Demote(kv)
	if kv.Lessor.IsPrimary() {
		t.Fatal("demoted lessor is primary")
	}
}
