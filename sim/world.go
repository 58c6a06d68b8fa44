package sim

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/raftsim/raftsim/membership"
	"github.com/raftsim/raftsim/mvcc"
	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/server"
)

// readIndexRetry is how often etcd resends a ReadIndex that got no answer.
const readIndexRetry = 500 * time.Millisecond

// maxStallQueue bounds the input a stalled member queues; beyond it,
// messages are dropped as queue-full.
const maxStallQueue = 4096

// World is a simulated cluster, its network and its clients.
type World struct {
	cfg     Config
	now     Time
	sched   schedule
	members []*member // members[id-1]
	byName  map[string]*member
	clients []*client
	net     *netmodel.Network

	clusterID   uint64 // etcd's cluster ID, from the bootstrap members' IDs
	history     history
	lastCaption string
	ops         []*Op
	compactors  []*compactor
	// lessorRevokes are the IDs of the revocations leaders' lessors
	// proposed for expired leases (not clients): applying one says so.
	lessorRevokes map[uint64]bool
	// decoder decodes the entries members apply (its scratch is shared:
	// the world is single-threaded).
	decoder server.Decoder
	// records lets the members' stores share the records they write
	// (mvcc.RecordPool): a fork starts its own.
	records mvcc.RecordPool
	// Finished operations a run that forgets its history gave back
	// (history_forget.go).
	done         [][]doneOp // in chunks of doneChunk
	opsBase      int        // ops[i] has ID opsBase+i+1 (see compactOps)
	compactFrom  int        // the first operation not yet looked at (in ops)
	compactLater []int      // operations that were pending, to look at again
	staleDone    int
	// streaming: the run forgets its history, and its linearizability
	// check checks and forgets finished operations key by key as they are
	// given back (each group's stream; history_forget.go). It is false before
	// the first giving back, and when keepChecked keeps them in done
	// instead, for porcupine's page.
	streaming   bool
	keepChecked bool
	// What the check was given: operations checked, operations left out,
	// and the ranges of keys it stopped checking (see untrackedRanges).
	streamChecked, streamSkipped int
	untracked                    []keyRange

	loads        []*load
	loadRequests int // the requests every load of the run sends, in all
	// loadLatencies: loads keep their requests' latencies (see
	// RecordLoadLatencies).
	loadLatencies bool
	cmds          [][]loggedCommand
	safety        *safety // the first group's: it holds the world's violation
	// groups are the raft groups the world has run (groups.go): the
	// cluster it bootstrapped first.
	groups []*group
	// saved are the snapshots members saved, by file name (restore.go).
	saved map[string]savedSnapshot

	// initialKV is cfg.InitialKV decoded once: each member that starts
	// with it takes its own state machine from it, sharing its records
	// (server.SharedKV); nil without one.
	initialKV *server.SharedKV

	// snapKVs are the stores the members' raft snapshots refer to, by
	// number (snapshot.go); snapSeq numbered the last; snapKept were kept
	// at the last pruning, which is due when twice as many are kept.
	snapKVs      map[uint64]*server.FrozenKV
	snapSeq      uint64
	snapKept     int
	snapPruneDue bool

	// carry: what carries each client request through raft (why.go).
	carry carry
}

