package sim

import (
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/raft/v3"

	"github.com/raftsim/raftsim/membership"
	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/server"
)

// CommandKind names something done to the world from outside: a fault, an
// operator action, a client request or a caption.
type CommandKind string

// The commands. Their names are the scenario step names.
const (
	CmdCrash           CommandKind = "crash"
	CmdRestart         CommandKind = "restart"
	CmdStall           CommandKind = "stall"
	CmdClock           CommandKind = "clock"
	CmdPartition       CommandKind = "partition"
	CmdIsolate         CommandKind = "isolate"
	CmdCut             CommandKind = "cut"
	CmdRestore         CommandKind = "restore"
	CmdLink            CommandKind = "link"
	CmdHeal            CommandKind = "heal"
	CmdCampaign        CommandKind = "campaign"
	CmdTransferLeader  CommandKind = "transfer_leader"
	CmdAddMember       CommandKind = "add_member"
	CmdPromote         CommandKind = "promote"
	CmdRemoveMember    CommandKind = "remove_member"
	CmdUpdateMember    CommandKind = "update_member"
	CmdMemberList      CommandKind = "member_list"
	CmdAlarmList       CommandKind = "alarm_list"
	CmdAlarmDisarm     CommandKind = "alarm_disarm"
	CmdDefrag          CommandKind = "defrag"
	CmdStart           CommandKind = "start"
	CmdSnapshot        CommandKind = "snapshot"
	CmdPut             CommandKind = "put"
	CmdDelete          CommandKind = "delete"
	CmdGet             CommandKind = "get"
	CmdWatch           CommandKind = "watch"
	CmdCancel          CommandKind = "cancel"
	CmdWatchProgress   CommandKind = "watch_progress"
	CmdTxn             CommandKind = "txn"
	CmdCompact         CommandKind = "compact"
	CmdLeaseGrant      CommandKind = "lease_grant"
	CmdLeaseRevoke     CommandKind = "lease_revoke"
	CmdLeaseKeepAlive  CommandKind = "lease_keepalive"
	CmdLeaseTimeToLive CommandKind = "lease_timetolive"
	CmdLeaseList       CommandKind = "lease_list"
	CmdAuth            CommandKind = "auth"
	CmdDowngrade       CommandKind = "downgrade"
	CmdCaption         CommandKind = "caption"
	CmdLoad            CommandKind = "load"
	// The operator's disaster recovery (restore.go).
	CmdLose            CommandKind = "lose"
	CmdSnapshotSave    CommandKind = "snapshot_save"
	CmdSnapshotRestore CommandKind = "snapshot_restore"
)

