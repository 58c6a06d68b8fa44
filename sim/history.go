package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/etcdctl"
	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/mvcc"
	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/server"
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
	Why    string // raft's log lines that led to it, one a line (why.go); only with SetWhy
}

// MsgSummary is what the history keeps of a raft message.
type MsgSummary struct {
	ID      uint64 // unique per send; a duplicate delivery shares its ID
	Type    pb.MessageType
	Term    uint64
	LogTerm uint64
	Index   uint64
	Commit  uint64
	Entries int
	Reject  bool
	// RejectHint is a rejected MsgAppResp's hint: the index the follower
	// suggests the leader try next (its LogTerm is that index's term).
	RejectHint uint64
	Forwarded  bool // a MsgProp sent by a non-leader: a forwarded client write
	ArriveAt   Time // sends: when it arrives, or vanishes if lost
}

func summarize(id uint64, m *pb.Message, arrive Time) MsgSummary {
	s := MsgSummary{
		ID: id, Type: m.GetType(), Term: m.GetTerm(), LogTerm: m.GetLogTerm(), Index: m.GetIndex(),
		Commit: m.GetCommit(), Entries: len(m.GetEntries()), Reject: m.GetReject(), ArriveAt: arrive,
	}
	if s.Type == pb.MsgAppResp {
		s.RejectHint = m.GetRejectHint()
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
	w.history.addFact(e, false)
}

// recordOp records a request or an answer whose text is what its operation
// says (describeOp, describeResult); the history works it out when read.
func (w *World) recordOp(kind EventKind, op *Op, node uint64) {
	w.history.addFact(Event{At: w.now, Kind: kind, Op: op.ID, Node: node}, true)
}

// event returns the i-th event.
func (w *World) event(i int) Event {
	e, fromOp := w.history.at(i)
	if fromOp {
		op := w.opByID(e.Op)
		if e.Kind == EvRequest {
			e.Text = describeOp(i18n.En, op)
		} else {
			e.Text = describeResult(i18n.En, op)
		}
	}
	if w.history.whys != nil {
		e.Why = w.history.whys[i]
	}
	return e
}

// HistoryLen returns the number of events so far.
func (w *World) HistoryLen() int { return w.history.len() }

// HistoryStart returns the index of the first event still kept: 0, unless
// ForgetHistory or ForgetEvents gave some back.
func (w *World) HistoryStart() int { return w.history.first }

// ForgetHistory gives back the memory of the events before index before,
// for a headless run that has written out what it needed of them. It keeps
// whole blocks of events, so it may keep a few hundred before before; those
// it gives back can no longer be read (EventAt panics). Finished operations
// without a label that no event kept refers to are given back too: Ops
// then holds nil in their place, and the linearizability check keeps what
// it needs of them. The window calls ForgetEvents instead.
func (w *World) ForgetHistory(before int) {
	w.compactOps(w.forgetEvents(before))
}

// ForgetEvents gives back the memory of the events before index before,
// as ForgetHistory does, but keeps every operation as it is (Ops, their
// texts and the linearizability check): for the window, which draws only
// the last stretch of the history but lists and checks operations whole.
// The world runs on the same either way: forgetting is only memory.
func (w *World) ForgetEvents(before int) { w.forgetEvents(before) }

// forgetEvents forgets the events before before and returns the lowest
// operation ID an event still kept refers to.
func (w *World) forgetEvents(before int) uint64 {
	inFlight := uint64(math.MaxUint32)
	note := func(e *event) {
		if e.kind == evDeliver && e.id > 0 {
			inFlight = min(inFlight, e.id-1)
		}
	}
	w.sched.pending(note)
	for _, m := range w.members {
		for i := range m.queue {
			note(&m.queue[i])
		}
	}
	limit := w.history.forget(before, uint32(inFlight))
	for i := range w.history.whys {
		if i < w.history.first {
			delete(w.history.whys, i)
		}
	}
	return limit
}

// EventAt returns the i-th event (0-based).
func (w *World) EventAt(i int) Event { return w.event(i) }

// EventsSince returns a copy of the events from the i-th on.
func (w *World) EventsSince(i int) []Event {
	out := make([]Event, 0, max(w.history.len()-i, 0))
	for ; i < w.history.len(); i++ {
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
	w.lastCaption = kind + ": " + text
}

// LastCaption returns the text of the last caption recorded, as the
// history has it ("say: ...").
func (w *World) LastCaption() (string, bool) { return w.lastCaption, w.lastCaption != "" }

// describeOp says what a request asks, in l. The operation's name (put,
// member add) is etcd's and etcdctl's, and stays; so do keys, values,
// names and etcdctl's flags.
func describeOp(l i18n.Lang, op *Op) string {
	key, end := op.Req.KeyRange()
	s := op.Kind.String() + " " + strconv.Quote(server.DisplayKey(key))
	switch op.Kind {
	case OpPut:
		s += " = " + strconv.Quote(string(op.Req.Put.Value))
		if op.Req.Put.Lease != 0 {
			s += l.F(" with lease %s", leaseHex(op.Req.Put.Lease))
		}
	case OpGet:
		if op.Req.Range.Serializable {
			s += l.T(" (serializable)")
		} else {
			s += l.T(" (linearizable)")
		}
	case OpTxn:
		s = "txn " + describeTxn(op.Req.Txn)
	case OpCompact:
		s = l.F("compact at revision %d", op.Req.Compaction.Revision)
	case OpLeaseGrant:
		s = l.F("lease grant, TTL %ds", op.Req.LeaseGrant.TTL)
	case OpLeaseRevoke, OpLeaseKeepAlive, OpLeaseTimeToLive:
		s = op.Kind.String() + " " + leaseHex(op.Req.Lease())
	case OpLeaseLeases:
		s = "lease list"
	case OpMemberAdd:
		s = "member add " + op.Target()
		if op.Learner() {
			s += l.T(asLearnerText)
		}
	case OpMemberRemove, OpMemberPromote:
		s = op.Kind.String() + " " + op.Target()
	case OpMemberUpdate:
		s = "member update " + op.Target() + " --peer-urls=" + op.PeerURL()
	case OpMemberList, OpAlarmList, OpAlarmDisarm:
		s = op.Kind.String()
	case OpDowngrade:
		s = server.DescribeDowngrade(op.Downgrade())
	case OpAuth:
		s = server.DescribeAuth(op.Req.Auth)
	}
	switch {
	case len(end) == 0:
	case server.IsPrefix(key, end):
		s += " --prefix"
	case mvcc.IsGteEnd(end):
		s += " --from-key"
	default:
		s += l.F(" to %s", strconv.Quote(string(end)))
	}
	switch {
	case op.Kind == OpGet && op.Req.Range.Revision != 0:
		s += " --rev=" + strconv.FormatInt(op.Req.Range.Revision, 10)
	case op.Kind == OpWatch && op.Req.Watch.StartRevision != 0:
		s += " --rev=" + strconv.FormatInt(op.Req.Watch.StartRevision, 10)
	}
	return s
}

// asLearnerText ends a learner's member add, in a request and in the
// proposal that carries it.
var asLearnerText = i18n.N(" as a learner")

func leaseHex(id int64) string { return fmt.Sprintf("%016x", id) }

// describeTxn says what a transaction asks, in etcdctl's txn syntax.
func describeTxn(t *etcdserverpb.TxnRequest) string {
	if t == nil {
		return "{}"
	}
	var cmps []string
	for _, c := range t.Compare {
		cmps = append(cmps, etcdctl.FormatCompare(c))
	}
	s := "if " + strings.Join(cmps, " && ")
	if len(cmps) == 0 {
		s = "if true"
	}
	return s + " then " + describeRequestOps(t.Success) + " else " + describeRequestOps(t.Failure)
}

func describeRequestOps(ops []*etcdserverpb.RequestOp) string {
	var parts []string
	for _, o := range ops {
		parts = append(parts, etcdctl.FormatRequest(o))
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

// statusWords start an answer that is not ok: etcd's error follows.
var statusWords = map[OpStatus]string{OpError: i18n.N("error: %s"), OpTimeout: i18n.N("timeout: %s"),
	OpPending: i18n.N("pending: %s")}

// describeResult says what a request's answer was, in l. Values, keys and
// etcd's errors stay as they are.
func describeResult(l i18n.Lang, op *Op) string {
	if op.Status != OpOK {
		s := l.F(statusWords[op.Status], op.Err)
		if op.CompactRevision() != 0 {
			s += l.F(" (compacted at revision %d)", op.CompactRevision)
		}
		return s
	}
	rev := l.F(" at revision %d", op.Revision())
	switch op.Kind {
	case OpGet:
		var s string
		r, resp := op.Req.Range, op.Resp.Range
		switch {
		case r.CountOnly:
			s = l.F("ok: count %d", resp.Count)
		case len(r.RangeEnd) != 0:
			s = l.F("ok: %d keys", len(resp.Kvs))
			if resp.More {
				s += l.T(" (more)")
			}
		case len(resp.Kvs) > 0:
			kv := resp.Kvs[0]
			s = l.F("ok: %s (mod %d, version %d)", strconv.Quote(string(kv.Value)), kv.ModRevision, kv.Version)
		default:
			s = l.T("ok: not found")
		}
		s += rev
		if op.Stale {
			s += l.F(" (STALE: %s)", op.StaleText(l))
		}
		return s
	case OpWatch:
		return l.T("ok: watching")
	case OpDelete:
		return l.F("ok: deleted %d", op.Resp.DeleteRange.Deleted) + rev
	case OpTxn:
		if op.Resp.Txn != nil && op.Resp.Txn.Succeeded {
			return l.T("ok: succeeded (then)") + rev
		}
		return l.T("ok: failed (else)") + rev
	case OpLeaseGrant:
		return l.F("ok: lease %016x granted, TTL %ds", op.Resp.LeaseGrant.ID, op.Resp.LeaseGrant.TTL)
	case OpLeaseKeepAlive:
		return l.F("ok: TTL %ds", op.Resp.LeaseKeepAlive.TTL)
	case OpLeaseTimeToLive:
		if op.Resp.LeaseTimeToLive.TTL == -1 {
			return l.T("ok: expired or revoked")
		}
		return l.F("ok: %ds left of %ds", op.Resp.LeaseTimeToLive.TTL, op.Resp.LeaseTimeToLive.GrantedTTL)
	case OpLeaseLeases:
		return l.Count(len(op.Resp.LeaseLeases.Leases), "ok: %d lease", "ok: %d leases")
	case OpMemberAdd, OpMemberRemove, OpMemberPromote, OpMemberUpdate, OpMemberList:
		return l.Count(len(op.Members()), "ok: %d member", "ok: %d members")
	case OpAlarmList, OpAlarmDisarm:
		if len(op.Alarms()) == 0 {
			return l.T("ok: no alarm")
		}
		return l.Count(len(op.Alarms()), "ok: %d alarm", "ok: %d alarms")
	}
	return l.T("ok") + rev
}

// recordSend records a message put on the network, or dropped at once for
// an unknown destination, and returns its ID.
func (w *World) recordSend(from, to uint64, m *pb.Message, arrive Time, forwarded, unknown bool) uint64 {
	h := &w.history
	r := h.msgs.add()
	r.from, r.to = sat16(from), sat16(to)
	r.arrive = uint32(min(max(arrive-w.now, 0)/1000, math.MaxUint32))
	var body msgBody
	body.set(m, forwarded)
	if last := &h.lastBody[body.typ%32]; last.ok && last.body.equal(&body) {
		r.body = last.index
	} else {
		r.body = uint32(h.bodies.n)
		*h.bodies.add() = body
		*last = lastBody{body: body, index: r.body, ok: true}
	}
	id := uint64(h.msgs.n)
	if unknown {
		h.addMsg(EvDrop, netmodel.DropUnknown, w.now, id)
	} else {
		h.addMsg(EvSend, netmodel.NotDropped, w.now, id)
	}
	return id
}

// recordArrival records the delivery (why == NotDropped) or the drop of the
// message with ID id.
func (w *World) recordArrival(id uint64, why netmodel.DropReason) {
	kind := EvDrop
	if why == netmodel.NotDropped {
		kind = EvDeliver
	}
	w.history.addMsg(kind, why, w.now, id)
}