// New builds a world from cfg. Every member bootstraps as etcd does
// (raft.StartNode, that is RawNode.Bootstrap): its log starts with one
// configuration change per initial member at indexes 1..n, in term 1,
// committed, so the first leader is elected in term 2.
func New(cfg Config) (*World, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	w := &World{
		cfg:           cfg,
		byName:        map[string]*member{},
		lessorRevokes: map[uint64]bool{},
		net:           netmodel.New(cfg.Network, stream(cfg.Seed, "network")),
	}
	var initial *server.KV
	switch {
	case cfg.InitialStore != nil:
		w.initialKV, initial = cfg.InitialStore, cfg.InitialStore.KV(cfg.minLeaseTTL())
	case len(cfg.InitialKV) > 0:
		shared, err := server.DecodeShared(cfg.InitialKV, cfg.minLeaseTTL())
		if err != nil {
			return nil, err
		}
		w.initialKV, initial = shared, shared.KV(cfg.minLeaseTTL())
	}
	w.safety = w.newGroup(0, initial).safety
	var boot []*pb.Entry
	for i, name := range cfg.Members {
		w.addMember(name)
		// etcd's bootstrap entries are ConfChange (v1) AddNode entries whose
		// context is the member; here it is the member's name. A learner
		// at bootstrap (which etcd's --initial-cluster cannot express) is
		// an AddLearnerNode entry.
		typ := pb.ConfChangeAddNode
		if slices.Contains(cfg.Learners, name) {
			typ = pb.ConfChangeAddLearnerNode
		}
		ctx := membership.ConfContext{ID: w.members[i].memberID, PeerURLs: []string{w.members[i].peerURL}, Name: name}
		data, err := proto.Marshal(&pb.ConfChange{Type: typ.Enum(), NodeId: new(uint64(i + 1)), Context: ctx.Encode()})
		if err != nil {
			return nil, err
		}
		boot = append(boot, &pb.Entry{Type: pb.EntryConfChange.Enum(), Term: new(uint64(1)), Index: new(uint64(i + 1)), Data: data})
	}
	for _, l := range cfg.Links {
		w.overrideLink(l)
	}
	ids := make([]uint64, len(w.members))
	for i, m := range w.members {
		ids[i] = m.memberID
		if w.raftBoot() {
			if err := w.bootstrapRaft(m); err != nil {
				return nil, err
			}
			continue
		}
		// What RawNode.Bootstrap leaves in a member's first Ready, made
		// durable: the entries and HardState{Term: 1, Commit: n}.
		if err := m.disk.Append(boot); err != nil {
			return nil, err
		}
		if err := m.disk.SetHardState(&pb.HardState{Term: new(uint64(1)), Commit: new(uint64(len(boot)))}); err != nil {
			return nil, err
		}
		m.log.reset(1)
		m.persist(boot, nil)
	}
	w.clusterID = membership.ClusterID(ids)
	w.groups[0].clusterID = w.clusterID
	for _, cc := range w.cfg.ClientConfigs() {
		c := &client{cfg: cc}
		for _, ep := range cc.Endpoints {
			c.endpoints = append(c.endpoints, w.byName[ep].id)
		}
		w.clients = append(w.clients, c)
	}
	for _, m := range w.members {
		m.start()
	}
	w.refreshConnections()
	w.startCompactors()
	return w, nil
}

func (c *Config) check() error {
	if len(c.Members) == 0 {
		return fmt.Errorf("a cluster needs at least one member")
	}
	seen := map[string]bool{}
	for _, n := range c.Members {
		if seen[n] {
			return fmt.Errorf("member %q is listed twice", n)
		}
		seen[n] = true
	}
	for _, n := range c.Learners {
		if !seen[n] {
			return fmt.Errorf("learner %q is not a member", n)
		}
	}
	if len(c.Learners) > 0 && !slices.ContainsFunc(c.Members, func(n string) bool { return !slices.Contains(c.Learners, n) }) {
		return fmt.Errorf("every member is a learner; raft needs at least one voter")
	}
	if c.Tick < time.Microsecond || c.ElectionTicks <= 0 || c.HeartbeatTicks <= 0 || c.HeartbeatTicks >= c.ElectionTicks {
		return fmt.Errorf("need tick >= 1µs and 0 < heartbeat_ticks < election_ticks")
	}
	if err := c.checkRaft(); err != nil {
		return err
	}
	for _, cc := range c.Clients {
		if seen[cc.Name] {
			return fmt.Errorf("client %q has the name of a member", cc.Name)
		}
		if len(cc.Endpoints) == 0 {
			return fmt.Errorf("client %q has no endpoint", cc.Name)
		}
		for _, ep := range cc.Endpoints {
			if !seen[ep] {
				return fmt.Errorf("client %q: endpoint %q is not a member", cc.Name, ep)
			}
		}
	}
	for _, l := range c.Links {
		for _, n := range []string{l.From, l.To} {
			if !seen[n] {
				return fmt.Errorf("link %s → %s: %q is not a member", l.From, l.To, n)
			}
		}
	}
	if err := c.checkTimers(); err != nil {
		return err
	}
	switch c.Bootstrap {
	case "", BootstrapEtcd, BootstrapRaft:
	default:
		return fmt.Errorf("unknown bootstrap %q (want etcd or raft)", c.Bootstrap)
	}
	for _, b := range c.Bugs {
		if b == 0 || b >= numBugs {
			return fmt.Errorf("unknown bug %d", b)
		}
	}
	switch c.Topology {
	case "", "stacked", "external":
	default:
		return fmt.Errorf("unknown topology %q (want stacked or external)", c.Topology)
	}
	if c.Topology != "" {
		for i := range c.Members {
			if c.Apiservers > 0 && i >= c.Apiservers {
				break
			}
			if name := "apiserver-" + strconv.Itoa(i+1); seen[name] {
				return fmt.Errorf("member %q has the name of a kube-apiserver that the %s topology builds", name, c.Topology)
			}
		}
	}
	return nil
}

