package sim

import (
	"encoding/binary"
	"fmt"
	"path"
	"runtime"
	"slices"
	"strings"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/raftsrc"
	"github.com/raftsim/raftsim/server"
)

// Why: raft's own reasons, cited (issue 32). With the world's why switch on
// (SetWhy), every call raft makes to its Logger records the file:line of
// the call inside go.etcd.io/raft/v3, the calling function and raft's
// formatted message. The citation attaches to an event of the same member
// (the one the event's Node names: a fact's member, a send's or a drop's
// sender, a delivery's receiver) from the same handling: the handling
// of one input to the member (a message's arrival, a tick) runs to its end
// before anything else, since the simulation is single-threaded. A line
// goes to the first event of its member recorded after it in its handling
// (the role change, the rejecting response, the message it sends); a line
// logged after its handling's last event (a vote counted while the Ready
// is handled) goes to that last event; a line whose handling records no
// event of its member goes to the member's next one. Off by default:
// nothing is captured and the trace and transcript are byte-identical to a
// run without it.

// raftModule is the import path prefix of the raft library's frames.
const raftModule = "go.etcd.io/raft/v3"

// SetWhy turns the capture of raft's log lines on or off.
func (w *World) SetWhy(on bool) { w.history.whyOn = on }

// Why reports whether the capture is on.
func (w *World) Why() bool { return w.history.whyOn }

// whyNote records one of raft's log lines if the capture is on.
func (l raftLogger) whyNote(format string, v []any, sprint bool) {
	h := &l.m.w.history
	if !h.whyOn {
		return
	}
	var msg string
	if sprint {
		msg = fmt.Sprint(v...)
	} else {
		msg = fmt.Sprintf(format, v...)
	}
	h.whyPending = append(h.whyPending, whyLine{node: l.m.id, input: h.whyInput[l.m.id], text: raftCaller() + ": " + msg})
}

// raftCaller walks up the stack past the logger to the first frame inside
// raft and returns "file.go:line (*raft).Step".
func raftCaller() string {
	var pcs [16]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, raftModule+".") || strings.HasPrefix(f.Function, raftModule+"/") {
			fn := f.Function[strings.LastIndex(f.Function, "/")+1:]
			fn = fn[strings.Index(fn, ".")+1:]
			return fmt.Sprintf("%s:%d %s", raftFile(f.File), f.Line, fn)
		}
		if !more {
			return "?:0 ?"
		}
	}
}

// raftFile is file's path inside the raft module ("raft.go",
// "tracker/progress.go"); its base name when it is not in the module cache.
func raftFile(file string) string {
	if i := strings.Index(file, raftModule+"@"); i >= 0 {
		rest := file[i+len(raftModule)+1:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			return rest[j+1:]
		}
	}
	return path.Base(file)
}

// MessageWhy returns the citations of the message with ID id: on its send
// (raft's decision to send it: the citations of the sender's events in
// the handling that sent it, up to the send, since a line goes to the
// first event after it, often a role change before the message), and on
// its delivery or drop (what the receiver's raft made of it); "" for none.
func (w *World) MessageWhy(id uint64) (send, arrival string) {
	for i := w.history.len() - 1; i >= w.history.first; i-- {
		e, _ := w.history.at(i)
		if !isMsgKind(e.Kind) || e.Msg.ID != id {
			continue
		}
		if e.Kind != EvSend {
			arrival = w.history.whys[i]
			continue
		}
		var lines []string
		for j := i; j >= w.history.first; j-- {
			p, _ := w.history.at(j)
			if p.At != e.At {
				break
			}
			if p.Node == e.Node {
				if why := w.history.whys[j]; why != "" {
					lines = append([]string{why}, lines...)
				}
			}
			if p.Kind == EvDeliver && p.Node == e.Node {
				break // the input the handling began with
			}
		}
		return strings.Join(lines, "\n"), arrival
	}
	return "", arrival
}

// whyLine is one of raft's log lines, cited, waiting for an event of the
// member (node) that logged it, during its input-th handling.
type whyLine struct {
	node, input uint64
	text        string
}

// whyEvent is a member's last event: its index, and the handling it was
// recorded in.
type whyEvent struct {
	index int
	input uint64
}

// newInput notes that a member begins to handle an input: the citations
// logged from now on are of this handling. msg is the type of the message
// it steps, or noMessage (a tick, a report).
func (h *history) newInput(node uint64, msg int32) {
	if !h.whyOn {
		return
	}
	if h.whyInput == nil {
		h.whyInput, h.whyLast, h.whyMsg = map[uint64]uint64{}, map[uint64]whyEvent{}, map[uint64]int32{}
	}
	h.whyInput[node]++
	h.whyMsg[node] = msg
}

// noMessage is newInput's msg for an input that is not a message.
const noMessage = -1

// A decision raft makes without logging it, cited by the line that makes
// it: raft's source (package raftsrc) is searched for the line's code
// inside its function, so a line number is never written down by hand.
type decision struct {
	file, fn, code string
	format         string // the citation's message: the member's ID, the index, then the term
}