// Command is one thing done to the world. Nodes are named, never given as
// "@leader": whoever issues a command resolves references first, so that
// the command log replays exactly.
type Command struct {
	At   Time // set by Do
	Kind CommandKind

	Node   string     // the member acted on; for add_member, the new member's name; for transfer_leader, the transferee
	Groups [][]string // partition

	From, To string // cut, restore, link
	OneWay   bool   // cut, restore, link: only From → To

	For     time.Duration     // stall
	Rate    float64           // clock
	Latency *netmodel.Latency // link
	Loss    *netmodel.Ratio   // link
	Dup     *netmodel.Ratio   // link
	Learner bool              // add_member
	PeerURL string            // add_member, update_member: the member's peer URL ("": http://NAME:2380)
	Start   bool              // add_member: start the new member as soon as its addition is proposed

	Via string // a request: a client, or a member (its local client)
	// External marks a request from a client outside the simulation (the
	// real etcdctl or a clientv3 program, through raftsim serve), sent to
	// the member Via by the client By: the world models the member's side
	// only. Its retries, failover and deadline are the real client's own,
	// each one a command of its own (a cancel for a deadline).
	External bool
	By       string        // with Via a member: who sends, e.g. "etcdctl" (default: the client bound to it, or its local client)
	Timeout  time.Duration // a request: its deadline (etcdctl --command-timeout); 0: the client's
	Label    string
	// Labels: watch_progress's watches, those of one client stream.
	Labels []string

	// Req is a client request (put, delete, get, watch, txn, compact, the
	// lease calls, member list), in etcd's own types.
	Req server.Request
	// Downgrade is a downgrade's Maintenance.Downgrade call (not in Req,
	// which every Op holds: a downgrade's goes to the Op's rare fields).
	Downgrade *etcdserverpb.DowngradeRequest
	// RequireLeader: a watch cancelled when its member loses its leader
	// (clientv3's WithRequireLeader).
	RequireLeader bool
	// Repeat: a lease keep-alive that keeps the lease alive until it is
	// gone or cancelled (clientv3 KeepAlive).
	Repeat bool
	Load   *LoadSpec // load

	Caption string // caption: say, pause or chapter
	Text    string

	// DataDir: restart from this data directory on the member's host
	// (etcd's --data-dir); "" is the one it ran from.
	DataDir string
	// ForceNewCluster: restart as etcd --force-new-cluster does, a cluster
	// of one on the member's data directory (forcenew.go).
	ForceNewCluster bool
	// File: snapshot_save's file, the name a later snapshot_restore finds
	// it by.
	File string
	// Restore: snapshot_restore's flags and, for a file the world did not
	// save itself, what it holds.
	Restore *RestoreSpec
}

// The clock rates a member may run at: a hundred times slower or faster
// than real ticks.
const (
	MinClockRate = 0.01
	MaxClockRate = 100.0
)

// Commands returns every command applied so far, in order, with its time.
// The slice is a copy.
func (w *World) Commands() []Command {
	out := make([]Command, 0, w.CommandCount())
	for _, chunk := range w.cmds {
		for _, c := range chunk {
			out = append(out, c.command())
		}
	}
	return out
}

// CommandCount returns how many commands have been applied so far.
func (w *World) CommandCount() int {
	if len(w.cmds) == 0 {
		return 0
	}
	return (len(w.cmds)-1)*commandChunk + len(w.cmds[len(w.cmds)-1])
}

// commandChunk is how many commands are stored per chunk: a long session
// logs many, and a chunked log never copies what it holds.
const commandChunk = 256

func (w *World) logCommand(c *Command) {
	if len(w.cmds) == 0 || len(w.cmds[len(w.cmds)-1]) == commandChunk {
		w.cmds = append(w.cmds, make([]loggedCommand, 0, commandChunk))
	}
	last := &w.cmds[len(w.cmds)-1]
	*last = append(*last, logged(c))
}

// loggedCommand is a command as the log keeps it. A plain request, by far
// the most common command of a long run, takes a fraction of a Command's
// size; any other command is kept whole.
type loggedCommand struct {
	at            Time
	kind          CommandKind
	via           string
	req           any // the one field of the Request set
	requireLeader bool
	whole         *Command
}

func logged(c *Command) loggedCommand {
	if !c.isPlainRequest() {
		whole := *c
		return loggedCommand{at: c.At, kind: c.Kind, whole: &whole}
	}
	return loggedCommand{at: c.At, kind: c.Kind, via: c.Via, req: c.Req.Message(), requireLeader: c.RequireLeader}
}

func (l loggedCommand) command() Command {
	if l.whole != nil {
		return *l.whole
	}
	return Command{At: l.at, Kind: l.kind, Via: l.via, Req: server.RequestFor(l.req), RequireLeader: l.requireLeader}
}