// checkRaft refuses what raft refuses of the configuration each member's
// RawNode is built with (raft.Config.validate, and the assertions that a
// configuration it lets through trips later), so that a bad configuration
// is an error here rather than a panic inside raft. TestConfigCheckHasRaftsRules
// holds it to raft's own validation.
func (c *Config) checkRaft() error {
	switch {
	case c.HeartbeatTicks <= 0:
		return fmt.Errorf("heartbeat_ticks must be at least 1 (raft: heartbeat tick must be greater than 0)")
	case c.ElectionTicks <= c.HeartbeatTicks:
		return fmt.Errorf("election_ticks (%d) must be more than heartbeat_ticks (%d) (raft: election tick must be greater than heartbeat tick)", c.ElectionTicks, c.HeartbeatTicks)
	case c.MaxInflightMsgs <= 0:
		return fmt.Errorf("max_inflight_msgs must be at least 1 (raft: max inflight messages must be greater than 0)")
	case c.MaxSizePerMsg == 0:
		// raft.Config.validate lets 0 through, and makes it the most that
		// one Ready may hand out to apply: raft then panics at the first
		// entry ("applying entry size (0-0)=0 not positive").
		return fmt.Errorf("max_size_per_msg must be at least 1 byte (raft applies at most that much at once, and panics at 0)")
	case c.ReadOnlyLease && !c.CheckQuorum:
		return fmt.Errorf("read_only: lease needs check_quorum (raft: CheckQuorum must be enabled when ReadOnlyOption is ReadOnlyLeaseBased)")
	}
	return nil
}

// ClientConfigs returns the clients a world built from c has: the
// configured clients plus, for a topology, one kube-apiserver per member,
// or for the first Apiservers members (stacked: bound to its own member;
// external: with every member as an endpoint, starting from its own).
func (c Config) ClientConfigs() []ClientConfig {
	out := slices.Clone(c.Clients)
	have := map[string]bool{}
	for _, cl := range out {
		have[cl.Name] = true
	}
	if c.Topology == "" {
		return out
	}
	for i, name := range c.Members {
		if c.Apiservers > 0 && i >= c.Apiservers {
			break
		}
		cc := ClientConfig{Name: "apiserver-" + strconv.Itoa(i+1), Timeout: DefaultClientTimeout}
		if have[cc.Name] {
			continue
		}
		if c.Topology == "stacked" {
			cc.Endpoints = []string{name}
		} else {
			cc.Endpoints = append([]string{name}, slices.Delete(slices.Clone(c.Members), i, i+1)...)
		}
		out = append(out, cc)
	}
	return out
}

func (w *World) addMember(name string) *member {
	id := uint64(len(w.members) + 1)
	var addedAt *Time
	if w.now > 0 || len(w.members) >= len(w.cfg.Members) {
		addedAt = &w.now // etcd adds the time to a runtime member's ID
	}
	m := &member{
		w: w, id: id, name: name,
		memberClock:  memberClock{rate: 1, tickEvery: Time(w.cfg.Tick), clockBase: w.now, clockSince: w.now, clockRand: stream(w.cfg.Seed, "clock/"+name)},
		dataDirs:     dataDirs{dataDir: DefaultDataDir},
		peerURL:      w.cfg.peerURL(name),
		clientURL:    w.cfg.clientURL(name),
		disk:         raft.NewMemoryStorage(),
		electionRand: stream(w.cfg.Seed, "election/"+name),
	}
	attachRoles(m)
	m.memberID = memberID(m.peerURL, w.token(addedAt), addedAt)
	w.members = append(w.members, m)
	w.byName[name] = m
	return m
}

