package sim

import (
	"fmt"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/membershippb"
	"go.etcd.io/raft/v3"

	"github.com/raftsim/raftsim/server"
)

// Applying: the member's glue to etcd's server layer's apply path (package
// server) above raft, and what that path needs of the world (replies, the
// transcript, the member an etcd ID names, the membership). It follows
// etcd's server/etcdserver/apply. Proposing and forwarding are in
// propose.go, watches in watch.go, the lessor's loop in lease.go, the
// member's clock in clock.go.

// applyEntry applies one committed normal entry: an InternalRaftRequest,
// through its server layer's apply path (server.Member.ApplyEntry); the
// member does what needs the world (applyHooks).
func (m *member) applyEntry(data []byte) {
	at := server.ApplyAt{Alarms: &m.cluster.Alarms, Self: m.memberID, Now: m.localNow(), At: int64(m.w.now), Index: m.applied,
		Leader: m.soft.RaftState == raft.StateLeader, Extend: int64(m.w.leaseExtend()), Quota: m.w.cfg.quota(m.name)}
	if err := m.srv.ApplyEntry(&m.w.decoder, data, at, applyHooks{m}); err != nil {
		panic("sim: " + m.name + ": bad entry: " + err.Error())
	}
}

// applyHooks are what the member does for its apply path
// (server.ApplyHooks).
type applyHooks struct{ m *member }

// Answer replies to the client that waits on an applied request.
func (h applyHooks) Answer(op *Op, a server.Applied) {
	rep := reply{status: OpOK, resp: a.Resp, rev: a.Rev, alarms: a.Alarms}
	if op.Kind == OpDowngrade {
		op.rare().version = server.ClusterVersion(h.m.cluster.Version)
	}
	if a.Err != "" {
		rep = reply{status: OpError, err: a.Err, rev: a.Rev}
	}
	h.m.w.reply(h.m, op, rep)
}

// Revoked says in the transcript that a leader's lessor revoked an
// expired lease (a client's revocation goes unsaid), and answers the
// keep-alives held for it.
func (h applyHooks) Revoked(id uint64, a server.Applied) {
	m := h.m
	if m.w.lessorRevokes[id] {
		m.w.record(Event{Kind: EvFault, Node: m.id, Text: fmt.Sprintf(pick(a.Deleted, leaseRevokedOne, leaseRevokedMany), a.Revoked, a.Deleted)})
	}
	m.leaseGone(a.Revoked)
}

// Publish applies a member's publication to the membership, for the
// member the world knows by that etcd member ID; the member's own makes
// it ready to serve clients.
func (h applyHooks) Publish(r *membershippb.ClusterMemberAttrSetRequest, own bool) {
	m := h.m
	if o := m.w.memberWithID(r.Member_ID); o != nil {
		m.cluster.Publish(o.id, r.MemberAttributes)
	}
	if own && !m.ready {
		m.ready = true
		m.w.fault(m.id, publishedText)
	}
}

// SetVersion applies the cluster version to the membership.
func (h applyHooks) SetVersion(v string) { h.m.cluster.Version = v }

// SetDowngrade applies a downgrade's start or end to the membership. A
// leader checks the cluster version at its monitor's next tick, 4s on
// (etcd's monitorClusterVersions polls every 4s; the simulation, which
// polls only while it has something to decide, starts its next poll now).
func (h applyHooks) SetDowngrade(target string) {
	m := h.m
	m.cluster.Downgrade = target
	if m.soft.RaftState == raft.StateLeader {
		e := m.w.sched.after(m.w.now, Time(versionCheckEvery))
		e.kind, e.node, e.inc = evVersionCheck, m.id, m.inc
	}
}

// NoSpace raises the member's NOSPACE alarm once its entry is applied
// (afterAdvance), as etcd's applyEntryNormal does after the apply.
func (h applyHooks) NoSpace() { h.m.wantNoSpace = true }

// FirstCommitInTerm has a leader check the cluster version once the
// Ready is over (afterAdvance), and says in the transcript how many leases
// its lessor inherited.
func (h applyHooks) FirstCommitInTerm(f server.FirstCommit) {
	m := h.m
	m.wantVersion = f.Leader
	if f.Inherited > 0 {
		m.w.record(Event{Kind: EvFault, Node: m.id, Text: fmt.Sprintf(pick(f.Inherited, leasesInheritedOne, leasesInheritedMany), f.Inherited, m.w.leaseExtend())})
	}
}

// AlarmChanged says in the transcript what an alarm request raised or
// cleared.
func (h applyHooks) AlarmChanged(r *etcdserverpb.AlarmRequest) {
	text := alarmRaisedText
	if r.Action == etcdserverpb.AlarmRequest_DEACTIVATE {
		text = alarmClearedText
	}
	h.m.w.fault(h.m.id, fmt.Sprintf(text, r.Alarm, r.MemberID))
}