// isPlainRequest reports whether c is a put, delete, get or watch that
// sets nothing a loggedCommand does not keep. NB: a field added to Command
// must be added here (TestCommandLogKeepsEveryField says which).
func (c *Command) isPlainRequest() bool {
	return (c.Kind == CmdPut || c.Kind == CmdDelete || c.Kind == CmdGet || c.Kind == CmdWatch) &&
		c.Node == "" && c.Groups == nil && c.From == "" && c.To == "" && !c.OneWay && c.For == 0 && c.Rate == 0 &&
		c.Latency == nil && c.Loss == nil && c.Dup == nil && !c.Learner && c.By == "" && c.Timeout == 0 &&
		c.Label == "" && c.Labels == nil && c.Caption == "" && c.Text == "" && !c.Repeat && c.Load == nil &&
		c.PeerURL == "" && !c.Start && !c.External && c.DataDir == "" && !c.ForceNewCluster && c.File == "" && c.Restore == nil && c.Downgrade == nil && server.RequestFor(c.Req.Message()) == c.Req
}

// Do applies c now. Commands that fail change nothing and are not logged.
// For put, delete, get and watch it returns the new operation.
func (w *World) Do(c Command) (*Op, error) {
	if w.safety.violation != nil {
		return nil, w.safety.violation
	}
	op, err := w.doCatching(&c)
	if err != nil {
		return nil, err
	}
	c.At = w.now
	w.logCommand(&c)
	switch c.Kind {
	case CmdCrash, CmdRestart, CmdStart, CmdStall, CmdPartition, CmdIsolate, CmdCut, CmdRestore, CmdHeal, CmdAddMember, CmdLose:
		w.refreshConnections() // who reaches whom may have changed
	}
	if v := w.safety.violation; v != nil {
		return op, v // a raft assertion failed while doing it
	}
	return op, nil
}

// doCatching is do, turning a raft assertion into a violation.
func (w *World) doCatching(c *Command) (*Op, error) {
	defer w.catchRaftPanic()
	return w.do(c)
}

func (w *World) member(name string) (*member, error) {
	m := w.byName[name]
	if m == nil {
		return nil, fmt.Errorf("no member named %q", name)
	}
	return m, nil
}

// do applies c: a dispatcher. The commands on the world come first; the
// rest name a member, which must exist. Each kind that takes more than one
// call has a method of its own below, in the order of these switches.
func (w *World) do(c *Command) (*Op, error) {
	switch c.Kind {
	case CmdCaption:
		w.Caption(c.Caption, c.Text)
		return nil, nil
	case CmdLoad:
		return nil, w.doLoad(c.Load)
	case CmdPut, CmdDelete, CmdGet, CmdWatch, CmdTxn, CmdCompact, CmdLeaseGrant, CmdLeaseRevoke, CmdLeaseKeepAlive,
		CmdLeaseTimeToLive, CmdLeaseList, CmdAuth:
		return w.doRequest(c)
	case CmdCancel:
		return nil, w.cancel(c.Label)
	case CmdWatchProgress:
		return nil, w.watchProgress(c.Labels)
	case CmdPartition:
		return nil, w.doPartition(c.Groups)
	case CmdHeal:
		w.net.HealAll()
		w.fault(0, "heal: every link restored")
		return nil, nil
	case CmdCut, CmdRestore, CmdLink:
		return nil, w.doLink(*c)
	case CmdAddMember, CmdPromote, CmdRemoveMember, CmdUpdateMember, CmdMemberList, CmdAlarmList, CmdAlarmDisarm, CmdDowngrade:
		return w.doMembership(c)
	case CmdSnapshotRestore:
		return nil, w.snapshotRestore(c.Restore)
	}
	m, err := w.member(c.Node)
	if err != nil {
		return nil, err
	}
	switch c.Kind {
	case CmdCrash:
		return nil, w.doCrash(m)
	case CmdRestart:
		return nil, w.doRestart(m, c.DataDir, c.ForceNewCluster)
	case CmdDefrag:
		return nil, w.doDefrag(m)
	case CmdLose:
		return nil, w.doLose(m)
	case CmdSnapshotSave:
		return nil, w.snapshotSave(m, c.File)
	case CmdStall:
		return nil, w.doStall(m, c.For)
	case CmdClock:
		return nil, w.doClock(m, c.Rate)
	case CmdIsolate:
		w.doIsolate(m)
		return nil, nil
	case CmdCampaign:
		return nil, w.doCampaign(m)
	case CmdTransferLeader:
		return nil, w.doTransferLeader(m)
	case CmdStart:
		return nil, w.doStart(m)
	case CmdSnapshot:
		if err := w.needUp(m); err != nil {
			return nil, err
		}
		m.snapshot("manual")
		return nil, nil
	}
	return nil, fmt.Errorf("unknown command %q", c.Kind)
}

