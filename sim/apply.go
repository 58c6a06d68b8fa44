package sim

import (
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/membershippb"
	"go.etcd.io/raft/v3"

	"github.com/raftsim/raftsim/lease"
	"github.com/raftsim/raftsim/mvcc"
	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/server"
)

// The member's glue to etcd's server layer (package server) above raft:
// what the apply path needs of the world (replies, the transcript, the
// member an etcd ID names, the membership), reads, watches, proposals and
// the lessor's work at the leader, with the member's clock and raft, and
// forwarding lease calls and promotions to the leader over the member
// network. It follows etcd's server/etcdserver (apply, v3_server.go) and
// api/v3rpc (watch.go, interceptor.go).

// leaseRetry is how soon a member tries a forwarded lease request again
// after it could not reach the leader.
const leaseRetry = 500 * time.Millisecond

// minLeaseTTL is etcd's minimum lease TTL for the configuration's
// election timeout (server.MinLeaseTTL).
func (c *Config) minLeaseTTL() int64 { return server.MinLeaseTTL(c.ElectionTicks, c.Tick) }

// localNow is the member's own clock, in ns: virtual time, run at the
// member's clock rate since the rate last changed.
func (m *member) localNow() int64 {
	return int64(m.clockBase) + int64(float64(m.w.now-m.clockSince)*m.rate)
}

// setClockRate changes how fast the member's clock runs from now on.
func (m *member) setClockRate(rate float64) {
	m.clockBase, m.clockSince = Time(m.localNow()), m.w.now
	m.rate = rate
}

// applyEntry applies one committed normal entry: an InternalRaftRequest,
// through the server layer's apply path (server.ApplyState.ApplyEntry);
// the member does what needs the world (applyHooks).
func (m *member) applyEntry(data []byte) {
	s := server.ApplyState[*Op]{KV: m.kv, Alarms: &m.cluster.Alarms, Backend: &m.backend, Wait: &m.writes,
		Watches: &m.watches, IDs: &m.ids, Self: m.memberID, Now: m.localNow(), At: int64(m.w.now),
		Leader: m.soft.RaftState == raft.StateLeader, Lease: &m.leaseLoop, Extend: int64(m.w.leaseExtend())}
	if err := s.ApplyEntry(&m.w.decoder, data, applyHooks{m}); err != nil {
		panic("sim: " + m.name + ": bad entry: " + err.Error())
	}
}

// applyHooks are what the member does for its apply path
// (server.ApplyHooks).
type applyHooks struct{ m *member }

