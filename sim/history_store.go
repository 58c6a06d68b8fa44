package sim

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/netmodel"
)

// The history is the simulation's largest data structure and its hottest
// write path: an idle five-member cluster records a heartbeat round every
// tick (four sends and four deliveries each way), a write some sixty
// events, and a long run keeps millions. So it is stored packed, free of
// pointers (the garbage collector never scans it) and in chunks (it grows
// without copying):
//
//   - events: a byte stream with a record per event, in order. A record is
//     a header byte (the kind, a drop's reason, and whether the event came
//     at the same instant as the one before), the nanoseconds since the
//     event before unless it is the same instant, and then for a message
//     its ID, or for any other event its member and those of its fields
//     that are set.
//   - msgs: 12 bytes per message sent, by ID, shared by its send, its
//     deliveries (a duplicate has the same ID) and its drop.
//   - bodies: what a message says (type, term, index...). A message that
//     says what the last message of its type said (the four heartbeats of a
//     round) shares its body.
//
// An idle tick costs about 210 bytes of history this way, against 896 as
// plain 56-byte records. Fresh memory is costly (the kernel faults it in
// and zeroes it), and this was the largest cost of an idle simulation.
//
// NB: terms, indexes, counts and operation IDs are kept in 32 bits (16 for
// node IDs and entry counts, which saturate), and a message's arrival time
// as microseconds after its send, which is what the network draws.
type history struct {
	whyOn      bool                // capture raft's log lines (why.go)
	whyPending []whyLine           // lines not yet attached to an event
	whyInput   map[uint64]uint64   // member -> the count of inputs it has begun to handle
	whyLast    map[uint64]whyEvent // member -> its last event
	whyMsg     map[uint64]int32    // member -> the type of the message it is stepping, or noMessage
	whys       map[int]string      // event index -> its citations, one a line
	events     recordLog
	n          int          // events recorded
	last       Time         // the time of the last event
	marks      []streamMark // where each block of blockLen events kept starts
	msgs       chunked[msgRec]
	bodies     chunked[msgBody]
	texts      []string     // an event's text is an index into this (less textBase); 0 is ""
	lastBody   [32]lastBody // by message type
	started    int          // the header and time length of the record begun last

	// A headless run gives back what it has written out (see forget):
	// the events before first (a multiple of blockLen), and the messages,
	// bodies and texts only they refer to.
	first     int
	blockMsg  []uint32 // by block kept: the lowest message index its events refer to
	blockOp   []uint64 // by block kept: the lowest operation ID its events refer to
	blockText []int    // by block kept: the index of the first text its events may add
	textBase  int      // the index of texts[0]

	// The block last decoded, so that reading events in order (forwards or
	// backwards) decodes each event once.
	block     int
	decoded   []decodedEvent
	decodePos streamMark
}

type decodedEvent struct {
	Event
	textFromOp bool
}

// textFromOp, as an event's text, says that its text is what its operation
// says (describeOp, describeResult), worked out when it is read. A request
// or an answer says nothing later can change, and working the words out
// for every write was a tenth of its cost.
const textFromOp = math.MaxUint32

// blockLen is how many events a block holds: reading an event decodes at
// most the events before it in its block.
const blockLen = 256

// streamMark is a position in the event stream, with the time of the event
// before it.
type streamMark struct {
	pos  logPos
	last Time
}

type msgRec struct {
	body     uint32 // index in bodies
	arrive   uint32 // µs after the send
	from, to uint16
}

type msgBody struct {
	term, logTerm, index, commit uint32
	entries                      uint16
	typ                          uint8 // pb.MessageType
	flags                        uint8
}

const (
	msgReject uint8 = 1 << iota
	msgForwarded
)

// lastBody is the body of the last message of a type, and its index.
type lastBody struct {
	body  msgBody
	index uint32
	ok    bool
}

// The header byte of an event record.
const (
	headerKind     = 0x0f // EventKind
	headerReason   = 0x70 // netmodel.DropReason, shifted by 4
	headerSameTime = 0x80 // no time follows: the instant of the event before

	longDelay = math.MaxUint32 // a delay of this or more: the absolute time follows
)

// Every kind and every drop reason fits the header: these would not
// compile if one did not.
var _ [headerKind + 1 - len(eventKindNames)]struct{}