// token is the cluster token a member's ID is computed with: etcd's
// --initial-cluster-token for a bootstrap member, and none for a member
// added at runtime (etcd's MemberAdd passes an empty cluster name).
func (w *World) token(addedAt *Time) string {
	if addedAt != nil {
		return ""
	}
	if w.cfg.ClusterToken == "" {
		return membership.DefaultClusterToken
	}
	return w.cfg.ClusterToken
}

// ClusterID returns etcd's cluster ID.
func (w *World) ClusterID() uint64 { return w.clusterID }

func (w *World) overrideLink(l LinkOverride) {
	from, to := w.byName[l.From].id, w.byName[l.To].id
	apply := func(a, b uint64) {
		p := w.net.Props(a, b)
		if l.Latency != nil {
			p.Latency = *l.Latency
		}
		if l.Loss != nil {
			p.Loss = *l.Loss
		}
		if l.Duplicate != nil {
			p.Duplicate = *l.Duplicate
		}
		w.net.SetProps(a, b, p)
	}
	apply(from, to)
	if !l.OneWay {
		apply(to, from)
	}
}

// Config returns the configuration the world was built from.
func (w *World) Config() Config { return w.cfg }

// Seed returns the seed.
func (w *World) Seed() uint64 { return w.cfg.Seed }

// Now returns the current virtual time.
func (w *World) Now() Time { return w.now }

// Violation returns the safety violation that stopped the world, if any.
func (w *World) Violation() *Violation { return w.safety.violation }

// NextEventAt returns the time of the next scheduled event.
func (w *World) NextEventAt() (Time, bool) {
	_, at, ok := w.sched.next()
	return at, ok
}

// RunUntil processes every event scheduled at or before t and leaves the
// clock at t. It stops early, returning the violation, if a safety invariant
// breaks.
func (w *World) RunUntil(t Time) error {
	w.runEvents(t)
	if v := w.safety.violation; v != nil {
		return v
	}
	if t > w.now {
		w.now = t
	}
	return nil
}

// runEvents processes the events due by t, until a violation (a raft
// assertion that fails is one).
func (w *World) runEvents(t Time) {
	defer w.catchRaftPanic()
	for w.safety.violation == nil {
		where, at, ok := w.sched.next()
		if !ok || at > t {
			break
		}
		if w.snapPruneDue {
			w.pruneSnapshots()
		}
		slot := w.sched.take(where)
		e := &w.sched.slots[slot]
		if e.at < w.now {
			panic(fmt.Sprintf("sim: an event at %s came due at %s (seed=%d)", e.at, w.now, w.cfg.Seed))
		}
		w.now = e.at
		// NB: events scheduled meanwhile may move the slots. e still reads
		// what it did (the old array stays alive), and what is written
		// through it is only read through it: the slot is not read again
		// before it is released.
		w.dispatch(e)
		w.sched.release(slot)
	}
}

// Advance lets d of virtual time pass.
func (w *World) Advance(d time.Duration) error { return w.RunUntil(w.now.Add(d)) }

// StepInstant advances to the next instant at which anything happens and
// processes everything scheduled then.
func (w *World) StepInstant() error {
	t, ok := w.NextEventAt()
	if !ok {
		return nil
	}
	return w.RunUntil(t)
}

func (w *World) dispatch(e *event) {
	switch e.kind {
	case evCompactor:
		w.compactorFires(e)
		return
	case evKeepAlive:
		if e.flag {
			w.keepAliveDeadline(e.op)
		} else {
			w.sendKeepAlive(e.op)
		}
		return
	case evLoad:
		w.loadFires(w.loads[e.peer])
		return
	}
	m := w.members[e.node-1]
	if e.kind == evReplyArrive || e.kind == evClientTimeout || e.kind == evWatchArrive || e.kind == evClientRetry {
		w.clientEvent(e)
		return
	}
	if e.inc != m.inc && e.kind != evDeliver && e.kind != evRequestArrive && e.kind != evPeerArrive {
		return // scheduled for an earlier life of the member
	}
	if e.kind == evPublishRetry && m.ready {
		return // it published in time: nothing to retry
	}
	if m.stalled && e.kind != evStallEnd && e.kind != evTick {
		if e.kind == evDeliver {
			// A message reaches a stalled member's socket, or does not,
			// now: only what arrives waits in the queue.
			if why := w.arrival(m, e); why != netmodel.NotDropped {
				w.drop(e, why)
				return
			}
			if len(m.queue) >= maxStallQueue {
				w.drop(e, netmodel.DropQueue)
				return
			}
			e.arrived = true
		}
		m.queue = append(m.queue, *e)
		return
	}
	w.handle(m, e)
}

