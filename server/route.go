package server

import (
	"slices"

	"github.com/raftsim/raftsim/mvcc"
)

// Serving a client call at the member that received it, as etcd's gRPC
// layer (api/v3rpc and its interceptors) and EtcdServer's entry points
// (v3_server.go, server.go) do: first whether it is served at all yet
// (Arrive), then the refusals (Admit), then the way
// the call goes (Route): a write to raft, a read locally or by read index,
// a lease call or a promotion to the leader, a cluster change to raft.
// Writes and calls for the leader wait while the member knows no leader
// (Held). The member carries out the way: it owns raft, its clock and the
// network to the leader.

// CallKind is a client call's kind, as far as it decides the call's way.
type CallKind uint8

// The kinds of call.
const (
	CallWrite      CallKind = iota + 1 // a put, delete, compaction, lease grant or revoke: through raft
	CallTxn                            // a transaction: a write, or a read when it writes nothing
	CallRange                          // a get
	CallMemberList                     // the member list: a read
	CallWatch                          // a watch
	CallLease                          // a lease keep-alive or timetolive: the leader's lessor answers
	CallLeaseList                      // the lease list: the member's own lessor answers
	CallPromote                        // a learner's promotion: only the leader can check it
	CallCluster                        // a member add, remove or update, an alarm list or disarm: through raft
)

// Call is a client call that has reached a member.
type Call struct {
	Kind CallKind
	Req  *Request
	// RequireLeader: a watch with clientv3's WithRequireLeader.
	RequireLeader bool
}

// Role is what the member knows of itself that decides a call's way.
type Role struct {
	Learner     bool // a learner in the configuration it has applied
	Leader      bool // it leads
	LeaderKnown bool // it knows a leader
	// StaleReads serves every read locally, linearizable ones too
	// (package sim's BugStaleLocalRead).
	StaleReads bool
}

// Arrival is what becomes of a call as it reaches a member.
type Arrival uint8

// The arrivals.
const (
	WaitPublished  Arrival = iota + 1 // hold it until the member has published itself, then let it arrive again
	RefuseTooLarge                    // refuse it with ErrTooLarge
	Serve                             // serve it: the quota check, Admit, then Route
)

// Arrive returns what becomes of c as it reaches a member: etcd serves
// clients only once it has published itself (its gRPC server waits for
// ReadyNotify), and will not propose a write over --max-request-bytes
// (TooLarge, with nextID, the request ID the member draws next; only a
// write is measured, since the entry would hold nothing of a read). NB: this
// comes before the quota check, so that a write too large to propose
// raises no NOSPACE alarm.
func Arrive(c Call, published bool, nextID uint64) Arrival {
	switch {
	case !published:
		return WaitPublished
	case (c.Kind == CallWrite || c.Kind == CallTxn) && TooLarge(c.Req, nextID):
		return RefuseTooLarge
	}
	return Serve
}

// ErrNotForLearner is etcd's answer to a call a learner does not serve.
const ErrNotForLearner = "etcdserver: rpc not supported for learner"

// Admit returns the error with which the member refuses c at once, or "":
// the gRPC layer's checks of the request (Validate), a learner's refusal
// of everything but a serializable get (and Status), and a watch that
// requires a leader at a member that knows none (etcd's interceptor).
func Admit(c Call, r Role) string {
	if why := Validate(c.Req); why != "" {
		return why
	}
	if r.Learner && !(c.Kind == CallRange && c.Req.Range.Serializable) {
		return ErrNotForLearner
	}
	if c.Kind == CallWatch && c.RequireLeader && !r.LeaderKnown {
		return ErrNoLeader
	}
	return ""
}

// Way is the way an admitted call goes at the member.
type Way uint8

// The ways.
const (
	Hold           Way = iota + 1 // wait until the member knows a leader, then serve it again
	Propose                       // propose the write through raft; answer once it is applied
	ProposeCluster                // propose the cluster change or alarm call through raft
	ReadLocal                     // answer from the member's state at once
	ReadIndex                     // answer once the member has applied up to a read index
	OpenWatch                     // open a watch stream
	AtLeader                      // the member leads: it answers (its lessor, or its promotion check)
	ToLeader                      // forward it to the leader, which answers
	ListLeases                    // answer from the member's own lessor
)

// Route returns the way an admitted call c goes at a member in role r.
func Route(c Call, r Role) Way {
	switch c.Kind {
	case CallTxn:
		if mvcc.IsReadOnly(c.Req.Txn) {
			return read(c, r) // etcd serves a transaction that writes nothing like a read
		}
		return whenLeaderKnown(r, Propose)
	case CallWrite:
		return whenLeaderKnown(r, Propose)
	case CallRange, CallMemberList:
		return read(c, r)
	case CallWatch:
		return OpenWatch
	case CallLease, CallPromote:
		if r.Leader {
			return AtLeader
		}
		return whenLeaderKnown(r, ToLeader)
	case CallLeaseList:
		return ListLeases
	}
	return whenLeaderKnown(r, ProposeCluster)
}

// read is the way of a read: a serializable one is answered locally, a
// linearizable one at its read index.
func read(c Call, r Role) Way {
	if c.Req.Serializable() || r.StaleReads {
		return ReadLocal
	}
	return ReadIndex
}

// whenLeaderKnown is way once the member knows a leader; until then the
// call is held: etcd holds a proposal until a leader is known (or the
// client gives up), where raft would reject it at once, and a call for the
// leader waits for one (waitLeader).
func whenLeaderKnown(r Role, way Way) Way {
	if !r.LeaderKnown {
		return Hold
	}
	return way
}

// Held are the calls a member holds, in the order they came: until it
// knows a leader (Hold), or, before it has published itself, until it
// serves clients at all.
type Held[T comparable] struct {
	held []T
}

// Hold holds t.
func (h *Held[T]) Hold(t T) { h.held = append(h.held, t) }

// Holds reports whether t is held.
func (h *Held[T]) Holds(t T) bool { return slices.Contains(h.held, t) }

// Len is how many calls are held.
func (h *Held[T]) Len() int { return len(h.held) }

// Release returns the calls held, which are held no more: the member
// serves them again (or, at a crash, fails them).
func (h *Held[T]) Release() []T {
	t := h.held
	h.held = nil
	return t
}