const _ = headerReason>>4 - netmodel.DropUnknown // NB: the last DropReason

// The fields of an event that is not a message's, in the order they follow
// the member in its record, each there only if its bit is set in the byte
// that follows the member.
const (
	factTerm  = 1 << iota // uint32
	factLead              // uint16
	factIndex             // uint32
	factN                 // uint32
	factOp                // uint32
	factText              // uint32, into texts
	factPeer              // uint16
	factRole              // uint8
)

// maxRecord is the size of the longest record: a header, a long delay and
// the time, a member, the fields byte and every field.
const maxRecord = 1 + 4 + 8 + 2 + 1 + 4 + 2 + 4 + 4 + 4 + 4 + 2 + 1

func sat16[T int | uint64](v T) uint16 { return uint16(min(v, math.MaxUint16)) }

func isMsgKind(k EventKind) bool { return k == EvSend || k == EvDeliver || k == EvDrop }

func (h *history) len() int { return h.n }

// begin writes the header and time of an event of kind at now at the end
// of the log, and returns the space after them (at least maxRecord-13
// bytes) for the rest of the record. end(n) says how much of it was used.
// node is the member the event is of, for the citations of why.go.
func (h *history) begin(kind EventKind, reason netmodel.DropReason, now Time, node uint64) []byte {
	l := &h.events
	if len(l.last)-l.used < maxRecord {
		l.grow()
	}
	if h.n%blockLen == 0 {
		h.marks = append(h.marks, streamMark{pos: logPos{len(l.chunks) - 1, l.used}, last: h.last})
		h.blockMsg = append(h.blockMsg, math.MaxUint32)
		h.blockOp = append(h.blockOp, math.MaxUint64)
		h.blockText = append(h.blockText, h.textBase+len(h.texts))
	}
	b := l.last[l.used:]
	b[0] = byte(kind) | byte(reason)<<4
	h.started = 1
	switch d := now - h.last; {
	case d == 0 && h.n > 0:
		b[0] |= headerSameTime
	case d > 0 && d < longDelay:
		binary.LittleEndian.PutUint32(b[1:], uint32(d))
		h.started += 4
	default:
		binary.LittleEndian.PutUint32(b[1:], longDelay)
		binary.LittleEndian.PutUint64(b[5:], uint64(now))
		h.started += 12
	}
	if h.whyOn {
		h.takeWhy(h.n, node)
	}
	h.n++
	h.last = now
	return b[h.started:]
}

// end ends the record begun last, which used n bytes after its time.
func (h *history) end(n int) { h.events.used += h.started + n }

// addFact records an event that is not a message's. With textFromOp its
// text is left to be worked out from its operation.
func (h *history) addFact(e Event, fromOp bool) {
	// NB: begin first: it notes where a block's texts start, and this
	// event's text is its block's.
	b := h.begin(e.Kind, 0, e.At, e.Node)
	var text uint64
	switch {
	case fromOp:
		text = textFromOp
	case e.Text != "":
		if h.textBase+len(h.texts) == 0 {
			h.texts = append(h.texts, "")
		}
		text = uint64(h.textBase + len(h.texts))
		h.texts = append(h.texts, e.Text)
	}
	if o := &h.blockOp[len(h.blockOp)-1]; e.Op != 0 && e.Op < *o {
		*o = e.Op
	}
	binary.LittleEndian.PutUint16(b, sat16(e.Node))
	w := fieldWriter{b: b, n: 3}
	w.put(factTerm, e.Term, 4)
	w.put(factLead, e.Lead, 2)
	w.put(factIndex, e.Index, 4)
	w.put(factN, uint64(e.N), 4)
	w.put(factOp, e.Op, 4)
	w.put(factText, text, 4)
	w.put(factPeer, e.Peer, 2)
	w.put(factRole, uint64(e.Role), 1)
	b[2] = w.set
	h.end(w.n)
}

// fieldWriter writes the fields of a fact that are set.
type fieldWriter struct {
	b   []byte
	n   int
	set byte
}

