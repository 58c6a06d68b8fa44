package server

import (
	"encoding/binary"
	"slices"
)

// The read-index path: etcd's linearizable read loop (v3_server.go,
// linearizableReadLoop) at one member. A linearizable read waits for a
// read index (raft's ReadIndex, asked with the read's ID as its context,
// and asked again until an answer comes), then for the member to apply up
// to that index, and is then answered from the local store (KV.Read). A
// new leader fails the reads still waiting for their index ("leader
// changed"); the ones whose index is known keep waiting for their apply.
//
// The member drives it: it asks raft (ReadCtx), schedules the retries and
// answers. The read's own progress (its index, once known) lives with the
// read, because a client that sends the read again starts it over.

// LinearRead is a read on the read-index path.
type LinearRead interface {
	comparable
	// ReadID is the ID the read index request carries as its context.
	ReadID() uint64
	// ReadIndex is its read index, once known.
	ReadIndex() (index uint64, known bool)
	// SetReadIndex records its read index.
	SetReadIndex(index uint64)
	// Pending: it has not been answered (nor given up) yet.
	Pending() bool
}

// ReadCtx is the context of a read index request for the read with the
// given ID: the ID, big-endian.
func ReadCtx(id uint64) []byte { return binary.BigEndian.AppendUint64(nil, id) }

// Reads are the linearizable reads waiting at a member, in the order they
// came.
type Reads[T LinearRead] struct {
	waiting []T
}

// Add makes r wait for its read index.
func (q *Reads[T]) Add(r T) { q.waiting = append(q.waiting, r) }

// Len is how many reads wait.
func (q *Reads[T]) Len() int { return len(q.waiting) }

// All returns the reads that wait (a crash fails them).
func (q *Reads[T]) All() []T { return q.waiting }

// NeedsIndex reports whether r still waits here for its read index: the
// member asks raft again.
func (q *Reads[T]) NeedsIndex(r T) bool {
	_, known := r.ReadIndex()
	return r.Pending() && !known && slices.Contains(q.waiting, r)
}

// ReadState takes raft's answer to a read index request: the reads whose
// ID the context carries have their read index. A context that is not a
// read's is ignored.
func (q *Reads[T]) ReadState(ctx []byte, index uint64) {
	if len(ctx) != 8 {
		return
	}
	id := binary.BigEndian.Uint64(ctx)
	for _, r := range q.waiting {
		if _, known := r.ReadIndex(); r.ReadID() == id && !known {
			r.SetReadIndex(index)
		}
	}
}

// ErrLeaderChanged is what etcd answers a linearizable read whose read
// index a change of leader interrupted (a retryable error: clientv3 sends
// the read again).
const ErrLeaderChanged = "etcdserver: leader changed"

// LeaderChanged is a new leader: fail is called for each pending read
// still waiting for its read index, which stops waiting (the member
// answers it ErrLeaderChanged).
func (q *Reads[T]) LeaderChanged(fail func(T)) {
	if len(q.waiting) == 0 {
		return
	}
	kept := q.waiting[:0]
	for _, r := range q.waiting {
		if _, known := r.ReadIndex(); r.Pending() && !known {
			fail(r)
			continue
		}
		kept = append(kept, r)
	}
	q.waiting = kept
}

// Applied is the member's apply having reached index applied: answer is
// called for each pending read whose read index it has reached, which
// stops waiting; reads no longer pending are forgotten.
func (q *Reads[T]) Applied(applied uint64, answer func(T)) {
	if len(q.waiting) == 0 {
		return
	}
	kept := q.waiting[:0]
	for _, r := range q.waiting {
		index, known := r.ReadIndex()
		switch {
		case !r.Pending():
		case known && applied >= index:
			answer(r)
		default:
			kept = append(kept, r)
		}
	}
	q.waiting = kept
}