// The commit index advances without a log line: at a leader in
// maybeCommit, whose term check is the rule of the Raft paper's section
// 5.4.2 (only an entry of the leader's own term is committed by counting
// replicas); at a follower from the leader's commit index, in a MsgApp or
// a heartbeat, or from the snapshot it restores.
var (
	commitByQuorum = decision{"log.go", "(*raftLog).maybeCommit", "if at.term != 0 && at.index > l.committed && l.matchTerm(at) {",
		"%x commits up to index %d: a quorum of the voters holds it, and its entry is of the leader's term %d (not logged by raft; the decision is this line)"}
	commitByAppend = decision{"log.go", "(*raftLog).maybeAppend", "l.commitTo(min(committed, lastnewi))",
		"%x commits up to index %d in term %d: the leader's commit index, as far as its log is known to match the leader's (not logged by raft; the decision is this line)"}
	commitByHeartbeat = decision{"raft.go", "(*raft).handleHeartbeat", "r.raftLog.commitTo(m.GetCommit())",
		"%x commits up to index %d in term %d: the leader's commit index in its heartbeat (not logged by raft; the decision is this line)"}
	commitBySnapshot = decision{"log.go", "(*raftLog).restore", "l.committed = s.GetMetadata().GetIndex()",
		"%x commits up to index %d in term %d: the snapshot it restores holds only committed entries (not logged by raft; the decision is this line)"}
)

// Nor does raft log the entries it appends: a leader's own, in
// appendEntry (a proposal, or the empty entry of a new term), and a
// follower's from the leader, in handleAppendEntries once maybeAppend
// finds its log matching the leader's at the entry before them.
var (
	appendByLeader = decision{"raft.go", "(*raft).appendEntry", "li = r.raftLog.append(cloned...)",
		"%x appends up to index %d of term %d: the leader's own entries (a proposal, or a new term's empty entry) (not logged by raft; the decision is this line)"}
	appendByFollower = decision{"raft.go", "(*raft).handleAppendEntries", "if mlastIndex, ok := r.raftLog.maybeAppend(a, m.GetCommit()); ok {",
		"%x appends up to index %d of term %d: the leader's entries, its log matching the leader's at the entry before them (not logged by raft; the decision is this line)"}
)

// noteAppendWhy cites the decision that appended m's entries up to index
// last (of term, the last entry's), before its persist event is recorded:
// a leader's appendEntry, or a follower's acceptance of a MsgApp. Other
// appends (a boot's entries) are not cited.
func (m *member) noteAppendWhy(leader bool, last, term uint64) {
	h := &m.w.history
	if !h.whyOn {
		return
	}
	d := appendByLeader
	switch {
	case leader:
	case h.whyMsg[m.id] == int32(pb.MsgApp):
		d = appendByFollower
	default:
		return
	}
	m.noteDecision(d, last, term)
}

// noteDecision cites d for m's next event, with the index and term its
// format takes.
func (m *member) noteDecision(d decision, index, term uint64) {
	// Locate, not the source itself: the web page's build holds only the
	// index of these lines, and must cite as the others do without
	// fetching the source.
	n, ok := raftsrc.Locate(d.file, d.fn, d.code)
	if !ok {
		return // another raft: TestWhyDecisionsAreCited and raftsrc's TestDecisionsIndex say so
	}
	h := &m.w.history
	h.whyPending = append(h.whyPending, whyLine{node: m.id, input: h.whyInput[m.id],
		text: fmt.Sprintf("%s:%d %s: "+d.format, d.file, n, d.fn, m.id, index, term)})
}

// noteCommitWhy cites the decision that advanced m's commit index to c,
// before its commit event is recorded.
func (m *member) noteCommitWhy(c, term uint64) {
	h := &m.w.history
	if !h.whyOn {
		return
	}
	d := commitByQuorum
	switch {
	case m.soft.RaftState == raft.StateLeader:
	case h.whyMsg[m.id] == int32(pb.MsgApp):
		d = commitByAppend
	case h.whyMsg[m.id] == int32(pb.MsgHeartbeat):
		d = commitByHeartbeat
	case h.whyMsg[m.id] == int32(pb.MsgSnap):
		d = commitBySnapshot
	default:
		return // a restart: the commit index was on its disk
	}
	m.noteDecision(d, c, term)
}

// takeWhy hands node's pending citations to event i, node's (called as it
// is recorded), or to node's last event when the lines came after it in
// its handling. The others' lines wait, in order.
func (h *history) takeWhy(i int, node uint64) {
	last, hadLast := h.whyLast[node]
	kept := h.whyPending[:0]
	for _, l := range h.whyPending {
		switch {
		case l.node != node:
			kept = append(kept, l)
		case l.input != h.whyInput[node] && hadLast && last.input == l.input && last.index >= h.first:
			h.addWhy(last.index, l.text)
		default:
			h.addWhy(i, l.text)
		}
	}
	h.whyPending = kept
	if h.whyLast != nil {
		h.whyLast[node] = whyEvent{index: i, input: h.whyInput[node]}
	}
}

// addWhy appends a citation to event i's.
func (h *history) addWhy(i int, line string) {
	if h.whys == nil {
		h.whys = map[int]string{}
	}
	if old, ok := h.whys[i]; ok {
		line = old + "\n" + line
	}
	h.whys[i] = line
}

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
