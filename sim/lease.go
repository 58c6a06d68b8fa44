package sim

import (
	"fmt"
	"time"

	"github.com/raftsim/raftsim/lease"
	"github.com/raftsim/raftsim/server"
)

// The lessor's loop at a member: expiring leases at the leader, and
// answering lease calls forwarded to it, as etcd's lease/lessor.go and
// server/etcdserver/v3_server.go's LeaseRenew and LeaseTimeToLive.

// leaseRetry is how soon a member tries a forwarded lease request again
// after it could not reach the leader.
const leaseRetry = 500 * time.Millisecond

// minLeaseTTL is etcd's minimum lease TTL for the configuration's
// election timeout (server.MinLeaseTTL).
func (c *Config) minLeaseTTL() int64 { return server.MinLeaseTTL(c.ElectionTicks, c.Tick) }

// expireLeases is the leader's lessor loop (every 500ms of its own clock):
// it proposes the revocation of every expired lease, through raft.
func (m *member) expireLeases() {
	for _, r := range m.srv.LeaseLoop.Due(m.srv.KV, &m.srv.IDs, m.localNow()) {
		m.w.lessorRevokes[r.ID] = true
		m.enter()
		err := m.rn.Propose(r.Entry)
		m.leave()
		if err == nil {
			m.w.record(Event{Kind: EvFault, Node: m.id, Text: fmt.Sprintf(leaseExpiredText, r.Lease)})
		}
	}
}

// answerLease is the leader's answer to a lease request from origin
// (server.KV.AnswerLease). A keep-alive of a lease that has expired waits
// until its revocation is applied (ok false).
func (m *member) answerLease(op *Op, origin *member) (reply, bool) {
	rev := m.srv.KV.Store.Rev()
	resp, err, expired := m.srv.KV.AnswerLease(&op.Req, m.localNow())
	switch {
	case expired:
		m.srv.LeaseWaits.Hold(op.Req.LeaseKeepAlive.ID, leaseWait{op: op, origin: origin})
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
	m.srv.LeaseWaits.Revoked(id, func(lw leaseWait) {
		r := reply{status: OpError, err: lease.ErrLeaseNotFound.Error()}
		if lw.origin == m {
			m.w.reply(m, lw.op, r)
		} else {
			m.w.peerSend(m, lw.origin, lw.op, &r)
		}
	})
}
