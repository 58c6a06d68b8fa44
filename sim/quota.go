package sim

import (
	"fmt"
	"slices"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"

	"github.com/raftsim/raftsim/server"
)

// etcd's space quota (etcd's server/storage/quota.go and the alarms of
// server/etcdserver/apply): a member's gRPC layer refuses a request that
// would grow its backend past --quota-backend-bytes, and raises the
// NOSPACE alarm through raft; once a member has applied the alarm, its
// applier refuses every request that needs space (a put, a transaction
// with a put, a lease grant), while reads, deletes and compactions go on.
// Only a disarm (through raft) ends the alarm; a write while the file is
// still past the quota raises it again.

// The costs etcd's quota charges a request (quota.go): a put's size plus
// kvOverhead, a transaction's larger branch of puts, a lease grant's
// leaseOverhead. A request that costs nothing is never refused.
const (
	kvOverhead    = 256
	leaseOverhead = 64
)

// errNoSpace is etcd's answer to a request that needs space past the quota.
var errNoSpace = rpctypes.ErrNoSpace.Error()

// quota is the named member's --quota-backend-bytes.
func (c *Config) quota(name string) int64 {
	if q := c.QuotaBackendBytesOf[name]; q > 0 {
		return q
	}
	if c.QuotaBackendBytes <= 0 {
		return DefaultQuota
	}
	return c.QuotaBackendBytes
}

// quotaCost is what etcd's quota charges r.
func quotaCost(r *server.Request) int64 {
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

// overQuota is etcd's gRPC quota check (quotaKVServer, quotaLeaseServer):
// a request that would take the member's database file (DB SIZE) to the
// quota is refused, and the member raises the NOSPACE alarm through raft.
func (m *member) overQuota(op *Op) bool {
	cost := quotaCost(&op.Req)
	if cost == 0 || m.db == nil || m.db.Size()+cost < m.w.cfg.quota(m.name) {
		return false
	}
	if !m.cluster.hasAlarm(m.memberID, etcdserverpb.AlarmType_NOSPACE) && m.soft.Lead != 0 {
		data := server.Encode(&etcdserverpb.InternalRaftRequest{Header: &etcdserverpb.RequestHeader{ID: m.ids.Next()},
			Alarm: &etcdserverpb.AlarmRequest{Action: etcdserverpb.AlarmRequest_ACTIVATE, MemberID: m.memberID, Alarm: etcdserverpb.AlarmType_NOSPACE}})
		m.enter()
		err := m.rn.Propose(data)
		m.leave()
		if err == nil {
			m.w.fault(m.id, fmt.Sprintf(quotaExceededText, m.db.Size(), m.w.cfg.quota(m.name)))
			m.flush()
		}
	}
	return true
}

// needsSpace reports whether etcd's capped applier (the one a member runs
// while NOSPACE is raised) refuses r: a put, a transaction with a put, a
// lease grant.
func needsSpace(r *etcdserverpb.InternalRaftRequest) bool {
	switch {
	case r.Put != nil, r.LeaseGrant != nil:
		return true
	case r.Txn != nil:
		return max(txnCost(r.Txn.Success), txnCost(r.Txn.Failure)) > 0
	}
	return false
}

// alarm is one raised alarm, as etcd's alarm store keeps it.
type alarm struct {
	member uint64 // etcd's member ID
	kind   etcdserverpb.AlarmType
}

func (cs *clusterState) hasAlarm(member uint64, kind etcdserverpb.AlarmType) bool {
	return slices.Contains(cs.alarms, alarm{member, kind})
}

// noSpace reports whether the NOSPACE alarm is raised (by any member).
func (cs *clusterState) noSpace() bool {
	return slices.ContainsFunc(cs.alarms, func(a alarm) bool { return a.kind == etcdserverpb.AlarmType_NOSPACE })
}

// alarmMembers returns the alarms in etcd's types, as an AlarmResponse
// lists them.
func (cs *clusterState) alarmMembers() []*etcdserverpb.AlarmMember {
	var out []*etcdserverpb.AlarmMember
	for _, a := range cs.alarms {
		out = append(out, &etcdserverpb.AlarmMember{MemberID: a.member, Alarm: a.kind})
	}
	return out
}

// Alarms returns the kinds of the alarms the named member has applied
// ("NOSPACE"), raised by any member, in the order raised; nil if it is
// down.
func (w *World) Alarms(name string) []string {
	m := w.byName[name]
	if m == nil || !m.up {
		return nil
	}
	var out []string
	for _, a := range m.cluster.alarms {
		if s := a.kind.String(); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Quota returns the named member's --quota-backend-bytes.
func (w *World) Quota(name string) int64 { return w.cfg.quota(name) }

// applyAlarm applies an alarm request as etcd's alarm store does: GET
// lists, ACTIVATE adds (once), DEACTIVATE removes. It returns the alarms
// the answer lists: all of them for a GET, the one changed otherwise.
func (m *member) applyAlarm(r *etcdserverpb.AlarmRequest) []*etcdserverpb.AlarmMember {
	a := alarm{r.MemberID, r.Alarm}
	switch r.Action {
	case etcdserverpb.AlarmRequest_GET:
		return m.cluster.alarmMembers()
	case etcdserverpb.AlarmRequest_ACTIVATE:
		if r.Alarm == etcdserverpb.AlarmType_NONE || m.cluster.hasAlarm(a.member, a.kind) {
			return nil
		}
		m.cluster.alarms = append(m.cluster.alarms, a)
		m.w.fault(m.id, fmt.Sprintf(alarmRaisedText, a.kind, a.member))
	case etcdserverpb.AlarmRequest_DEACTIVATE:
		i := slices.Index(m.cluster.alarms, a)
		if i < 0 {
			return nil
		}
		m.cluster.alarms = slices.Delete(m.cluster.alarms, i, i+1)
		m.w.fault(m.id, fmt.Sprintf(alarmClearedText, a.kind, a.member))
	}
	return []*etcdserverpb.AlarmMember{{MemberID: a.member, Alarm: a.kind}}
}
