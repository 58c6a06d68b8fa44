package sim

import (
	"strconv"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/netmodel"
)

// EventKind says what an Event records.
type EventKind uint8

// The kinds of history event.
const (
	EvSend      EventKind = iota // a member sent a message (Msg.ArriveAt: when it will arrive or vanish)
	EvDeliver                    // a message arrived and was stepped into raft
	EvDrop                       // a message did not arrive (Reason)
	EvRole                       // a member's role, term, vote or leader changed
	EvPersist                    // entries became durable (Index: last index, N: how many)
	EvCommit                     // a member's commit index advanced (Index)
	EvApply                      // a member applied entries (Index: applied index, N: how many)
	EvSnapshot                   // a member took or installed a snapshot (Index, Term, Text)
	EvConf                       // a member applied a configuration change (Text: the new config)
	EvRequest                    // a client sent a request (Op)
	EvReply                      // a client got an answer, gave up, or failed over (Op, Text)
	EvWatch                      // a watch delivered an event to its client
	EvFault                      // a fault or an operator action (Text)
	EvCaption                    // a caption from a scenario (Text)
	EvViolation                  // a safety invariant broke (Text)
)

var eventKindNames = [...]string{"send", "deliver", "drop", "role", "persist", "commit", "apply", "snapshot",
	"conf", "request", "reply", "watch", "fault", "caption", "violation"}

func (k EventKind) String() string {
	if int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return "event(?)"
}

// Event is one thing that happened. Node is the member it happened at (for
// messages: the sender of a send and a drop, the receiver of a delivery);
// Peer is the other end of a message, or the vote of a role change.
type Event struct {
	At     Time
	Kind   EventKind
	Node   uint64
	Peer   uint64
	Msg    MsgSummary
	Reason netmodel.DropReason
	Role   raft.StateType
	Term   uint64
	Lead   uint64
	Index  uint64
	N      int
	Op     uint64 // client operation ID (see World.Ops)
	Text   string
}

// MsgSummary is what the history keeps of a raft message.
type MsgSummary struct {
	ID        uint64 // unique per send; a duplicate delivery shares its ID
	Type      pb.MessageType
	Term      uint64
	LogTerm   uint64
	Index     uint64
	Commit    uint64
	Entries   int
	Reject    bool
	Forwarded bool // a MsgProp sent by a non-leader: a forwarded client write
	ArriveAt  Time // sends: when it arrives, or vanishes if lost
}

func summarize(id uint64, m *pb.Message, arrive Time) MsgSummary {
	s := MsgSummary{
		ID: id, Type: m.GetType(), Term: m.GetTerm(), LogTerm: m.GetLogTerm(), Index: m.GetIndex(),
		Commit: m.GetCommit(), Entries: len(m.GetEntries()), Reject: m.GetReject(), ArriveAt: arrive,
	}
	if md := m.GetSnapshot().GetMetadata(); s.Type == pb.MsgSnap && md != nil {
		// NB: a MsgSnap leaves Index and LogTerm at 0; what it carries is
		// in the snapshot's metadata.
		s.LogTerm, s.Index = md.GetTerm(), md.GetIndex()
	}
	return s
}

func (w *World) record(e Event) {
	e.At = w.now
	w.history.add(e)
}

// historyChunk is the number of events stored per chunk. The history is
// chunked so that it grows without ever copying what it holds (a long run
// keeps millions of events), and each event is stored packed and free of
// pointers, so that the garbage collector never scans it.
const historyChunk = 1 << 12

type history struct {
	chunks [][]rec
	texts  []string // rec.text indexes this; 0 is ""
	n      int
}

// rec is an Event packed into 56 bytes: the message fields and the other
// kinds' fields share the same words. NB: terms, indexes and counts are
// kept in 32 bits (16 for node IDs and entry counts, which saturate), and a
// message's arrival time as microseconds after its send, which is what the
// network draws.
type rec struct {
	at         Time
	id         uint64 // msg: its ID; else the op ID
	a, b, c, d uint32 // msg: term, logterm, index, commit; else term, lead, index, N
	arrive     uint32 // msg: arrival, in µs after at
	text       uint32
	node, peer uint16
	entries    uint16
	kind       EventKind
	typ        uint8 // pb.MessageType
	reason     uint8
	role       uint8
	flags      uint8
}

const (
	recReject uint8 = 1 << iota
	recForwarded
)

func sat16(v int) uint16 { return uint16(min(v, 1<<16-1)) }

func (h *history) add(e Event) {
	if len(h.chunks) == 0 || len(h.chunks[len(h.chunks)-1]) == historyChunk {
		h.chunks = append(h.chunks, make([]rec, 0, historyChunk))
	}
	r := rec{at: e.At, kind: e.Kind, node: uint16(e.Node), peer: uint16(e.Peer), reason: uint8(e.Reason)}
	switch e.Kind {
	case EvSend, EvDeliver, EvDrop:
		m := e.Msg
		r.a, r.b, r.c, r.d, r.id = uint32(m.Term), uint32(m.LogTerm), uint32(m.Index), uint32(m.Commit), m.ID
		r.arrive = uint32(max(m.ArriveAt-e.At, 0) / 1000)
		r.typ, r.entries = uint8(m.Type), sat16(m.Entries)
		if m.Reject {
			r.flags |= recReject
		}
		if m.Forwarded {
			r.flags |= recForwarded
		}
	default:
		r.a, r.b, r.c, r.d, r.id, r.role = uint32(e.Term), uint32(e.Lead), uint32(e.Index), uint32(e.N), e.Op, uint8(e.Role)
	}
	if e.Text != "" {
		if len(h.texts) == 0 {
			h.texts = append(h.texts, "")
		}
		r.text = uint32(len(h.texts))
		h.texts = append(h.texts, e.Text)
	}
	last := &h.chunks[len(h.chunks)-1]
	*last = append(*last, r)
	h.n++
}