func (w *World) handle(m *member, e *event) {
	switch e.kind {
	case evTick:
		if m.up {
			m.tick()
		}
	case evDeliver:
		w.deliver(m, e)
	case evDiskDone:
		m.diskDone()
	case evStallEnd:
		m.stalled = false
		defer w.refreshConnections()
		w.record(Event{Kind: EvFault, Node: m.id, Text: "resumes after its stall"})
		q := m.queue
		m.queue = nil
		for i := range q {
			if qe := &q[i]; qe.inc == m.inc || qe.kind == evDeliver || qe.kind == evRequestArrive || qe.kind == evPeerArrive {
				w.handle(m, qe)
			}
		}
		m.flush()
	case evRequestArrive:
		w.requestArrive(m, e.op, e.flag)
	case evReadRetry:
		m.readRetry(e.op)
	case evTickAdvance:
		m.tickAdvancePoll()
	case evPublishRetry:
		m.publishRetry()
	case evVersionCheck:
		m.monitorClusterVersion()
	case evPeerArrive:
		w.peerArrive(m, e)
	case evPeerReply:
		if m.up && e.op.Status == OpPending {
			w.reply(m, e.op, *e.rep)
		}
	case evPeerRetry:
		if m.up && e.op.Status == OpPending {
			m.serve(e.op)
		}
	case evReportSnapshot:
		if m.up && m.rn != nil {
			status := raft.SnapshotFinish
			if e.flag {
				status = raft.SnapshotFailure
			}
			w.history.newInput(m.id, noMessage)
			m.enter()
			m.rn.ReportSnapshot(e.peer, status)
			m.leave()
			m.flush()
		}
	case evProgressRequest:
		m.progressRequestArrives(e)
	case evProgressTick:
		m.progressTick(e.op)
	case evReportUnreachable:
		if m.up && m.rn != nil {
			w.history.newInput(m.id, noMessage)
			m.enter()
			m.rn.ReportUnreachable(e.peer)
			m.leave()
			m.flush()
		}
	}
}

// send puts a message from m on the network.
func (w *World) send(from *member, msg *pb.Message) {
	to := msg.GetTo()
	if to == 0 || to > uint64(len(w.members)) {
		w.recordSend(from.id, to, msg, w.now, false, true)
		return
	}
	plan := w.net.Send(from.id, to, time.Duration(w.now))
	forwarded := msg.GetType() == pb.MsgProp // a leader appends its own proposals; only others send MsgProp
	id := w.recordSend(from.id, to, msg, Time(plan.ArriveAt), forwarded, false)
	if t := msg.GetType(); t == pb.MsgProp || t == pb.MsgReadIndex {
		w.carriedBySend(id, msg)
	}
	cluster := uint32(from.group) // NB: a delivery's inc is its sender's group, not an incarnation
	if plan.Dropped == netmodel.DropCut {
		w.drop(&event{node: to, peer: from.id, id: id, msg: msg}, netmodel.DropCut)
		return
	}
	e := w.sched.push(Time(plan.ArriveAt))
	e.kind, e.node, e.peer, e.id, e.msg, e.sent, e.inc = evDeliver, to, from.id, id, msg, w.now, cluster
	e.lost = plan.Dropped == netmodel.DropLoss
	// NB: a duplicated MsgProp would be appended twice and its write
	// applied twice. etcd's TCP streams never duplicate, and the point of
	// duplication is raft's own messages, so proposals are never doubled.
	if plan.Duplicate && msg.GetType() != pb.MsgProp {
		dup := proto.Clone(msg).(*pb.Message)
		e := w.sched.push(Time(plan.DupAt))
		e.kind, e.node, e.peer, e.id, e.msg, e.sent, e.inc = evDeliver, to, from.id, id, dup, w.now, cluster
		e.flag = true
	}
}

