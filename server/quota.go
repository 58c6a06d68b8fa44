package server

import (
	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
)

// etcd's space quota (etcd's server/storage/quota.go and the alarms of
// server/etcdserver/apply): a member's gRPC layer refuses a request that
// would grow its backend past --quota-backend-bytes, and raises the
// NOSPACE alarm through raft; once a member has applied the alarm, its
// applier refuses every request that needs space (a put, a transaction
// with a put, a lease grant), while reads, deletes and compactions go on.
// Only a disarm (through raft) ends the alarm; a write while the file is
// still past the quota raises it again.

// DefaultQuota is etcd's default --quota-backend-bytes, 2 GiB.
const DefaultQuota = 2 << 30

// The costs etcd's quota charges a request (quota.go): a put's size plus
// kvOverhead, a transaction's larger branch of puts, a lease grant's
// leaseOverhead. A request that costs nothing is never refused.
const (
	kvOverhead    = 256
	leaseOverhead = 64
)

// ErrNoSpace is etcd's answer to a request that needs space past the
// quota.
var ErrNoSpace = rpctypes.ErrNoSpace.Error()

// quotaCost is what etcd's quota charges r.
func quotaCost(r *Request) int64 {
	switch {
	case r.Put != nil:
		return int64(kvOverhead + r.Put.Size())
	case r.Txn != nil:
		return int64(max(txnCost(r.Txn.Success), txnCost(r.Txn.Failure)))
	case r.LeaseGrant != nil:
		return leaseOverhead
	}
	return 0
}

func txnCost(ops []*etcdserverpb.RequestOp) int {
	n := 0
	for _, o := range ops {
		switch {
		case o.GetRequestPut() != nil:
			n += kvOverhead + o.GetRequestPut().Size()
		case o.GetRequestTxn() != nil:
			n += max(txnCost(o.GetRequestTxn().Success), txnCost(o.GetRequestTxn().Failure))
		}
	}
	return n
}

// QuotaCheck is etcd's gRPC quota check at member (quotaKVServer,
// quotaLeaseServer; quotaAlarmer.check): a request over the quota
// (OverQuota) is refused with ErrNoSpace, and the member raises its NOSPACE
// alarm through raft (NoSpaceAlarm). NB: it raises it only while it stands
// not yet in alarms, the alarms it has applied (etcd proposes it again at
// every refusal, and applies it once), and only while it knows a leader
// (raft drops a proposal without one; etcd's would wait for one).
func (b *Backend) QuotaCheck(r *Request, quota int64, alarms Alarms, member uint64, leaderKnown bool) (refuse, raise bool) {
	if !b.OverQuota(r, quota) {
		return false, false
	}
	return true, leaderKnown && !alarms.Has(member, etcdserverpb.AlarmType_NOSPACE)
}

// OverQuota reports whether r would take the backend's file (DB SIZE, as
// it stands) to quota.
func (b *Backend) OverQuota(r *Request, quota int64) bool {
	cost := quotaCost(r)
	return cost != 0 && b.File != nil && b.File.Size()+cost >= quota
}

// NoSpaceAlarm returns the entry that raises member's NOSPACE alarm,
// with request ID id.
func NoSpaceAlarm(id, member uint64) []byte {
	return Encode(&etcdserverpb.InternalRaftRequest{Header: &etcdserverpb.RequestHeader{ID: id},
		Alarm: &etcdserverpb.AlarmRequest{Action: etcdserverpb.AlarmRequest_ACTIVATE, MemberID: member, Alarm: etcdserverpb.AlarmType_NOSPACE}})
}

// NeedsSpace reports whether etcd's capped applier (the one a member runs
// while NOSPACE is raised) refuses r: a put, a transaction with a put, a
// lease grant.
func NeedsSpace(r *etcdserverpb.InternalRaftRequest) bool {
	switch {
	case r.Put != nil, r.LeaseGrant != nil:
		return true
	case r.Txn != nil:
		return max(txnCost(r.Txn.Success), txnCost(r.Txn.Failure)) > 0
	}
	return false
}