// Answer replies to the client that waits on an applied request.
func (h applyHooks) Answer(op *Op, a server.Applied) {
	rep := reply{status: OpOK, resp: a.Resp, rev: a.Rev, alarms: a.Alarms}
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

// leaseExtend is how long the leases a new leader's lessor inherits live
// past their TTL: an election timeout.
func (w *World) leaseExtend() time.Duration { return time.Duration(w.cfg.ElectionTicks) * w.cfg.Tick }

// AlarmChanged says in the transcript what an alarm request raised or
// cleared.
func (h applyHooks) AlarmChanged(r *etcdserverpb.AlarmRequest) {
	text := alarmRaisedText
	if r.Action == etcdserverpb.AlarmRequest_DEACTIVATE {
		text = alarmClearedText
	}
	h.m.w.fault(h.m.id, fmt.Sprintf(text, r.Alarm, r.MemberID))
}

// expireLeases is the leader's lessor loop (every 500ms of its own clock):
// it proposes the revocation of every expired lease, through raft.
func (m *member) expireLeases() {
	for _, r := range m.leaseLoop.Due(m.kv, &m.ids, m.localNow()) {
		m.w.lessorRevokes[r.ID] = true
		m.enter()
		err := m.rn.Propose(r.Entry)
		m.leave()
		if err == nil {
			m.w.record(Event{Kind: EvFault, Node: m.id, Text: fmt.Sprintf(leaseExpiredText, r.Lease)})
		}
	}
}

// pollLeader is etcd's monitorLeader, once per election timeout of the
// member's clock (server.LeaderMonitor): after some polls in a row without
// a leader, the require-leader watches are cancelled.
func (m *member) pollLeader() {
	if m.leaderMonitor.Poll(m.soft.Lead != 0) {
		m.watches.LeaderLost()
	}
}

// startWatch opens a watch at the member (server.Watches): it answers
// that the watch is created, then the member's watchable store catches it
// up from its start revision. (A watch that requires a leader at a member
// that knows none was refused before, by server.Admit.)
func (m *member) startWatch(op *Op) {
	m.w.reply(m, op, reply{status: OpOK, watch: true, rev: m.kv.Store.Rev()})
	m.watches.Start(op, op.Req.Watch, op.RequireLeader)
	if op.Req.Watch.ProgressNotify {
		m.startProgressTimer(op)
	}
}

// watchSink sends what a member's watch streams send (server.WatchSink)
// to their clients: each event of a response on its own, after the
// client latency, and a cancellation as the watch's error.
type watchSink struct{ m *member }

func (s watchSink) Send(op *Op, n int, r mvcc.WatchResponse) {
	for i, ev := range r.Events {
		we := WatchEvent{Event: ev, Response: n, last: i == len(r.Events)-1}
		we.Header.Revision = r.Revision
		s.m.w.watchEvent(s.m, op, we)
	}
}

func (s watchSink) Cancel(op *Op, err string, compact int64) {
	s.m.w.reply(s.m, op, reply{status: OpError, err: err, compact: compact})
}

// read answers a read from the local store: a get, or a transaction that
// writes nothing, which etcd serves like a read (at the read index, or
// locally when serializable).
func (m *member) read(op *Op) reply {
	resp, err := m.kv.Read(&op.Req)
	if err != "" {
		return reply{status: OpError, err: err, applied: m.applied}
	}
	return reply{status: OpOK, resp: resp, applied: m.applied}
}

// propose puts a client write into raft at this member, as etcd's
// processInternalRaftRequestOnce does (server.Proposal): the request in an
// InternalRaftRequest with an ID of its own, which the member waits on.
func (m *member) propose(op *Op) {
	id, data := server.Proposal(&m.ids, &op.Req)
	m.enter()
	err := m.rn.Propose(data)
	m.leave()
	if err != nil {
		// etcd passes raft's ErrProposalDropped on as gRPC Unknown, with
		// no reason; the transcript says why.
		switch st := m.rn.BasicStatus(); {
		case st.LeadTransferee != 0:
			m.w.fault(m.id, dropTransferText)
		case st.RaftState != raft.StateLeader && m.w.cfg.DisableProposalForwarding:
			m.w.fault(m.id, dropNoForwardingText)
		}
		m.w.reply(m, op, reply{status: OpError, err: errProposalDropped})
		return
	}
	m.writes.Register(id, op)
	m.flush()
}

// atLeader serves, at the leader, a call for the leader that origin
// received (itself, or the member that forwarded it): a promotion, or a
// keep-alive or timetolive, which the leader's lessor answers. A member
// forwards such a call, and tries again until it gets an answer or its
// client gives up, as etcd's LeaseRenew, LeaseTimeToLive and
// PromoteMember do.
func (m *member) atLeader(op *Op, origin *member) {
	if op.Kind == OpMemberPromote {
		m.promoteAtLeader(op, origin)
		return
	}
	if r, ok := m.answerLease(op, origin); ok {
		m.answerOrigin(op, origin, r)
	}
}

// answerLease is the leader's answer to a lease request from origin
// (server.KV.AnswerLease). A keep-alive of a lease that has expired waits
// until its revocation is applied (ok false).
func (m *member) answerLease(op *Op, origin *member) (reply, bool) {
	rev := m.kv.Store.Rev()
	resp, err, expired := m.kv.AnswerLease(&op.Req, m.localNow())
	switch {
	case expired:
		m.leaseWaits.Hold(op.Req.LeaseKeepAlive.ID, leaseWait{op: op, origin: origin})
		return reply{}, false
	case err != "":
		return reply{status: OpError, err: err}, true
	}
	return reply{status: OpOK, rev: rev, resp: resp}, true
}

// leaseWait is a keep-alive held at the leader for an expired lease.
type leaseWait struct {
	op     *Op
	origin *member
}

// leaseGone answers the keep-alives held for a lease just revoked.
func (m *member) leaseGone(id int64) {
	m.leaseWaits.Revoked(id, func(lw leaseWait) {
		r := reply{status: OpError, err: lease.ErrLeaseNotFound.Error()}
		if lw.origin == m {
			m.w.reply(m, lw.op, r)
		} else {
			m.w.peerSend(m, lw.origin, lw.op, &r)
		}
	})
}

// peerSend carries a forwarded lease request (r nil) from m to the leader,
// or the leader's answer r back, over the member network: it takes a
// message's latency, and a cut or a lost message makes the forwarding
// member try again after leaseRetry.
func (w *World) peerSend(from, to *member, op *Op, r *reply) {
	origin := from
	if r != nil {
		origin = to
	}
	plan := w.net.Send(from.id, to.id, time.Duration(w.now))
	if plan.Dropped != netmodel.NotDropped {
		e := w.sched.after(w.now, Time(leaseRetry))
		e.kind, e.node, e.inc, e.op = evPeerRetry, origin.id, origin.inc, op
		return
	}
	e := w.sched.push(Time(plan.ArriveAt))
	e.kind, e.node, e.peer, e.op, e.rep = evPeerArrive, to.id, from.id, op, r
	if r != nil {
		e.kind, e.inc = evPeerReply, to.inc
	}
}

// peerArrive handles a forwarded lease request at the member it was sent
// to: the leader answers it; a member that is down or no longer leads
// makes the sender try again.
func (w *World) peerArrive(m *member, e *event) {
	from := w.members[e.peer-1]
	op := e.op
	if op.Status != OpPending {
		return
	}
	if !m.up || w.net.IsCut(from.id, m.id) || m.soft.RaftState != raft.StateLeader {
		r := w.sched.after(w.now, Time(leaseRetry))
		r.kind, r.node, r.inc, r.op = evPeerRetry, from.id, from.inc, op
		return
	}
	m.atLeader(op, from)
}
