package sim

import (
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/server"
)

// OpKind is what a client asks for.
type OpKind uint8

// The kinds of client operation.
const (
	OpPut OpKind = iota + 1
	OpDelete
	OpGet
	OpWatch
	OpTxn             // a transaction (Op.Req.Txn)
	OpCompact         // an MVCC compaction (Op.Req.Compaction)
	OpLeaseGrant      // grant a lease (Op.Req.LeaseGrant)
	OpLeaseRevoke     // revoke a lease (Op.Req.LeaseRevoke)
	OpLeaseKeepAlive  // one keep-alive (Op.Req.LeaseKeepAlive), answered by the leader
	OpLeaseTimeToLive // the remaining TTL of a lease (Op.Req.LeaseTimeToLive), answered by the leader
	OpLeaseLeases     // every lease the member knows
	OpMemberAdd       // add Op.Target() (a learner with Op.Learner()) to the cluster
	OpMemberRemove    // remove Op.Target()
	OpMemberPromote   // make the learner Op.Target() a voter
	OpMemberUpdate    // give Op.Target() the peer URL Op.PeerURL()
	OpMemberList      // the members, as the serving member has applied them
	OpAlarmList       // the alarms, read through raft
	OpAlarmDisarm     // disarm every alarm, as clientv3's AlarmDisarm of none: one deactivation each, through raft
	OpAuth            // one of the Auth service's calls (Op.Req.Auth), through raft as etcd v3.6 sends them all
	OpDowngrade       // Maintenance.Downgrade (Op.Downgrade()): enable and cancel through raft
	numOpKinds
)

// opKindRow is what each kind of operation is, in one row: its name, its
// kind as the server layer routes it (server.Route), whether it goes
// through raft as a write, whether clientv3 may retry it (repeatable),
// and whether it is a Cluster API or alarm call (isClusterOrAlarm).
type opKindRow struct {
	name           string
	call           server.CallKind
	write          bool
	repeatable     bool
	clusterOrAlarm bool
}

// opKinds has one row per kind.
var opKinds = [...]opKindRow{
	OpPut:             {name: "put", call: server.CallWrite, write: true},
	OpDelete:          {name: "delete", call: server.CallWrite, write: true},
	OpGet:             {name: "get", call: server.CallRange, repeatable: true},
	OpWatch:           {name: "watch", call: server.CallWatch},
	OpTxn:             {name: "txn", call: server.CallTxn, write: true},
	OpCompact:         {name: "compact", call: server.CallWrite, write: true},
	OpLeaseGrant:      {name: "lease grant", call: server.CallWrite, write: true, repeatable: true},
	OpLeaseRevoke:     {name: "lease revoke", call: server.CallWrite, write: true, repeatable: true},
	OpLeaseKeepAlive:  {name: "lease keep-alive", call: server.CallLease},
	OpLeaseTimeToLive: {name: "lease timetolive", call: server.CallLease, repeatable: true},
	OpLeaseLeases:     {name: "lease list", call: server.CallLeaseList, repeatable: true},
	OpMemberAdd:       {name: "member add", call: server.CallCluster, clusterOrAlarm: true},
	OpMemberRemove:    {name: "member remove", call: server.CallCluster, clusterOrAlarm: true},
	OpMemberPromote:   {name: "member promote", call: server.CallPromote, clusterOrAlarm: true},
	OpMemberUpdate:    {name: "member update", call: server.CallCluster, clusterOrAlarm: true},
	OpMemberList:      {name: "member list", call: server.CallMemberList, repeatable: true, clusterOrAlarm: true},
	OpAlarmList:       {name: "alarm list", call: server.CallCluster, repeatable: true, clusterOrAlarm: true},
	OpAlarmDisarm:     {name: "alarm disarm", call: server.CallCluster, repeatable: true, clusterOrAlarm: true},
	OpAuth:            {name: "auth", call: server.CallWrite, write: true},
	OpDowngrade:       {name: "downgrade", call: server.CallCluster, clusterOrAlarm: true},
}

// isClusterOrAlarm reports whether the operation is one of etcd's Cluster
// API calls (member add, remove, promote, update, list) or an alarm list or
// disarm: the calls whose target and flags the Op carries in its own
// fields, which need no server.Request (member list may carry one).
func (k OpKind) isClusterOrAlarm() bool { return int(k) < len(opKinds) && opKinds[k].clusterOrAlarm }

// call is the operation's kind as the server layer routes it (server.Route).
func (k OpKind) call() server.CallKind { return opKinds[k].call }