// recordMsg records a send, delivery or drop straight into the packed
// history: it is the hottest path of the simulation.
func (w *World) recordMsg(kind EventKind, node, peer, id uint64, m *pb.Message, arrive Time, why netmodel.DropReason, forwarded bool) {
	h := &w.history
	if len(h.chunks) == 0 || len(h.chunks[len(h.chunks)-1]) == historyChunk {
		h.chunks = append(h.chunks, make([]rec, 0, historyChunk))
	}
	r := rec{at: w.now, kind: kind, node: uint16(node), peer: uint16(peer), reason: uint8(why),
		a: uint32(m.GetTerm()), b: uint32(m.GetLogTerm()), c: uint32(m.GetIndex()), d: uint32(m.GetCommit()),
		arrive: uint32(max(arrive-w.now, 0) / 1000), id: id,
		typ: uint8(m.GetType()), entries: sat16(len(m.GetEntries()))}
	if m.GetReject() {
		r.flags |= recReject
	}
	if forwarded {
		r.flags |= recForwarded
	}
	if r.typ == uint8(pb.MsgSnap) {
		// NB: as in summarize, a MsgSnap's index and term are its snapshot's.
		md := m.GetSnapshot().GetMetadata()
		r.b, r.c = uint32(md.GetTerm()), uint32(md.GetIndex())
	}
	last := &h.chunks[len(h.chunks)-1]
	*last = append(*last, r)
	h.n++
}

func (h *history) at(i int) Event {
	r := &h.chunks[i/historyChunk][i%historyChunk]
	e := Event{At: r.at, Kind: r.kind, Node: uint64(r.node), Peer: uint64(r.peer), Reason: netmodel.DropReason(r.reason)}
	switch r.kind {
	case EvSend, EvDeliver, EvDrop:
		e.Msg = MsgSummary{ID: r.id, Type: pb.MessageType(r.typ), Term: uint64(r.a), LogTerm: uint64(r.b),
			Index: uint64(r.c), Commit: uint64(r.d), Entries: int(r.entries), Reject: r.flags&recReject != 0,
			Forwarded: r.flags&recForwarded != 0}
		if r.kind == EvSend {
			e.Msg.ArriveAt = r.at + Time(r.arrive)*1000
		}
	default:
		e.Term, e.Lead, e.Index, e.N, e.Op, e.Role = uint64(r.a), uint64(r.b), uint64(r.c), int(r.d), r.id, raft.StateType(r.role)
	}
	if r.text != 0 {
		e.Text = h.texts[r.text]
	}
	return e
}

// HistoryLen returns the number of events so far.
func (w *World) HistoryLen() int { return w.history.n }

// EventAt returns the i-th event (0-based).
func (w *World) EventAt(i int) Event {
	return w.history.at(i)
}

// EventsSince returns a copy of the events from the i-th on.
func (w *World) EventsSince(i int) []Event {
	out := make([]Event, 0, max(w.history.n-i, 0))
	for ; i < w.history.n; i++ {
		out = append(out, w.EventAt(i))
	}
	return out
}

// History returns a copy of every event so far, in the order they happened.
// For long runs prefer HistoryLen and EventAt, which do not copy.
func (w *World) History() []Event { return w.EventsSince(0) }

// Caption records a caption (say, pause or chapter) in the history.
func (w *World) Caption(kind, text string) {
	w.record(Event{Kind: EvCaption, Text: kind + ": " + text})
}

func describeOp(op *Op) string {
	s := op.Kind.String() + " " + strconv.Quote(op.Key)
	switch op.Kind {
	case OpPut:
		s += " = " + strconv.Quote(op.Value)
	case OpGet:
		if op.Serializable {
			s += " (serializable)"
		} else {
			s += " (linearizable)"
		}
	}
	if op.Prefix {
		s += " --prefix"
	}
	return s
}

func describeResult(op *Op) string {
	if op.Status != OpOK {
		return op.Status.String() + ": " + op.Err
	}
	switch op.Kind {
	case OpGet:
		s := "ok"
		switch {
		case op.Prefix:
			s += ": " + strconv.Itoa(len(op.KVs)) + " keys"
		case op.Found:
			s += ": " + strconv.Quote(op.Result)
		default:
			s += ": not found"
		}
		s += " at revision " + strconv.FormatInt(op.Revision, 10)
		if op.Stale {
			s += " (STALE: " + op.StaleNote + ")"
		}
		return s
	case OpWatch:
		return "ok: watching"
	case OpDelete:
		return "ok: deleted " + strconv.Itoa(op.Deleted) + " at revision " + strconv.FormatInt(op.Revision, 10)
	}
	return "ok at revision " + strconv.FormatInt(op.Revision, 10)
}
