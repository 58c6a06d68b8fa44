package scenarios

import (
	"fmt"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// Pos is a position in a scenario file. Line and Col are 1-based; a Pos with
// Line 0 is unknown.
type Pos struct {
	File      string
	Line, Col int
}

// String formats the position as file:line:col. A position in a
// command-line flag (line 0, File the flag and its argument) is
// "--compare pre_vote=maybe (column 10)".
func (p Pos) String() string {
	if p.inFlag() {
		return fmt.Sprintf("%s (column %d)", p.File, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// inFlag reports whether the position is in a command-line flag's
// argument (Setting) rather than in a file.
func (p Pos) inFlag() bool { return p.Line == 0 && p.Col > 0 && strings.HasPrefix(p.File, "--") }

// Text is a caption in English and, optionally, Chinese.
type Text struct {
	En, Zh string
}

// In returns the text in lang ("en", "zh", "zh-CN", ...), falling back to
// English, or to Chinese when there is no English.
func (t Text) In(lang string) string {
	if strings.HasPrefix(strings.ToLower(lang), "zh") && t.Zh != "" {
		return t.Zh
	}
	if t.En != "" {
		return t.En
	}
	return t.Zh
}

// IsZero reports whether the text is empty in every language.
func (t Text) IsZero() bool { return t.En == "" && t.Zh == "" }

// Scenario is a parsed and statically validated scenario file.
type Scenario struct {
	File    string
	Name    string
	Title   Text
	Summary Text

	// Seed is the file's seed (default 1); SeedSet says the file named one.
	// Config.Seed holds the same value.
	Seed    uint64
	SeedSet bool

	// Config is cluster:, network: and clients: applied to
	// sim.DefaultConfig(). Every client has a Timeout (sim.DefaultClientTimeout
	// unless the file names one).
	Config sim.Config
	// ConfigPos says where config keys were, for errors found at run time.
	// Keys are "cluster.<key>", "network.<key>", "network.links.<i>" (0-based)
	// and "clients.<name>".
	ConfigPos map[string]Pos

	Steps []Step

	// Session marks a session that raftsim serve recorded (session: true,
	// session.go): its file may be of any length, and is read as a stream.
	Session bool
	// Panes are a compare: lesson's runs, side by side; the scenario
	// itself is the first pane's. AliasOf is the compare lesson an alias
	// (a pane on its own under its own name) belongs to.
	Panes   []Pane
	AliasOf string
}

// RefKind says what a node reference names.
type RefKind uint8

// The kinds of node reference.
const (
	RefInvalid   RefKind = iota
	RefName              // a member, by name
	RefLeader            // @leader
	RefFollower          // @follower: the first follower in member-list order
	RefFollowerN         // @followerN: the N-th follower in name order
	RefFollowers         // @followers: all followers, a list
	RefVar               // $name, bound by an earlier let
	// RefClient is a client name. It appears only as Step.Via, where the
	// validator turns a RefName that names a client (listed or built by the
	// topology) into a RefClient.
	RefClient
)

var refKindNames = [...]string{"invalid", "name", "leader", "follower", "followerN", "followers", "var", "client"}

func (k RefKind) String() string {
	if int(k) < len(refKindNames) {
		return refKindNames[k]
	}
	return fmt.Sprintf("RefKind(%d)", k)
}

// NodeRef is a reference to a node as written in the file. @ references
// resolve when their step runs (for conditions, each time they are
// evaluated); a reference that resolves to nothing fails its step at run
// time. RefFollowers, and a RefVar bound to a list, resolve to several nodes.
type NodeRef struct {
	Pos  Pos
	Kind RefKind
	// Name is the member or client name for RefName and RefClient, and the
	// variable's name without the $ for RefVar.
	Name string
	// N is the 1-based follower index of RefFollowerN.
	N int
}

// String formats the reference as it is written in a file.
func (r NodeRef) String() string {
	switch r.Kind {
	case RefLeader:
		return "@leader"
	case RefFollower:
		return "@follower"
	case RefFollowerN:
		return fmt.Sprintf("@follower%d", r.N)
	case RefFollowers:
		return "@followers"
	case RefVar:
		return "$" + r.Name
	}
	return r.Name
}

// StepKind is the action of a step. Its String is the step's YAML key.
type StepKind uint8

// The step kinds, one per action key.
const (
	StepInvalid         StepKind = iota
	StepSay                      // say: text
	StepPause                    // pause: text
	StepChapter                  // chapter: title
	StepWait                     // wait: dur
	StepLet                      // let: {name: ref | [refs]}
	StepCrash                    // crash: refs
	StepRestart                  // restart: refs
	StepStall                    // stall: {node: refs, for: dur}
	StepClock                    // clock: {node: refs, rate: 1.1}
	StepPartition                // partition: [[refs], [refs]]
	StepIsolate                  // isolate: refs
	StepCut                      // cut: {from, to, both}
	StepRestore                  // restore: {from, to, both}
	StepLink                     // link: {from, to, latency, loss, duplicate, both}
	StepHeal                     // heal: all
	StepCampaign                 // campaign: refs
	StepTransferLeader           // transfer_leader: {to: ref}
	StepAddMember                // add_member: {name, learner, via, as, peer_url, start}
	StepPromote                  // promote: refs | {node, via, as}
	StepRemoveMember             // remove_member: refs | {node, via, as}
	StepSnapshot                 // snapshot: refs
	StepPut                      // put: {via, key, value, as}
	StepDelete                   // delete: {via, key, prefix, as}
	StepGet                      // get: {via, key, consistency, prefix, keys_only, as}
	StepWatch                    // watch: {via, key, prefix, require_leader, as}
	StepCancel                   // cancel: label
	StepExpect                   // expect: {conditions..., within}
	StepExpectAlways             // expect_always: {conditions..., for}
	StepTxn                      // txn: {via, if, then, else, as}
	StepCompact                  // compact: {via, rev | rev_of, as}
	StepLeaseGrant               // lease_grant: {via, ttl, as}
	StepLeaseRevoke              // lease_revoke: {via, lease, as}
	StepLeaseKeepAlive           // lease_keepalive: {via, lease, repeat, as}
	StepLeaseTimeToLive          // lease_timetolive: {via, lease, keys, as}
	StepLoad                     // load: {for, rate, via, keys, prefix, distribution, mix, background}
	StepStart                    // start: refs (a member added but not yet started)
	StepUpdateMember             // update_member: {node, peer_url, via, as}
	StepMemberList               // member_list: {via, consistency, as}
	StepAlarmList                // alarm_list: {via, as}
	StepLose                     // lose: refs (hosts lost for good, disks included)
	StepSnapshotSave             // snapshot_save: {node: ref, file}
	StepSnapshotRestore          // snapshot_restore: {file, name, initial_cluster, initial_cluster_token, initial_advertise_peer_urls, data_dir}
	StepAlarmDisarm              // alarm_disarm: {via, as}
	StepDefrag                   // defrag: refs
	StepWatchProgress            // watch_progress: [labels] (the watches of one client stream)
	StepLeaseList                // lease_list: {via, as}
	StepAuth                     // auth: {via, request, token, as} (one of etcd's Auth service calls)
	StepDowngrade                // downgrade: {via, action, version, as} (Maintenance.Downgrade)
	numStepKinds
)

var stepKindNames = [...]string{
	"invalid", "say", "pause", "chapter", "wait", "let", "crash", "restart", "stall", "clock",
	"partition", "isolate", "cut", "restore", "link", "heal", "campaign", "transfer_leader",
	"add_member", "promote", "remove_member", "snapshot", "put", "delete", "get", "watch",
	"cancel", "expect", "expect_always", "txn", "compact", "lease_grant", "lease_revoke", "lease_keepalive",
	"lease_timetolive", "load", "start", "update_member", "member_list", "alarm_list",
	"lose", "snapshot_save", "snapshot_restore", "alarm_disarm", "defrag",
	"watch_progress", "lease_list", "auth", "downgrade",
}

func (k StepKind) String() string {
	if int(k) < len(stepKindNames) {
		return stepKindNames[k]
	}
	return fmt.Sprintf("StepKind(%d)", k)
}

// Narrative reports whether the step is part of the story a presenter
// tells: a say, a pause or a chapter.
func (k StepKind) Narrative() bool { return k == StepSay || k == StepPause || k == StepChapter }

// Acts reports whether the step acts on the cluster (a fault, a change
// of the network or the membership, a client operation), as opposed to
// telling, waiting, binding names or checking.
func (k StepKind) Acts() bool {
	switch k {
	case StepInvalid, StepSay, StepPause, StepChapter, StepWait, StepLet, StepExpect, StepExpectAlways:
		return false
	}
	return true
}

// IsOp reports whether the step is a client operation (put, delete, get,
// watch), the kinds that may carry a label.
func (k StepKind) IsOp() bool {
	return k == StepPut || k == StepDelete || k == StepGet || k == StepWatch || k >= StepTxn && k <= StepAlarmList || k == StepAlarmDisarm || k == StepLeaseList || k == StepAuth || k == StepDowngrade
}

// Step is one step of a scenario. Only the fields of its Kind are set.
type Step struct {
	// Pos is where the step's action key is.
	Pos  Pos
	Kind StepKind

	// At, if set, is the absolute virtual time the step runs at. Otherwise
	// the step runs After the previous step has finished (0: at once).
	// The validator guarantees that At is never earlier than the time the
	// previous steps take at least, and that At and After are not both set.
	At    *time.Duration
	After time.Duration
	atPos Pos // where at: is, for errors

	// Text is the caption of StepSay, StepPause and StepChapter.
	Text Text
	// Shows are what the screen must show while a narrative step is on
	// screen (shows:, the screen contract; see shows.go).
	Shows []Show
	// Why is a say or pause's why: (the card it opens on raft's line; see
	// why_step.go).
	Why *WhyStep
	// Wait is how long StepWait lets time pass.
	Wait time.Duration
	// Bindings are the variables of StepLet, in file order.
	Bindings []Binding
	// Nodes are the targets of StepCrash, StepRestart, StepIsolate,
	// StepCampaign, StepPromote, StepRemoveMember and StepSnapshot, and the
	// node: of StepStall and StepClock. The step acts on each node every
	// reference resolves to.
	Nodes []NodeRef
	// For is the length of StepStall and StepExpectAlways.
	For time.Duration
	// Rate is StepClock's tick rate relative to real ticks (1 = normal).
	Rate float64
	// Groups are the groups of StepPartition. A group written as a single
	// reference (a $var bound to a list, @followers) is a group of one ref.
	Groups [][]NodeRef

	// From and To are the ends of StepCut, StepRestore and StepLink (every
	// pair between them); To alone is the target of StepTransferLeader.
	From, To []NodeRef
	// Both is false for a one-way cut, restore or link change (From → To
	// only). Default true.
	Both bool
	// Latency, Loss and Duplicate are StepLink's new properties; nil keeps
	// the link's current one.
	Latency   *netmodel.Latency
	Loss      *netmodel.Ratio
	Duplicate *netmodel.Ratio

	// Name and Learner describe StepAddMember's new member; PeerURL is the
	// URL it advertises ("": http://NAME:2380); Start starts it as soon
	// as its addition is proposed (the parser's default: `start: false`
	// leaves it unstarted).
	Name    string
	Learner bool
	PeerURL string
	Start   bool

	// DataDir is the data directory StepRestart restarts from ("": the one
	// the member ran from). File is StepSnapshotSave's file; Restore is
	// what StepSnapshotRestore gives etcdutl snapshot restore (its KV is
	// read when the step runs).
	DataDir string
	File    string
	// ForceNewCluster: StepRestart restarts as etcd --force-new-cluster,
	// a cluster of one on the member's data directory.
	ForceNewCluster bool
	Restore         *sim.RestoreSpec
	restorePath     string // Restore.File beside the scenario

	// Via is the client of a client operation: a RefClient, or a
	// reference to a member, meaning that member's local client. It always
	// resolves to one node. A membership call's Via is optional (the
	// leader's, by default).
	Via NodeRef
	// Req is a client operation's request, in etcd's own types, as the
	// step's keys describe it: key, value, prefix (clientv3's WithPrefix),
	// from_key, range_end, consistency, keys_only, rev, limit, count_only,
	// sort_by, order, prev_kv, lease (a number), ttl, keys, and a txn's
	// if/then/else in etcdctl's syntax. A member_list's consistency is
	// Req.MemberList.
	Req server.Request
	// Downgrade is a downgrade step's call.
	Downgrade *etcdserverpb.DowngradeRequest
	// RequireLeader cancels a StepWatch with "no leader" when the serving
	// member loses its leader.
	RequireLeader bool
	// Cancel is the label of the operation StepCancel gives up on.
	Cancel    string
	CancelPos Pos
	// Progress are the labels of the watches StepWatchProgress asks
	// progress for: the watches of one client stream, at one member.
	Progress    []string
	ProgressPos []Pos

	// Timeout is the operation's own deadline (an extension; 0: its
	// client's), like etcdctl's --command-timeout.
	Timeout time.Duration

	// Load is StepLoad's workload. Unless Background, the step lasts as
	// long as the load; LoadVia is where each name of its via: is.
	Load       *sim.LoadSpec
	Background bool
	LoadVia    []Pos

	// By names who sends an operation via a member (an extension, e.g.
	// etcdctl); "" means the client on that member's host, or its local
	// client.
	By string
	// External marks a request a client outside the simulation sent
	// through raftsim serve (sim.Command.External): the member's side is
	// simulated, the client's retries and deadline were its own.
	External bool

	// Label names the operation's outcome for later conditions ("" = none).
	Label    string
	LabelPos Pos

	// References a request takes from earlier operations when it runs:
	// RevOf, the revision of the answer of the operation with that label
	// (a get's or watch's rev, a compact's revision); LeaseLabel, the
	// lease a lease_grant with that label granted (a put's lease, or the
	// lease of a lease step).
	RevOf      string
	RevOfPos   Pos
	LeaseLabel string
	LeasePos   Pos
	// Repeat makes lease_keepalive keep the lease alive until it is gone
	// or cancelled, as clientv3's KeepAlive.
	Repeat bool

	// Conds are the conditions of StepExpect and StepExpectAlways, one per
	// check, in file order.
	Conds []Condition
	// Within is how long StepExpect may wait for its conditions to hold at
	// once; 0 means they must hold when the step runs.
	Within time.Duration
}

// Binding is one variable of a let step.
type Binding struct {
	Pos  Pos // where the name is
	Name string
	// Refs are the references bound. List says the value was written as a
	// list (or is a single reference that resolves to a list); the driver
	// resolves every ref and binds the resulting nodes in order.
	Refs []NodeRef
	List bool
}

// CondKind is the kind of a condition. Its String is the condition's key.
type CondKind uint8

// The condition kinds.
const (
	CondInvalid       CondKind = iota
	CondLeader                 // leader: ref | none | any | [refs]
	CondLeaders                // leaders: N | [refs]
	CondRole                   // role: {ref: role}, one Condition per entry
	CondTerm                   // term: {ref: cmp}, one per entry
	CondCommit                 // commit: {ref: cmp}, one per entry
	CondLastIndex              // last_index: {ref: cmp}, one per entry
	CondOp                     // op: {label: status}, one per entry
	CondValue                  // value: {label: v | null}, one per entry
	CondKeys                   // keys: {label: [keys]}, one per entry
	CondEvents                 // events: {label: cmp}, one per entry
	CondError                  // error: {label: substring}, one per entry
	CondKV                     // kv: {ref: {key: v | null}}, one per (ref, key)
	CondVoters                 // voters: [refs]
	CondLearners               // learners: [refs]
	CondConverged              // converged: bool
	CondSent                   // sent: {type, from, to, min, reject}
	CondRevision               // revision: {label: cmp}, one per entry
	CondModRevision            // mod_revision: {label: cmp}, one per entry
	CondSucceeded              // succeeded: {label: bool}, one per entry
	CondWatch                  // watch: {label: [events]}, one per entry
	CondLease                  // lease: {label: alive | gone}, one per entry
	CondStoreRevision          // store_revision: {ref: cmp}, one per entry
	CondAnyOf                  // any_of: [{conditions...}, ...]
	CondLog                    // log: {ref: [terms]}, one per entry (extension)
	CondLinearizable           // linearizable: bool (extension)
	CondFirstIndex             // first_index: {ref: cmp}, one per entry (extension)
	CondViolation              // violation: invariant | any (extension)
	CondDBSize                 // db_size: {ref: cmp}, one per entry (extension)
	CondDBInUse                // db_in_use: {ref: cmp}, one per entry (extension)
	CondAlarm                  // alarm: {ref: NOSPACE | none}, one per entry (extension)
	numCondKinds
)

var condKindNames = [...]string{
	"invalid", "leader", "leaders", "role", "term", "commit", "last_index", "op", "value",
	"keys", "events", "error", "kv", "voters", "learners", "converged", "sent",
	"revision", "mod_revision", "succeeded", "watch", "lease", "store_revision", "any_of",
	"log", "linearizable", "first_index", "violation", "db_size", "db_in_use", "alarm",
}

func (k CondKind) String() string {
	if int(k) < len(condKindNames) {
		return condKindNames[k]
	}
	return fmt.Sprintf("CondKind(%d)", k)
}

// Condition is one check of an expect or expect_always step. Map-shaped
// conditions (role:, term:, op:, kv:, ...) give one Condition per entry, each
// with the position of its own entry, so that a failure points at the line
// that did not hold. Only the fields of its Kind are set.
type Condition struct {
	// Pos is where the entry is: the ref or label key of a map-shaped
	// condition, the condition's key otherwise.
	Pos  Pos
	Kind CondKind

	// Node is the node of CondRole, CondTerm, CondCommit, CondLastIndex,
	// CondFirstIndex, CondKV, CondLog, CondDBSize, CondDBInUse and
	// CondAlarm. It may resolve to several nodes; the condition must hold for
	// each.
	Node NodeRef
	// Label is the operation of CondOp, CondValue, CondKeys, CondEvents and
	// CondError.
	Label string

	// Refs are the nodes of CondLeader (one of them leads), CondLeaders
	// (exactly those lead), CondVoters and CondLearners (exactly that
	// configuration; empty for learners: []).
	Refs []NodeRef
	// AnyLeader and NoLeader are CondLeader's "any" and "none".
	AnyLeader, NoLeader bool
	// Count is CondLeaders' N when CountSet (leaders: N).
	Count    int
	CountSet bool

	Role sim.Role   // CondRole
	Cmp  Comparison // CondTerm, CondCommit, CondLastIndex, CondFirstIndex, CondEvents, CondDBSize, CondDBInUse
	// Alarm is CondAlarm's alarm ("NOSPACE"), "" for none.
	Alarm  string
	Status OpStatus // CondOp

	// Key is CondKV's key. Value is the value of CondKV and CondValue; nil
	// means the key is absent (null).
	Key   string
	Value *string
	// Keys are CondKeys' keys, in order.
	Keys []string
	// Substr is what CondError's error text must contain.
	Substr string
	// Converged is CondConverged's value; false holds when the members
	// disagree. It is also CondLinearizable's: false holds when the client
	// history so far is not linearizable.
	Converged bool
	// Terms are CondLog's terms: Terms[i-1] is the term of the entry at
	// index i, for every index up to the node's last.
	Terms []uint64

	// MsgType, From, To and Min describe CondSent: at least Min messages of
	// MsgType from one of From to one of To (nil: any node) were sent since
	// the previous expect step.
	MsgType  raftpb.MessageType
	From, To []NodeRef
	Min      int

	// Succeeded is CondSucceeded's branch; Alive is CondLease's state.
	Succeeded, Alive bool
	// Events are CondWatch's events, each "PUT key=value" or "DELETE key"
	// (with " prev=value" when the event carries the previous value).
	Events []string
	// Alternatives are CondAnyOf's groups: it holds when every condition
	// of one of them holds.
	Alternatives [][]Condition
	// Reject, if set, counts only messages whose reject flag is that
	// (a refused append, vote or pre-vote).
	Reject *bool
	// Invariant is CondViolation's invariant (sim.Invariants); "" means
	// any.
	Invariant string
}

// OpStatus is an operation's outcome in an op: condition.
type OpStatus uint8

// The outcomes of an operation.
const (
	OpInvalid OpStatus = iota
	OpPending
	OpOK
	OpError
	OpTimeout
)

var opStatusNames = [...]string{"invalid", "pending", "ok", "error", "timeout"}

func (s OpStatus) String() string {
	if int(s) < len(opStatusNames) {
		return opStatusNames[s]
	}
	return fmt.Sprintf("OpStatus(%d)", s)
}

// CmpOp is the operator of a Comparison.
type CmpOp uint8

// The comparison operators.
const (
	CmpEq CmpOp = iota // ==, also written as a bare number
	CmpNe              // !=
	CmpLt              // <
	CmpLe              // <=
	CmpGt              // >
	CmpGe              // >=
)

var cmpOpNames = [...]string{"==", "!=", "<", "<=", ">", ">="}

func (o CmpOp) String() string {
	if int(o) < len(cmpOpNames) {
		return cmpOpNames[o]
	}
	return fmt.Sprintf("CmpOp(%d)", o)
}

// Comparison is "5" or ">=5": an observed value v satisfies it when
// v Op Value.
type Comparison struct {
	Op    CmpOp
	Value uint64
}

// Holds reports whether v satisfies the comparison.
func (c Comparison) Holds(v uint64) bool {
	switch c.Op {
	case CmpEq:
		return v == c.Value
	case CmpNe:
		return v != c.Value
	case CmpLt:
		return v < c.Value
	case CmpLe:
		return v <= c.Value
	case CmpGt:
		return v > c.Value
	case CmpGe:
		return v >= c.Value
	}
	return false
}

// String formats the comparison as it is written: "5" for ==, ">=5" else.
func (c Comparison) String() string {
	if c.Op == CmpEq {
		return fmt.Sprint(c.Value)
	}
	return c.Op.String() + fmt.Sprint(c.Value)
}