// IsWrite reports whether the operation goes through raft as a write.
func (k OpKind) IsWrite() bool { return int(k) < len(opKinds) && opKinds[k].write }

// repeatable reports whether clientv3 may send the operation again after
// an error (its retry policy "repeatable": Range, the lease calls but
// keep-alive streams, MemberList, Alarm). Writes, transactions,
// compactions and membership changes are sent once.
func (k OpKind) repeatable() bool { return int(k) < len(opKinds) && opKinds[k].repeatable }

func (k OpKind) String() string {
	if int(k) < len(opKinds) {
		return opKinds[k].name
	}
	return "op(?)"
}

// OpStatus is where an operation stands, as its client sees it.
type OpStatus uint8

// The outcomes of an operation.
const (
	OpPending OpStatus = iota
	OpOK
	OpError
	OpTimeout // the client gave up: the outcome is unknown
)

var opStatusNames = [...]string{"pending", "ok", "error", "timeout"}

func (s OpStatus) String() string {
	if int(s) < len(opStatusNames) {
		return opStatusNames[s]
	}
	return "status(?)"
}

// Op is one client request and what became of it.
//
// NB: an Op is kept for the whole run (the window, the transcript and the
// check read it), so its size is a cost of every request: the fields that
// few requests use (membership changes, alarms, staleness, watch events,
// retries, streams) are in opRare, read through methods, and the small
// fields are kept together. At 512 bytes or less an Op is a small object
// to Go's garbage collector, which marks a span of them at once; above,
// it marks each on its own: at 744 bytes, an Op kept for the run made a
// committed proposal about a tenth slower (docs/performance.md).
// TestOpSize keeps it there.
type Op struct {
	ID     uint64
	Label  string // the scenario's `as:` name, if any
	Client string
	// Req is the request, in etcd's own types; for a membership change
	// (Target, Learner, PeerURL) and the alarm list it is empty.
	Req server.Request

	Start, End Time
	// StartEvent and EndEvent are the indexes in the history of the
	// request and of its end (the answer, or the client giving up): the
	// simulation's own order, which tells apart two events at one instant.
	StartEvent, EndEvent int
	Err                  string
	Member               string // the member that answered, or the one tried last

	// Resp is the answer, in etcd's own types, its header filled in as
	// etcd's gRPC layer fills it: the cluster, the member that answered,
	// the store revision and that member's raft term.
	Resp server.Response
	// Applied: a get's, the applied index of the member that answered.
	Applied uint64

	// group is the raft group of the member it reached last: the
	// linearizability check checks each group's operations apart.
	group int32
	// timeoutSlot is the slot of its client timeout in the schedule, plus
	// one (0: none pending).
	timeoutSlot int32
	Kind        OpKind
	Status      OpStatus
	// RequireLeader: a watch the serving member cancels when it loses its
	// leader (the gRPC metadata clientv3's WithRequireLeader sets).
	RequireLeader bool
	// Repeat makes a lease keep-alive a stream, as clientv3's KeepAlive:
	// a keep-alive every TTL/3 until the lease is gone or the stream is
	// cancelled. The stream is ok once the first keep-alive is answered;
	// KeepAlives are the answers so far.
	Repeat bool
	// Stale marks a serializable read that returned something other than
	// the newest committed state; StaleNote says by how much (in English;
	// StaleText says it in a language), from what the Stale methods return.
	Stale bool
	// Canceled says the client gave up on the operation (CmdCancel): for a
	// write its outcome is unknown, as after a timeout.
	Canceled bool
	// streamed: a finished operation the world keeps (it has a label)
	// that the check of a run forgetting its history was already given.
	streamed       bool
	external       bool // Command.External: the client's retries are not the world's
	readIndexKnown bool

	via       uint64        // a request via a member: that member; else 0 (the client's endpoints)
	timeout   time.Duration // its own deadline, if it has one
	endpoint  int           // index into the client's endpoints of the member tried
	tried     int
	readIndex uint64
	// reqID: the request ID the member that proposed it gave it; entry*:
	// the entry a leader appended for it (entryMember 0: none; why.go).
	reqID                 uint64
	entryIndex, entryTerm uint64
	entryMember           uint16
	after                 func(*Op) // called once when the operation ends (the compactor's next step)
	header                etcdserverpb.ResponseHeader
	// more holds the fields few operations use (nil: all zero).
	more *opRare
}