// doLoad starts a workload.
func (w *World) doLoad(l *LoadSpec) error {
	if l == nil {
		return fmt.Errorf("load: no workload given")
	}
	if err := w.checkLoad(l); err != nil {
		return err
	}
	w.fault(0, describeLoad(l))
	w.startLoad(*l)
	return nil
}

// doPartition splits the members into groups of named members.
func (w *World) doPartition(named [][]string) error {
	var groups [][]uint64
	for _, g := range named {
		var ids []uint64
		for _, name := range g {
			m, err := w.member(name)
			if err != nil {
				return err
			}
			ids = append(ids, m.id)
		}
		groups = append(groups, ids)
	}
	w.net.Partition(groups)
	w.fault(0, fmt.Sprintf("partition %v", named))
	return nil
}

// doCrash crashes m: its volatile state is lost, its disk kept.
func (w *World) doCrash(m *member) error {
	if !m.up {
		return fmt.Errorf("%s is already down", m.name)
	}
	m.crash()
	w.fault(m.id, "crashes (volatile state lost, disk kept)")
	return nil
}

// doRestart restarts m from its disk, or from dataDir, and with
// forceNewCluster as etcd's --force-new-cluster.
func (w *World) doRestart(m *member, dataDir string, forceNewCluster bool) error {
	if m.up {
		return fmt.Errorf("%s is not down", m.name)
	}
	if m.removed && dataDir == "" {
		return fmt.Errorf("%s was removed from the cluster", m.name)
	}
	if forceNewCluster {
		if err := m.checkForce(dataDir); err != nil {
			return err
		}
	}
	if err := m.useDir(dataDir); err != nil {
		return err
	}
	if dataDir != "" {
		w.fault(m.id, fmt.Sprintf(restartFromText, dataDir))
	} else {
		w.fault(m.id, "restarts from its disk")
	}
	old := -1
	if forceNewCluster {
		old = w.forceNewCluster(m)
	}
	m.start()
	if old >= 0 {
		w.forcedStarted(m, old)
	}
	return nil
}

// doDefrag defragments m's backend, as etcdctl defrag does.
func (w *World) doDefrag(m *member) error {
	if err := w.needUp(m); err != nil {
		return err
	}
	before, after := m.srv.Backend.Defrag(int64(w.now))
	w.fault(m.id, fmt.Sprintf(defragText, before, after))
	return nil
}

// doLose destroys m's host: its process and its disk.
func (w *World) doLose(m *member) error {
	if m.noData && !m.up {
		return fmt.Errorf("%s is lost already", m.name)
	}
	w.destroy(m)
	return nil
}

// doStall freezes m's process for d.
func (w *World) doStall(m *member, d time.Duration) error {
	if !m.up || d <= 0 {
		return fmt.Errorf("cannot stall %s (down, or no duration)", m.name)
	}
	if m.stalled {
		return fmt.Errorf("%s is already stalled", m.name)
	}
	m.stalled = true
	e := w.sched.push(w.now.Add(d))
	e.kind, e.node, e.inc = evStallEnd, m.id, m.inc
	w.fault(m.id, "stalls for "+d.String())
	return nil
}

// doClock makes m's clock run at rate times real time.
func (w *World) doClock(m *member, rate float64) error {
	if !(rate >= MinClockRate && rate <= MaxClockRate) { // also refuses NaN
		return fmt.Errorf("clock rate must be between %g and %g, not %g", MinClockRate, MaxClockRate, rate)
	}
	m.setClockRate(rate)
	w.fault(m.id, fmt.Sprintf("clock runs at %gx", rate))
	return nil
}