func (w *fieldWriter) put(bit byte, v uint64, width int) {
	if v == 0 {
		return
	}
	w.set |= bit
	switch width {
	case 4:
		binary.LittleEndian.PutUint32(w.b[w.n:], uint32(v))
	case 2:
		binary.LittleEndian.PutUint16(w.b[w.n:], sat16(v))
	default:
		w.b[w.n] = byte(v)
	}
	w.n += width
}

// fieldReader reads what a fieldWriter wrote.
type fieldReader struct {
	b   []byte
	set byte
}

func (r *fieldReader) get(bit byte, width int) uint64 {
	if r.set&bit == 0 {
		return 0
	}
	var v uint64
	switch width {
	case 4:
		v = uint64(binary.LittleEndian.Uint32(r.b))
	case 2:
		v = uint64(binary.LittleEndian.Uint16(r.b))
	default:
		v = uint64(r.b[0])
	}
	r.b = r.b[width:]
	return v
}

// addMsg records an event of the message with ID id.
func (h *history) addMsg(kind EventKind, why netmodel.DropReason, now Time, id uint64) {
	var node uint64 // whose event it is, as the event's Node says: the receiver's delivery, else the sender's
	if h.whyOn {
		r := h.msgs.at(int(id - 1))
		node = uint64(r.from)
		if kind == EvDeliver {
			node = uint64(r.to)
		}
	}
	binary.LittleEndian.PutUint32(h.begin(kind, why, now, node), uint32(id-1))
	h.end(4)
	if b := &h.blockMsg[len(h.blockMsg)-1]; uint32(id-1) < *b {
		*b = uint32(id - 1)
	}
}

// set makes b what m says.
func (b *msgBody) set(m *pb.Message, forwarded bool) {
	b.term, b.logTerm, b.index, b.commit = uint32(m.GetTerm()), uint32(m.GetLogTerm()), uint32(m.GetIndex()), uint32(m.GetCommit())
	b.typ, b.entries = uint8(m.GetType()), sat16(len(m.GetEntries()))
	if m.GetReject() {
		b.flags |= msgReject
	}
	if forwarded {
		b.flags |= msgForwarded
	}
	if b.typ == uint8(pb.MsgAppResp) {
		// NB: a MsgAppResp carries no commit index; the slot keeps its
		// reject hint.
		b.commit = uint32(m.GetRejectHint())
	}
	if b.typ == uint8(pb.MsgSnap) {
		// NB: as in summarize, a MsgSnap's index and term are its snapshot's.
		md := m.GetSnapshot().GetMetadata()
		b.logTerm, b.index = uint32(md.GetTerm()), uint32(md.GetIndex())
	}
}

// equal compares field by field. NB: b == *o would read the fields, which
// were just written one at a time, 8 bytes at a time, and stall.
func (b *msgBody) equal(o *msgBody) bool {
	return b.term == o.term && b.logTerm == o.logTerm && b.index == o.index && b.commit == o.commit &&
		b.entries == o.entries && b.typ == o.typ && b.flags == o.flags
}

// at returns the i-th event, and whether its text is to be worked out from
// its operation.
func (h *history) at(i int) (Event, bool) {
	if i < h.first || i >= h.n {
		panic(fmt.Sprintf("sim: event %d of %d (the first kept is %d)", i, h.n, h.first))
	}
	if b := i / blockLen; b != h.block || h.decoded == nil {
		h.block, h.decoded, h.decodePos = b, h.decoded[:0], h.marks[b-h.first/blockLen]
	}
	for len(h.decoded) <= i%blockLen {
		h.decoded = append(h.decoded, h.decode(&h.decodePos))
	}
	d := h.decoded[i%blockLen]
	return d.Event, d.textFromOp
}