// opRare is the part of an Op that few operations use.
type opRare struct {
	keepAlives []*etcdserverpb.LeaseKeepAliveResponse

	// Membership changes.
	target  string
	peerURL string
	learner bool
	// startAdded: member add starts the new member once it proposes it.
	startAdded bool
	members    []ClusterMember
	alarms     []*etcdserverpb.AlarmMember
	// downgrade: a downgrade's request; version: its answer, the
	// cluster version.
	downgrade *etcdserverpb.DowngradeRequest
	version   string

	compactRevision int64

	staleNote          string
	staleNewest        string
	staleNewestApplied uint64
	staleValue         string
	staleFound         bool

	events  []WatchEvent
	retries []Retry
	// progress: the progress notifications a watch received; a watch
	// created with progress_notify gets one every progressEvery.
	progress      []Progress
	progressEvery Time

	// keepAliveDeadline: a keep-alive stream's lease, as its client knows
	// it, lives until then (-1: not yet answered).
	keepAliveDeadline Time
}

// rare returns op's rarely used fields to be written, made on first use.
func (op *Op) rare() *opRare {
	if op.more == nil {
		op.more = &opRare{}
	}
	return op.more
}

// noRare is what an Op without opRare fields reads. NB: it is shared, so
// it is only read: a write goes through rare.
var noRare opRare

// rareOrZero returns op's rarely used fields to be read.
func (op *Op) rareOrZero() *opRare {
	if op.more == nil {
		return &noRare
	}
	return op.more
}

// KeepAlives are a keep-alive stream's answers so far (Repeat).
func (op *Op) KeepAlives() []*etcdserverpb.LeaseKeepAliveResponse { return op.rareOrZero().keepAlives }

// Target is the member a membership change adds, removes, promotes or
// updates.
func (op *Op) Target() string { return op.rareOrZero().target }

// Learner reports whether a member add adds a learner.
func (op *Op) Learner() bool { return op.rareOrZero().learner }

// PeerURL is a member add's or update's peer URL ("": http://NAME:2380).
func (op *Op) PeerURL() string { return op.rareOrZero().peerURL }

// Members is what a membership call answered: the members after the
// change, or the member list.
func (op *Op) Members() []ClusterMember { return op.rareOrZero().members }

// Downgrade is a downgrade's request.
func (op *Op) Downgrade() *etcdserverpb.DowngradeRequest { return op.rareOrZero().downgrade }

// Version is a downgrade's answer: the cluster version (major.minor).
func (op *Op) Version() string { return op.rareOrZero().version }

// Alarms are an alarm list's alarms, or those an alarm disarm disarmed.
func (op *Op) Alarms() []*etcdserverpb.AlarmMember { return op.rareOrZero().alarms }

// CompactRevision is set when a watch was cancelled because its start
// revision has been compacted: the compaction's revision.
func (op *Op) CompactRevision() int64 { return op.rareOrZero().compactRevision }

// StaleNote says, in English, by how much a Stale read was behind.
func (op *Op) StaleNote() string { return op.rareOrZero().staleNote }

// StaleNewest is the member that had applied the most when a Stale read
// answered, and StaleNewestApplied how far.
func (op *Op) StaleNewest() string { return op.rareOrZero().staleNewest }

// StaleNewestApplied is how far StaleNewest had applied.
func (op *Op) StaleNewestApplied() uint64 { return op.rareOrZero().staleNewestApplied }

// StaleValue and StaleFound are what a Stale read would have found on
// StaleNewest (StaleFound false: no such key; not set for a prefix read).
func (op *Op) StaleValue() string { return op.rareOrZero().staleValue }

// StaleFound: see StaleValue.
func (op *Op) StaleFound() bool { return op.rareOrZero().staleFound }

// Events are a watch's events delivered to the client so far.
func (op *Op) Events() []WatchEvent { return op.rareOrZero().events }

// Retries are the attempts that failed with an error clientv3 retries
// (each one a "retrying of unary invoker failed" in its log).
func (op *Op) Retries() []Retry { return op.rareOrZero().retries }

// Key returns the key a get, put, delete or watch acts on, as the user
// gave it (the empty key that a --prefix or --from-key request sends as
// "\x00" is "").
func (op *Op) Key() string {
	k, _ := op.Req.KeyRange()
	return server.DisplayKey(k)
}

// Value returns what a put writes.
func (op *Op) Value() string {
	if p := op.Req.Put; p != nil {
		return string(p.Value)
	}
	return ""
}

// Revision returns the store revision the answer reflects.
func (op *Op) Revision() int64 { return op.header.Revision }