// doIsolate cuts m off from every other member.
func (w *World) doIsolate(m *member) {
	var others []uint64
	for _, o := range w.members {
		others = append(others, o.id)
	}
	w.net.Isolate(m.id, others)
	w.fault(m.id, "isolated from every other member")
}

// doCampaign fires m's election timer.
func (w *World) doCampaign(m *member) error {
	if err := w.needUp(m); err != nil {
		return err
	}
	if m.status().state == raft.StateLeader {
		return fmt.Errorf("%s is already the leader", m.name)
	}
	m.enter()
	_ = m.rn.Campaign()
	m.leave()
	w.fault(m.id, "election timer fires (campaign)")
	m.flush()
	return nil
}

// doTransferLeader asks the leader to hand leadership to m.
func (w *World) doTransferLeader(m *member) error {
	lead := w.leader()
	if lead == nil {
		return fmt.Errorf("no leader to transfer leadership from")
	}
	if lead.stalled {
		return fmt.Errorf("the leader, %s, is stalled", lead.name)
	}
	lead.enter()
	lead.rn.TransferLeader(m.id)
	lead.leave()
	w.fault(lead.id, "asked to transfer leadership to "+m.name)
	lead.flush()
	return nil
}

// doStart runs a member that has never run (add_member's start: false).
func (w *World) doStart(m *member) error {
	switch {
	case m.removed:
		return fmt.Errorf("%s was removed from the cluster", m.name)
	case m.started:
		return fmt.Errorf("%s has run before: restart it", m.name)
	}
	w.fault(m.id, startText)
	w.startMember(m)
	return nil
}

// doMembership starts a Cluster API call (or an alarm list) as a client
// request: from Via (a client, or a member's local client; by default
// from the leader's, or else the first member up). member add creates the
// new member, unstarted.
func (w *World) doMembership(c *Command) (*Op, error) {
	switch c.Kind {
	case CmdAddMember:
		if t, ok := w.byName[c.Node]; ok && !(t.noData && !t.up) {
			// (A host lost for good may be replaced: renewHost.)
			return nil, fmt.Errorf("a member named %q exists already", c.Node)
		}
		if w.client(c.Node) != nil {
			return nil, fmt.Errorf("%q is the name of a client", c.Node)
		}
		if c.PeerURL != "" && membership.CheckURLs([]string{c.PeerURL}) != nil {
			return nil, membership.ErrBadURLs
		}
	case CmdPromote, CmdRemoveMember, CmdUpdateMember:
		t, err := w.member(c.Node)
		if err != nil {
			return nil, err
		}
		if t.removed {
			return nil, fmt.Errorf("%s was removed from the cluster", t.name)
		}
	}
	if c.Via == "" {
		from := w.leader()
		for _, m := range w.members {
			if from == nil && m.up {
				from = m
			}
		}
		if from == nil {
			return nil, fmt.Errorf("no member is up to take the request")
		}
		c.Via = from.name
	}
	return w.doRequest(c)
}

// needUp refuses to drive a member that is down or frozen: a stalled
// process cannot campaign or snapshot until it resumes.
func (w *World) needUp(m *member) error {
	if !m.up {
		return fmt.Errorf("%s is down", m.name)
	}
	if m.stalled {
		return fmt.Errorf("%s is stalled", m.name)
	}
	return nil
}

