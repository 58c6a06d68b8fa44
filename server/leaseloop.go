package server

import (
	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/lease"
)

// LeaseLoop is the lessor's work at the leader, as etcd's lessor and
// EtcdServer do it between them: a new leader promotes its lessor once it
// has applied the empty entry of its term (the leases it inherits live
// their TTL again, plus an election timeout), a leader that steps down
// demotes it, and while it leads it looks for expired leases every
// lease.CheckInterval of its own clock and proposes their revocation
// through raft (etcd's revokeExpiredLeases). The member drives it: it
// calls Promote, Demote and Due at those moments and proposes what Due
// returns.
type LeaseLoop struct {
	// next is when (the member's clock, ns) it next looks for expired
	// leases.
	next int64
}

// Revocation is a lease revocation the leader's lessor proposes: the
// entry to propose and the request ID it carries.
type Revocation struct {
	Lease int64
	ID    uint64 // the request ID (from the member's IDGen)
	Entry []byte // the encoded InternalRaftRequest
}

// Promote makes kv's lessor primary at the member's clock now (ns), unless
// it is already: the leases it holds live their TTL again plus extend
// (ns, an election timeout). It returns how many leases it inherited, and
// false when the lessor was primary already.
func (l *LeaseLoop) Promote(kv *KV, extend, now int64) (inherited int, promoted bool) {
	if kv.Lessor.IsPrimary() {
		return 0, false
	}
	kv.Lessor.Promote(extend, now)
	l.next = now + lease.CheckInterval
	return len(kv.Lessor.Leases()), true
}

// Demote makes kv's lessor a follower's again: only the leader's lessor
// expires leases.
func (l *LeaseLoop) Demote(kv *KV) { kv.Lessor.Demote() }

// Due returns the revocations to propose at the member's clock now (ns):
// none unless the lessor is primary and its check is due, then one for
// every expired lease, each with a request ID drawn from ids.
func (l *LeaseLoop) Due(kv *KV, ids *IDGen, now int64) []Revocation {
	if !kv.Lessor.IsPrimary() || now < l.next {
		return nil
	}
	l.next = now + lease.CheckInterval
	var out []Revocation
	for _, id := range kv.Lessor.ExpiredToRevoke(now) {
		reqID := ids.Next()
		h := &etcdserverpb.RequestHeader{ID: reqID}
		if kv.Auth.Enabled() {
			// etcd's revokeExpiredLeases revokes as root (AuthStore.WithRoot).
			h.Username, h.AuthRevision = rootUser, kv.Auth.Revision()
		}
		out = append(out, Revocation{Lease: id, ID: reqID, Entry: Encode(&etcdserverpb.InternalRaftRequest{
			Header:      h,
			LeaseRevoke: &etcdserverpb.LeaseRevokeRequest{ID: id},
		})})
	}
	return out
}