// decode reads the event record at p and moves p past it.
func (h *history) decode(p *streamMark) decodedEvent {
	b, pos := h.events.from(p.pos)
	start := len(b)
	header := b[0]
	e := Event{Kind: EventKind(header & headerKind), At: p.last}
	fromOp := false
	b = b[1:]
	if header&headerSameTime == 0 {
		if d := binary.LittleEndian.Uint32(b); d != longDelay {
			e.At += Time(d)
			b = b[4:]
		} else {
			e.At = Time(binary.LittleEndian.Uint64(b[4:]))
			b = b[12:]
		}
	}
	if isMsgKind(e.Kind) {
		ref := binary.LittleEndian.Uint32(b)
		b = b[4:]
		m := h.msgs.at(int(ref))
		body := h.bodies.at(int(m.body))
		e.Node, e.Peer, e.Reason = uint64(m.from), uint64(m.to), netmodel.DropReason(header&headerReason>>4)
		if e.Kind == EvDeliver {
			e.Node, e.Peer = uint64(m.to), uint64(m.from)
		}
		e.Msg = MsgSummary{ID: uint64(ref) + 1, Type: pb.MessageType(body.typ), Term: uint64(body.term),
			LogTerm: uint64(body.logTerm), Index: uint64(body.index), Commit: uint64(body.commit),
			Entries: int(body.entries), Reject: body.flags&msgReject != 0}
		if e.Msg.Type == pb.MsgAppResp {
			e.Msg.Commit, e.Msg.RejectHint = 0, uint64(body.commit)
		}
		if e.Kind == EvSend {
			// NB: only the send says the message is a forwarded proposal.
			e.Msg.Forwarded = body.flags&msgForwarded != 0
			e.Msg.ArriveAt = e.At + Time(m.arrive)*1000
		}
	} else {
		e.Node = uint64(binary.LittleEndian.Uint16(b))
		r := fieldReader{b: b[3:], set: b[2]}
		e.Term = r.get(factTerm, 4)
		e.Lead = r.get(factLead, 2)
		e.Index = r.get(factIndex, 4)
		e.N = int(r.get(factN, 4))
		e.Op = r.get(factOp, 4)
		switch t := r.get(factText, 4); t {
		case 0:
		case textFromOp:
			fromOp = true
		default:
			e.Text = h.texts[int(t)-h.textBase]
		}
		e.Peer = r.get(factPeer, 2)
		e.Role = raft.StateType(r.get(factRole, 1))
		b = r.b
	}
	p.pos, p.last = logPos{pos.chunk, pos.off + start - len(b)}, e.At
	return decodedEvent{e, fromOp}
}

// forget gives back the events before before (rounded down to a block, and
// never the block being written), and the messages, message bodies and
// texts that no event kept refers to. inFlight is the lowest index of a
// message still on its way (math.MaxUint32 if none): its arrival is yet to
// be recorded. Reading a forgotten event panics. It returns the lowest
// operation ID an event kept refers to (math.MaxUint64 if none).
func (h *history) forget(before int, inFlight uint32) uint64 {
	if h.n == 0 {
		return math.MaxUint64
	}
	fb := h.first / blockLen
	b := min(before/blockLen, (h.n-1)/blockLen) // a block that has begun
	if b <= fb {
		return slices.Min(h.blockOp)
	}
	k := b - fb // the first block kept, in the slices by block
	h.events.dropBefore(h.marks[k].pos.chunk)
	minMsg := inFlight
	for _, m := range h.blockMsg[k:] {
		minMsg = min(minMsg, m)
	}
	keepText := h.blockText[k]
	h.marks = slices.Clone(h.marks[k:])
	h.blockMsg = slices.Clone(h.blockMsg[k:])
	h.blockOp = slices.Clone(h.blockOp[k:])
	h.blockText = slices.Clone(h.blockText[k:])
	h.first = b * blockLen
	h.decoded = nil

	if drop := keepText - h.textBase; drop > 0 {
		h.texts = slices.Clone(h.texts[drop:])
		h.textBase = keepText
	}
	if minMsg == math.MaxUint32 {
		minMsg = uint32(h.msgs.n) // every message sent has arrived, and no event kept names one
	}
	// A message shares the body of an earlier one with the same words:
	// find the lowest body a message kept uses, and make the next messages
	// use new bodies, so that older bodies can go too.
	h.msgs.dropBefore(int(minMsg))
	if h.msgs.n-int(minMsg) < 1<<20 { // else a message long in flight holds much back: keep the bodies too
		minBody := uint32(h.bodies.n)
		for i := int(minMsg); i < h.msgs.n; i++ {
			minBody = min(minBody, h.msgs.at(i).body)
		}
		h.bodies.dropBefore(int(minBody))
		h.lastBody = [32]lastBody{}
	}
	return slices.Min(h.blockOp)
}
