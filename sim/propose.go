package sim

import (
	"time"

	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/server"
	"go.etcd.io/raft/v3"
)

// Proposing: reads, proposals and forwarding to the leader over the member
// network (lease calls, promotions), as etcd's server/etcdserver/v3_server.go.

// read answers a read from the local store: a get, or a transaction that
// writes nothing, which etcd serves like a read (at the read index, or
// locally when serializable).
func (m *member) read(op *Op) reply {
	resp, err := m.srv.Read(&op.Req, m.localNow())
	if err != "" {
		return reply{status: OpError, err: err, applied: m.applied}
	}
	return reply{status: OpOK, resp: resp, applied: m.applied}
}

// propose puts a client write into raft at this member, as etcd's
// processInternalRaftRequestOnce does (server.Proposal): the request in an
// InternalRaftRequest with an ID of its own, which the member waits on.
func (m *member) propose(op *Op) {
	var ai *server.AuthInfo
	if op.Req.Auth == nil || op.Req.Auth.Authenticate == nil {
		var why string
		if ai, why = m.srv.KV.Auth.Info(op.Req.Token, m.localNow()); why != "" {
			m.w.reply(m, op, reply{status: OpError, err: why})
			return
		}
	}
	id, data := server.ProposalAs(&m.srv.IDs, &op.Req, ai)
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
	m.srv.Wait.Register(id, op)
	m.w.proposedAs(m, op, id)
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
