package server

import "go.etcd.io/etcd/api/v3/etcdserverpb"

// etcd's apply-time quota (server/etcdserver/apply's quotaApplierV3, and
// applyEntryNormal in server/etcdserver/server.go): the gRPC check
// (QuotaCheck) passes a write that fits the quota when it is proposed,
// but the file may have grown past it by the time the write is applied
// (writes proposed before it, applied first). Every member checks the
// quota again as it applies a put, a transaction or a lease grant: the
// request is applied all the same, and its answer is ErrNoSpace; a member
// that knows no NOSPACE alarm yet then raises its own through raft.

// QuotaAvailable is quotaApplierV3's check, made before the request is
// applied: whether r fits the quota as the file stands (etcd's
// BackendQuota.Available: size + cost < quota; a request that costs
// nothing always fits). As for the gRPC check (OverQuota), the size is the
// file as it stands: its last commit's.
func (b *Backend) QuotaAvailable(r *etcdserverpb.InternalRaftRequest, quota int64) bool {
	cost := quotaCost(&Request{Put: r.Put, Txn: r.Txn, LeaseGrant: r.LeaseGrant})
	if cost == 0 || b == nil || b.File == nil || quota <= 0 {
		return true
	}
	return b.File.Size()+cost < quota
}

// ApplyQuota is quotaApplierV3's answer: a request that succeeded while
// the quota was not available (QuotaAvailable, before it was applied)
// stays applied (its revision, its events) and is answered with
// ErrNoSpace. raise: the member raises its NOSPACE alarm, as etcd's
// applyEntryNormal does when no NOSPACE alarm is raised yet.
func ApplyQuota(a Applied, available bool, alarms Alarms) (_ Applied, raise bool) {
	if available || a.Err != "" {
		return a, false
	}
	a.Err, a.Resp = ErrNoSpace, Response{}
	return a, !alarms.NoSpace()
}