// drop records that the message of e did not arrive, and tells the sender
// what a real transport would tell it: a MsgSnap failed, a peer is
// unreachable (when the transport can know: a cut or a dead peer, not loss).
func (w *World) drop(e *event, why netmodel.DropReason) {
	w.recordArrival(e.id, why)
	sender, receiver := w.members[e.peer-1], e.node
	if e.msg.GetType() == pb.MsgSnap {
		w.report(evReportSnapshot, sender, receiver).flag = true // failed
	}
	if why != netmodel.DropLoss && why != netmodel.DropQueue {
		w.report(evReportUnreachable, sender, receiver)
	}
}

// report schedules telling sender, now, something about its messages to
// peer (kind: evReportSnapshot or evReportUnreachable).
func (w *World) report(kind evKind, sender *member, peer uint64) *event {
	e := w.sched.after(w.now, 0)
	e.kind, e.node, e.inc, e.peer = kind, sender.id, sender.inc, peer
	return e
}

// arrival says whether e's message reaches m, and if not, why. A message
// that already reached m while it was stalled has arrived: a cut made since
// does not take it back.
func (w *World) arrival(m *member, e *event) netmodel.DropReason {
	switch {
	case e.arrived && !m.up:
		// It reached the stalled process, which then shut down while
		// working through its queue (it applied its own removal): the
		// rest of the queue dies with it, as at a crash.
		return netmodel.DropDown
	case e.arrived:
		return netmodel.NotDropped
	case e.lost:
		return netmodel.DropLoss
	case w.net.IsCut(e.peer, m.id):
		return netmodel.DropCut
	case !m.up:
		return netmodel.DropDown
	case w.groups[e.inc].clusterID != m.clusterID():
		return netmodel.DropClusterMismatch
	case int(e.inc) != m.group && w.groups[m.group].forced:
		// The same cluster ID, another raft group: m's cluster was forced
		// to one member (forcenew.go), and the sender is one it removed.
		return netmodel.DropRemovedMember
	}
	return netmodel.NotDropped
}

func (w *World) deliver(m *member, e *event) {
	w.history.newInput(m.id, int32(e.msg.GetType()))
	if why := w.arrival(m, e); why != netmodel.NotDropped {
		w.drop(e, why)
		return
	}
	w.recordArrival(e.id, netmodel.NotDropped)
	if e.msg.GetType() == pb.MsgSnap {
		w.report(evReportSnapshot, w.members[e.peer-1], m.id)
		m.hold(e.msg.GetSnapshot()) // raft keeps it until it is installed
	}
	m.step(e.msg)
}

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }

// fmtNode returns a member's name, or "node N" for an ID with no member.
func (w *World) fmtNode(id uint64) string {
	if id >= 1 && id <= uint64(len(w.members)) {
		return w.members[id-1].name
	}
	if id == 0 {
		return "none"
	}
	return "node " + itoa(id)
}

func (w *World) describeConf(cs *pb.ConfState) string {
	names := func(ids []uint64) string {
		s := ""
		for i, id := range ids {
			if i > 0 {
				s += ","
			}
			s += w.fmtNode(id)
		}
		return "[" + s + "]"
	}
	out := votersWord + names(cs.GetVoters())
	if len(cs.GetLearners()) > 0 {
		out += learnersWord + names(cs.GetLearners())
	}
	if len(cs.GetVotersOutgoing()) > 0 {
		out += outgoingWord + names(cs.GetVotersOutgoing())
	}
	return out
}

// bug reports whether the world runs with bug b injected.
func (w *World) bug(b Bug) bool {
	return len(w.cfg.Bugs) > 0 && slices.Contains(w.cfg.Bugs, b)
}

// catchRaftPanic, deferred, turns a raft assertion into a violation that
// stops the world. Any other panic goes on.
func (w *World) catchRaftPanic() {
	r := recover()
	if r == nil {
		return
	}
	p, ok := r.(raftPanic)
	if !ok {
		panic(r)
	}
	entropy.current = nil
	w.safety.fail(RaftAssertion, p.member+": "+p.msg)
}
