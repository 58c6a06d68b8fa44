package sim

import (
	"encoding/binary"
	"slices"

	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/server"
)

// What carries each client request through raft, as the request IDs say:
// a write is proposed in an InternalRaftRequest with a request ID of its
// own (server.Proposal), a forwarded MsgProp carries that entry to the
// leader, and the leader appends it to its log; a linearizable read's
// read-index request (MsgReadIndex) carries the read's ID as its context
// (server.ReadCtx). The window draws a request's path from these, never
// from which member happened to send a proposal while the request waited
// there.

// carriedMsg is one operation a message carries.
type carriedMsg struct {
	msg uint64 // the message's ID (MsgSummary.ID), ascending
	op  uint64
}

// carry is the world's record of it.
type carry struct {
	// proposed: by request ID, the operation a member proposed with it,
	// until a leader appends its entry. (A proposal raft drops on its
	// way stays here: a few words each.)
	proposed map[uint64]uint64
	// msgs: the operations each proposal or read-index message sent
	// carries, in the order of the messages' IDs.
	msgs []carriedMsg
}

func (c *carry) clone() carry {
	return carry{proposed: cloneMap(c.proposed), msgs: slices.Clone(c.msgs)}
}

func cloneMap(m map[uint64]uint64) map[uint64]uint64 {
	if m == nil {
		return nil
	}
	out := make(map[uint64]uint64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// proposedAs records that member m proposed op with request ID id.
func (w *World) proposedAs(m *member, op *Op, id uint64) {
	if w.carry.proposed == nil {
		w.carry.proposed = map[uint64]uint64{}
	}
	w.carry.proposed[id] = op.ID
	op.reqID = id
}

// carriedBySend records the operations a message being sent (with ID id)
// carries: a proposal's entries by their request IDs, a read-index
// request by its context.
func (w *World) carriedBySend(id uint64, msg *pb.Message) {
	switch msg.GetType() {
	case pb.MsgProp:
		for _, e := range msg.GetEntries() {
			if e.GetType() != pb.EntryNormal {
				continue
			}
			if op, ok := w.carry.proposed[server.HeaderID(e.GetData())]; ok {
				w.carry.msgs = append(w.carry.msgs, carriedMsg{msg: id, op: op})
			}
		}
	case pb.MsgReadIndex:
		if ents := msg.GetEntries(); len(ents) == 1 && len(ents[0].GetData()) == 8 {
			op := binary.BigEndian.Uint64(ents[0].GetData())
			if op > uint64(w.opsBase) && op <= w.OpCount() {
				w.carry.msgs = append(w.carry.msgs, carriedMsg{msg: id, op: op})
			}
		}
	}
}

// Carries returns the IDs of the client operations a message (by its
// MsgSummary.ID) carries: the writes whose entries a MsgProp holds, by
// their request IDs, or the linearizable read a MsgReadIndex asks for.
// Any other message carries none.
func (w *World) Carries(msg uint64) []uint64 {
	i, _ := slices.BinarySearchFunc(w.carry.msgs, msg, func(c carriedMsg, m uint64) int {
		switch {
		case c.msg < m:
			return -1
		case c.msg > m:
			return 1
		}
		return 0
	})
	var out []uint64
	for ; i < len(w.carry.msgs) && w.carry.msgs[i].msg == msg; i++ {
		out = append(out, w.carry.msgs[i].op)
	}
	return out
}

// appendedByLeader records, for the entries a leader just wrote to its
// log in its own term, the client writes they hold (by request ID): the
// entry that is the write's place in the log.
func (m *member) appendedByLeader(ents []*pb.Entry) {
	if len(m.w.carry.proposed) == 0 {
		return
	}
	for _, e := range ents {
		if e.GetType() != pb.EntryNormal || e.GetTerm() != m.hard.GetTerm() || len(e.GetData()) == 0 {
			continue
		}
		id, ok := m.w.carry.proposed[server.HeaderID(e.GetData())]
		if !ok {
			continue
		}
		delete(m.w.carry.proposed, server.HeaderID(e.GetData()))
		if int(id)-1-m.w.opsBase < 0 {
			continue // given back by a headless run
		}
		op := m.w.opByID(id)
		if op == nil || op.Status != OpPending {
			// NB: a finished operation is shared with the world's forks
			// (Fork), so it is never changed: an entry appended after its
			// client gave up is not recorded.
			continue
		}
		op.entryMember, op.entryIndex, op.entryTerm = uint16(m.id), e.GetIndex(), e.GetTerm()
	}
}

// EntryRef is the entry that holds a client write: the leader that
// appended it, its index and its term.
type EntryRef struct {
	Member      string
	Index, Term uint64
}

// EntryOf returns the entry a leader appended for the write op, if one
// did.
func (w *World) EntryOf(op *Op) (EntryRef, bool) {
	if op.entryMember == 0 || int(op.entryMember) > len(w.members) {
		return EntryRef{}, false
	}
	return EntryRef{Member: w.members[op.entryMember-1].name, Index: op.entryIndex, Term: op.entryTerm}, true
}

// RequestID returns the request ID the member that proposed op gave it
// (etcd's InternalRaftRequest header ID); 0 if no member proposed it.
func (op *Op) RequestID() uint64 { return op.reqID }