func (w *World) doLink(c Command) error {
	from, err := w.member(c.From)
	if err != nil {
		return err
	}
	to, err := w.member(c.To)
	if err != nil {
		return err
	}
	dir := "both ways"
	if c.OneWay {
		dir = "one way"
	}
	pairs := [][2]uint64{{from.id, to.id}}
	if !c.OneWay {
		pairs = append(pairs, [2]uint64{to.id, from.id})
	}
	for _, p := range pairs {
		switch c.Kind {
		case CmdCut:
			w.net.Cut(p[0], p[1])
		case CmdRestore:
			w.net.Restore(p[0], p[1])
		case CmdLink:
			props := w.net.Props(p[0], p[1])
			if c.Latency != nil {
				props.Latency = *c.Latency
			}
			if c.Loss != nil {
				props.Loss = *c.Loss
			}
			if c.Dup != nil {
				props.Duplicate = *c.Dup
			}
			w.net.SetProps(p[0], p[1], props)
		}
	}
	w.fault(0, fmt.Sprintf("%s %s → %s (%s)", c.Kind, from.name, to.name, dir))
	return nil
}

func (w *World) doRequest(c *Command) (*Op, error) {
	client, via := c.Via, uint64(0)
	if w.client(c.Via) == nil {
		m, err := w.member(c.Via)
		if err != nil {
			return nil, fmt.Errorf("no client or member named %q", c.Via)
		}
		client = w.localClient(m)
		if c.By != "" {
			client = c.By
		}
		via = m.id
	}
	if c.Label != "" && w.Op(c.Label) != nil {
		return nil, fmt.Errorf("the label %q is taken", c.Label)
	}
	if err := w.hostDown(client, via, c.By, c.External); err != nil {
		return nil, err
	}
	op := &Op{Label: c.Label, Client: client, via: via, external: c.External, timeout: c.Timeout, Req: c.Req,
		RequireLeader: c.RequireLeader, Kind: c.Kind.opKind()}
	if op.Kind.isClusterOrAlarm() {
		st := op.rare()
		st.target, st.learner, st.peerURL, st.startAdded = c.Node, c.Learner, c.PeerURL, c.Start
		if op.Kind == OpDowngrade {
			if c.Downgrade == nil {
				return nil, fmt.Errorf("%s: no request given", c.Kind)
			}
			st.downgrade = c.Downgrade
		}
	}
	switch k := kindOf(&c.Req); {
	case k == op.Kind, k == 0 && op.Kind.isClusterOrAlarm():
	case k == 0:
		return nil, fmt.Errorf("%s: no request given", c.Kind)
	default:
		return nil, fmt.Errorf("%s: the request given is a %s", c.Kind, k)
	}
	if op.Kind == OpMemberList && op.Req.MemberList == nil {
		op.Req.MemberList = &etcdserverpb.MemberListRequest{Linearizable: true}
	}
	if c.Kind == CmdLeaseKeepAlive && c.Repeat {
		w.startKeepAlive(op)
		return op, nil
	}
	w.submit(op)
	return op, nil
}

// cancel is the client giving up on an operation: a request it no longer
// waits for (its outcome is then unknown), or a watch it closes.
func (w *World) cancel(label string) error {
	op := w.Op(label)
	if op == nil {
		return fmt.Errorf("no operation labelled %q", label)
	}
	open := op.Status == OpPending || op.isStream() && op.Status == OpOK
	if !open {
		return fmt.Errorf("%s has already ended (%s)", label, op.Status)
	}
	for _, m := range w.members {
		m.srv.Watches.Cancel(op)
	}
	op.Status, op.Err, op.Canceled = OpError, "context canceled", true
	w.markEnd(op)
	w.record(Event{Kind: EvReply, Op: op.ID, Node: w.endpointOf(op), Text: "canceled by the client"})
	return nil
}

// localClient names the client a request "via a member" comes from: the
// client bound to that member alone (a stacked kube-apiserver on its host)
// if there is one, else the member's own local client, named after it.
func (w *World) localClient(m *member) string {
	for _, c := range w.clients {
		if len(c.endpoints) == 1 && c.endpoints[0] == m.id {
			return c.cfg.Name
		}
	}
	return m.name
}