// Header returns the answer's header, which etcd's gRPC layer fills in:
// the cluster, the member that answered, the store revision and that
// member's raft term (the zero header before an answer). Resp's header is
// the same one.
func (op *Op) Header() *etcdserverpb.ResponseHeader { return &op.header }

// KVs returns what a get returned.
func (op *Op) KVs() []*KeyValue {
	if r := op.Resp.Range; r != nil {
		return r.Kvs
	}
	return nil
}

// Found reports whether a get of one key found it, and its value.
func (op *Op) Found() (string, bool) {
	if r := op.Resp.Range; r != nil && len(r.Kvs) > 0 && op.Req.Range != nil && len(op.Req.Range.RangeEnd) == 0 {
		return string(r.Kvs[0].Value), true
	}
	return "", false
}

// Retry is one failed attempt of an operation that its client retried.
type Retry struct {
	At     Time
	Member string // the member that answered with the error
	Err    string
}

// WatchEvent is one change a watch delivered.
type WatchEvent struct {
	mvccpb.Event
	At Time // when the client received it
	// Response numbers the watch response the event came in (from 1):
	// etcd sends a catch-up's events in one response, and each later
	// revision's in one. Header is that response's header.
	Response int
	Header   etcdserverpb.ResponseHeader
	last     bool // the last event of its response
}

// Latency is how long the operation took, or has taken so far. An open
// watch has taken as long as it has been open.
func (op *Op) Latency(now Time) time.Duration {
	if op.Status == OpPending || op.isStream() && op.Status == OpOK {
		return time.Duration(now - op.Start)
	}
	return time.Duration(op.End - op.Start)
}

// External reports whether the operation came from a client outside the
// simulation (Command.External): raftsim serve's.
func (op *Op) External() bool { return op.external }

// isStream reports whether the operation stays open once it is ok: a
// watch, or a keep-alive stream.
func (op *Op) isStream() bool { return op.Kind == OpWatch || op.Kind == OpLeaseKeepAlive && op.Repeat }

// StaleText says, in l, how stale a stale read is: how far its member had
// applied, how far the newest member had, and what the read would have
// found there.
func (op *Op) StaleText(l i18n.Lang) string {
	s := l.F("%s has applied up to index %d; %s has applied %d", op.Member, op.Applied, op.StaleNewest(), op.StaleNewestApplied())
	switch {
	case len(op.Req.Range.RangeEnd) != 0:
	case op.StaleFound():
		s += l.F(", where %s = %s", op.Key(), op.StaleValue())
	default:
		s += l.F(", where %s does not exist", op.Key())
	}
	return s
}

// Ops returns every client operation in the order they started, by ID:
// Ops()[i] has ID i+1. NB: they are the world's own; the history works out
// what a request and its answer said from them, so a caller must not
// change them. In a run that forgets its history (ForgetHistory),
// operations it gave back are nil, and once most are, the slice starts
// further on: Ops()[i] has ID FirstOp()+i.
func (w *World) Ops() []*Op { return w.ops }

// FirstOp returns the ID of the first operation Ops holds: 1, unless a
// run that forgets its history gave back those before.
func (w *World) FirstOp() uint64 { return uint64(w.opsBase) + 1 }

// OpCount returns how many operations the run has started.
func (w *World) OpCount() uint64 { return uint64(w.opsBase + len(w.ops)) }

// opByID returns the operation with the ID, which Ops must still hold.
func (w *World) opByID(id uint64) *Op { return w.ops[int(id)-1-w.opsBase] }

// Op returns the operation with the label, if any.
func (w *World) Op(label string) *Op {
	for _, op := range w.ops {
		if op != nil && op.Label == label {
			return op
		}
	}
	return nil
}

// kindOf returns the operation a request asks for, or 0 when no field is
// set.
func kindOf(r *server.Request) OpKind {
	switch {
	case r.Range != nil:
		return OpGet
	case r.Put != nil:
		return OpPut
	case r.DeleteRange != nil:
		return OpDelete
	case r.Txn != nil:
		return OpTxn
	case r.Compaction != nil:
		return OpCompact
	case r.LeaseGrant != nil:
		return OpLeaseGrant
	case r.LeaseRevoke != nil:
		return OpLeaseRevoke
	case r.LeaseKeepAlive != nil:
		return OpLeaseKeepAlive
	case r.LeaseTimeToLive != nil:
		return OpLeaseTimeToLive
	case r.LeaseLeases != nil:
		return OpLeaseLeases
	case r.Watch != nil:
		return OpWatch
	case r.MemberList != nil:
		return OpMemberList
	case r.Auth != nil:
		return OpAuth
	}
	return 0
}
