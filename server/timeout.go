package server

import (
	"context"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"

	"github.com/raftsim/raftsim/mvcc"
)

// What etcd answers a call whose request timeout ran out at the member it
// was sent to (TimeoutErr): the error depends on where the call stood
// there, and, for a proposal raft took, on etcd's guess at why it did not
// commit (EtcdServer.parseProposeCtxErr).

// The errors of a call that timed out.
var (
	// ErrTimeout is the plain one, and a read's whose read index did not
	// come (requestCurrentIndex).
	ErrTimeout = rpctypes.ErrTimeout.Error()
	// ErrTimeoutLeaderFail: the proposal began shortly before its member
	// became leader, so the previous leader probably failed.
	ErrTimeoutLeaderFail = rpctypes.ErrTimeoutDueToLeaderFail.Error()
	// ErrTimeoutConnLost: its member lost its connection to the leader, or
	// as leader to a quorum.
	ErrTimeoutConnLost = rpctypes.ErrTimeoutDueToConnectionLost.Error()
	// ErrDeadline is the context's own error: the call never reached raft.
	ErrDeadline = context.DeadlineExceeded.Error()
)

// TimedOut is what a member knew of a call when the client's request
// timeout for it ran out there. Times are the world's (ns).
type TimedOut struct {
	Call Call
	// Unpublished: the member held it because it has not published
	// itself yet (it serves no client before).
	Unpublished bool
	Down        bool // the member is down
	// HeldNoLeader: the member held it because it knows no leader (Held).
	HeldNoLeader bool
	// Start is when the call began at the member (its last attempt's
	// arrival there).
	Start int64
	// LeadElected is when the member last became leader (etcd's
	// leadElectedTime); 0 if it never did.
	LeadElected     int64
	ElectionTimeout int64
	// Self and Lead are the member's raft ID and its leader's (0: none).
	Self, Lead uint64
	// Members are the raft IDs of the members it has applied.
	Members []uint64
	// Peer is the member's transport's view of a peer by raft ID: whether
	// its stream is up, and since when.
	Peer func(id uint64) (up bool, since int64)
}

// TimeoutErr returns the error etcd answers the call t describes.
//
//   - A member that has not yet published itself serves no client: the
//     call waits for the deadline ("context deadline exceeded").
//   - A read (a get, a transaction that writes nothing, the member list)
//     waited for its read index: "request timed out" (requestCurrentIndex).
//   - A proposal still held because its member never learned of a leader
//     was blocked in raft's Propose, which returns the context's own error:
//     "context deadline exceeded" (gRPC DeadlineExceeded). A promotion
//     waiting for a leader to forward to fails with "no leader"
//     (waitLeader).
//   - A promotion raft took gets PromoteMember's own timeout, whoever
//     proposed it; any other proposal etcd's guess (proposeTimeoutErr).
func TimeoutErr(t TimedOut) string {
	switch {
	case t.Unpublished:
		return ErrDeadline
	case !isProposal(t.Call) || t.Down:
		return ErrTimeout
	case t.HeldNoLeader && t.Call.Kind == CallPromote:
		return ErrNoLeader
	case t.HeldNoLeader:
		return ErrDeadline
	case t.Call.Kind == CallPromote:
		return ErrTimeout
	}
	return proposeTimeoutErr(t)
}

// isProposal reports whether c goes through raft: a write (a transaction
// that writes), a cluster change or alarm call, a promotion.
func isProposal(c Call) bool {
	switch c.Kind {
	case CallWrite, CallCluster, CallPromote:
		return true
	case CallTxn:
		return !mvcc.IsReadOnly(c.Req.Txn)
	}
	return false
}

// proposeTimeoutErr is etcd's parseProposeCtxErr: if the proposal began
// within two election timeouts before its member became leader, the
// previous leader probably failed; if its member leads but has not been
// connected to a quorum of the members since the proposal began, or
// follows a leader it has not been connected to since then, the
// connection was probably lost.
func proposeTimeoutErr(t TimedOut) string {
	if t.LeadElected != 0 && t.Start > t.LeadElected-2*t.ElectionTimeout && t.Start < t.LeadElected {
		return ErrTimeoutLeaderFail
	}
	switch t.Lead {
	case 0:
	case t.Self:
		if !t.connectedQuorum() {
			return ErrTimeoutConnLost
		}
	default:
		if !t.connected(t.Lead) {
			return ErrTimeoutConnLost
		}
	}
	return ErrTimeout
}

// connected reports whether the member's stream to peer has been up since
// before the call began.
func (t TimedOut) connected(peer uint64) bool {
	up, since := t.Peer(peer)
	return up && since < t.Start
}

// connectedQuorum reports whether the member, counting itself, has been
// connected to a quorum of its members since the call began.
func (t TimedOut) connectedQuorum() bool {
	n := 0
	for _, id := range t.Members {
		if id == t.Self || t.connected(id) {
			n++
		}
	}
	return n >= len(t.Members)/2+1
}