func (w *World) fault(node uint64, text string) {
	w.record(Event{Kind: EvFault, Node: node, Text: text})
}

// leader returns the up member in StateLeader with the highest term.
func (w *World) leader() *member {
	var best *member
	for _, m := range w.members {
		if !m.up || m.rn == nil {
			continue
		}
		if st := m.status(); st.state == raft.StateLeader && (best == nil || st.term > best.status().term) {
			best = m
		}
	}
	return best
}

// MemberNames returns every member's name, in ID order (removed ones too).
func (w *World) MemberNames() []string {
	names := make([]string, len(w.members))
	for i, m := range w.members {
		names[i] = m.name
	}
	return names
}

// Replay rebuilds a world from its configuration and command log, up to
// until. It is how a view of an earlier time is made: the same config and
// commands give the same world.
func Replay(cfg Config, cmds []Command, until Time) (*World, error) {
	return replay(cfg, cmds, until, false)
}

// ReplayWhy is Replay with raft's reasons captured (SetWhy) from the
// start: the same world, its events citing raft's source. The window makes
// one when a "why" card opens, so that a world drawn live pays nothing for
// citations until one is asked for.
func ReplayWhy(cfg Config, cmds []Command, until Time) (*World, error) {
	return replay(cfg, cmds, until, true)
}

func replay(cfg Config, cmds []Command, until Time, why bool) (*World, error) {
	w, err := New(cfg)
	if err != nil {
		return nil, err
	}
	w.SetWhy(why)
	for _, c := range cmds {
		if c.At > until {
			break
		}
		if err := w.RunUntil(c.At); err != nil {
			return w, err
		}
		if _, err := w.Do(c); err != nil {
			return w, fmt.Errorf("replaying %s at %s: %w", c.Kind, c.At, err)
		}
	}
	return w, w.RunUntil(until)
}

// opKind is the operation a request command starts.
func (k CommandKind) opKind() OpKind {
	switch k {
	case CmdPut:
		return OpPut
	case CmdDelete:
		return OpDelete
	case CmdGet:
		return OpGet
	case CmdWatch:
		return OpWatch
	case CmdTxn:
		return OpTxn
	case CmdCompact:
		return OpCompact
	case CmdLeaseGrant:
		return OpLeaseGrant
	case CmdLeaseRevoke:
		return OpLeaseRevoke
	case CmdLeaseKeepAlive:
		return OpLeaseKeepAlive
	case CmdLeaseTimeToLive:
		return OpLeaseTimeToLive
	case CmdLeaseList:
		return OpLeaseLeases
	case CmdAuth:
		return OpAuth
	case CmdAddMember:
		return OpMemberAdd
	case CmdRemoveMember:
		return OpMemberRemove
	case CmdPromote:
		return OpMemberPromote
	case CmdUpdateMember:
		return OpMemberUpdate
	case CmdMemberList:
		return OpMemberList
	case CmdAlarmList:
		return OpAlarmList
	case CmdAlarmDisarm:
		return OpAlarmDisarm
	case CmdDowngrade:
		return OpDowngrade
	}
	return 0
}

// CommandsFrom returns the commands applied after the first n, in order:
// what a log written as it grows has yet to write. The slice is a copy.
func (w *World) CommandsFrom(n int) []Command {
	total := w.CommandCount()
	if n < 0 {
		n = 0
	}
	if n >= total {
		return nil
	}
	out := make([]Command, 0, total-n)
	for i := n; i < total; i++ {
		out = append(out, w.cmds[i/commandChunk][i%commandChunk].command())
	}
	return out
}

// AddMemberNames returns the names that the add_member commands applied so
// far gave, refused ones too, in order: a name a replay would find taken.
func (w *World) AddMemberNames() []string {
	var out []string
	for _, chunk := range w.cmds {
		for i := range chunk {
			if c := chunk[i].whole; c != nil && c.Kind == CmdAddMember {
				out = append(out, c.Node)
			}
		}
	}
	return out
}
