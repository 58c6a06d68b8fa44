package sim

import (
	"fmt"
	"math/rand/v2"
	"time"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/membership"
	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/server"
)

// member is one etcd member: a raft RawNode, its disk (a MemoryStorage that
// survives crashes), and its KV state machine (volatile, rebuilt from the
// snapshot on restart).
type member struct {
	w        *World
	id       uint64 // raft ID: 1, 2, 3... in the order members joined
	memberID uint64 // etcd's member ID, as etcdctl shows it
	group    int    // its raft group (groups.go): an index in World.groups
	name     string
	// The URLs it advertises.
	peerURL, clientURL string

	inc     uint32 // incarnation: bumped by a crash, so stale events are ignored
	up      bool
	removed bool // removed from the cluster and shut down
	stalled bool
	queue   []event // input that arrived while stalled

	electionRand *rand.Rand
	timeoutTicks int // the randomized election timeout raft drew last

	rn      *raft.RawNode
	disk    *raft.MemoryStorage
	conf    *pb.ConfState
	cluster membership.Cluster // the membership it has applied (etcd's RaftCluster)
	applied uint64

	// rn's status, cached (status.go); enter and leave clear statusValid.
	st          raftStatus
	statusValid bool

	// What the member has persisted, mirrored for checks and display.
	hard pb.HardState
	soft raft.SoftState
	log  entryLog // the entries as persisted
	snap entryID  // the last snapshot's index, term and chain hash

	diskBusy bool // a write is in progress (disk latency); its Ready waits
	pending  raft.Ready

	lastRole    roleSeen // the role the history recorded last
	commitSeen  uint64   // the commit index the history recorded last
	leaderTerm  uint64   // the term in which this member last led
	leaderHigh  uint64   // the highest index it persisted as leader in leaderTerm
	checkLeader bool     // Leader Completeness still to check for leaderTerm

	// leadElected is when it last became leader (etcd's leadElectedTime);
	// 0: never in this life of the process.
	leadElected Time
	// peers is its transport's view of each peer, by raft ID.
	peers []peerConn
	// started: its process has run; a member added at runtime has not until
	// the operator starts it.
	started bool
	// srv is its server layer: the KV, the backend, the waits, watches,
	// reads, held calls, the lessor loop and its request IDs.
	srv serverMember

	// Its roles (each in the file of its name), which own their state.
	memberClock // its own clock and ticker (clock.go)
	snapshotter // its raft snapshots (snapshot.go)
	confChanges // its part in changing the cluster's configuration (reconfig.go)
	dataDirs    // the data directories on its host (datadir.go)
	serverBoot  // what etcd's server does beside raft as it starts and runs (boot.go)
	bugHooks    // the injected bugs' hooks (bugs.go)
}

// attachRoles points a new member's roles at it.
func attachRoles(m *member) *member {
	m.memberClock.m, m.snapshotter.m, m.confChanges.m = m, m, m
	m.dataDirs.m, m.serverBoot.m, m.bugHooks.m = m, m, m
	return m
}

// serverMember is a member's server layer, with the member's handles on a
// call, a read and a held keep-alive.
type serverMember = server.Member[*Op, readOp, leaseWait]

// logEntry is the mirror of one persisted entry: what the safety checks
// need. It holds no pointers, so that the garbage collector never scans a
// long log.
type logEntry struct {
	Term  uint64
	Chain uint64 // a hash of this entry and every entry before it
	Type  pb.EntryType
}

type entryID struct{ Index, Term, Chain uint64 }

// chain extends the hash of a log by one entry. It is FNV-1a, fixed, so that
// even a (vanishingly unlikely) collision would reproduce from the seed.
// (hash/fnv computes the same, but costs an allocation per entry.)
func chain(prev, term uint64, typ pb.EntryType, data []byte) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for i := 0; i < 64; i += 8 {
		h = (h ^ uint64(byte(prev>>i))) * prime
	}
	for i := 0; i < 64; i += 8 {
		h = (h ^ uint64(byte(term>>i))) * prime
	}
	h = (h ^ uint64(byte(typ))) * prime
	for _, c := range data {
		h = (h ^ uint64(c)) * prime
	}
	return h
}

func (m *member) lastIndex() uint64 { return m.log.last() }

// entryAt returns the mirror's entry at index i, if the log holds it.
func (m *member) entryAt(i uint64) (entryID, bool) {
	if i == m.snap.Index {
		return m.snap, true
	}
	if i < m.log.first || i > m.lastIndex() {
		return entryID{}, false
	}
	e := m.log.at(i)
	return entryID{Index: i, Term: e.Term, Chain: e.Chain}, true
}

// enter makes m the member whose stream answers raft's entropy reads.
// Both drop m's cached status: the call into raft between them may change
// it (see status.go).
func (m *member) enter() { entropy.current, m.statusValid = m, false }
func (m *member) leave() { entropy.current, m.statusValid = nil, false }

func (m *member) raftConfig() *raft.Config {
	c := m.w.cfg
	ro := raft.ReadOnlySafe
	if c.ReadOnlyLease {
		ro = raft.ReadOnlyLeaseBased
	}
	return &raft.Config{
		ID:                        m.id,
		ElectionTick:              c.ElectionTicks,
		HeartbeatTick:             c.HeartbeatTicks,
		Storage:                   m.disk,
		Applied:                   m.snap.Index,
		MaxSizePerMsg:             c.MaxSizePerMsg,
		MaxInflightMsgs:           c.MaxInflightMsgs,
		MaxUncommittedEntriesSize: 1 << 30, // etcd's default
		CheckQuorum:               c.CheckQuorum,
		PreVote:                   c.PreVote,
		ReadOnlyOption:            ro,
		DisableProposalForwarding: c.DisableProposalForwarding,
		StepDownOnRemoval:         true,
		Logger:                    raftLogger{m},
	}
}

// start (re)creates the RawNode over the disk, as a restarted etcd does:
// applied is the snapshot's index and the KV is the snapshot's; raft hands
// back the committed entries after it to be applied again.
func (m *member) start() {
	m.up, m.stalled, m.diskBusy, m.started = true, false, false, true
	m.queue = nil
	m.srv.Wait, m.confOrigins = server.Wait[*Op]{}, map[uint64]*member{}
	m.srv.Unready, m.srv.Held, m.srv.Reads, m.srv.Watches, m.srv.LeaseWaits = server.Held[*Op]{}, server.Held[*Op]{}, server.Reads[readOp]{}, server.Watches[*Op]{}, server.HeldKeepAlives[leaseWait]{}
	m.ticks, m.srv.LeaderMonitor = 0, server.LeaderMonitor{}
	// etcd's ID generator starts from the time the server starts, in ms.
	m.srv.IDs = server.NewIDGen(m.memberID, uint64(m.w.now/Time(time.Millisecond)))
	snap, _ := m.disk.Snapshot()
	if err := m.restoreData(snap.GetData()); err != nil {
		panic("sim: " + m.name + ": " + err.Error())
	}
	m.applied = m.snap.Index
	hs, cs, _ := m.disk.InitialState()
	m.conf = cs
	m.hard = pb.HardState{Term: new(hs.GetTerm()), Vote: new(hs.GetVote()), Commit: new(hs.GetCommit())}
	m.commitSeen = hs.GetCommit()
	m.soft, m.lastRole = raft.SoftState{}, roleSeen{}
	m.enter()
	rn, err := raft.NewRawNode(m.raftConfig())
	m.leave()
	if err != nil {
		panic("sim: " + m.name + ": " + err.Error())
	}
	m.rn = rn
	// Processes start at different moments, so their tickers are out of
	// phase (memberClock.startTicking).
	m.startTicking()
	m.boot()
	// raft hands back the committed entries after the snapshot (at a
	// fresh start, the bootstrap configuration changes) at once.
	m.flush()
}

// crash loses everything volatile: the RawNode, the KV, pending requests and
// a write still in progress. The disk stays.
func (m *member) crash() {
	m.loseUnsynced() // only with BugLoseUnsynced (bugs.go)
	m.up, m.stalled, m.diskBusy, m.confSnapDue = false, false, false, false
	m.inc++
	m.rn, m.srv.KV = nil, nil
	m.pending = raft.Ready{}
	// Messages that reached the frozen process die with it: each is a drop
	// its sender's transport notices (a MsgSnap must be reported failed, or
	// the leader waits for it for ever).
	queue := m.queue
	m.queue = nil
	for i := range queue {
		if e := &queue[i]; e.kind == evDeliver && !e.lost {
			m.w.drop(e, netmodel.DropDown)
		}
	}
	// The connections break. Requests that cannot have taken effect (reads,
	// and writes still held for a leader) fail as refused, so a client with
	// more endpoints retries them elsewhere, as clientv3 does. Writes
	// already proposed may yet commit: their clients wait and time out.
	const eof = errConnBroken
	m.srv.Watches.All(func(op *Op) { m.w.reply(m, op, reply{status: OpError, err: eof}) })
	for _, op := range m.srv.Unready.Release() {
		m.w.reply(m, op, reply{status: OpError, err: eof, refused: true})
	}
	for _, r := range m.srv.Reads.All() {
		m.w.reply(m, r.Op, reply{status: OpError, err: eof, refused: true})
	}
	for _, op := range m.srv.Held.Release() {
		m.w.reply(m, op, reply{status: OpError, err: eof, refused: true})
	}
	m.srv.LeaseWaits.All(func(lw leaseWait) {
		if lw.origin == m {
			m.w.reply(m, lw.op, reply{status: OpError, err: eof, refused: true})
		}
	})
	m.srv.Wait, m.confOrigins, m.srv.Reads, m.srv.Watches, m.srv.LeaseWaits = server.Wait[*Op]{}, nil, server.Reads[readOp]{}, server.Watches[*Op]{}, server.HeldKeepAlives[leaseWait]{}
	m.soft, m.lastRole, m.leadElected = raft.SoftState{}, roleSeen{}, 0
}

func (m *member) tick() {
	m.nextTick()
	if m.stalled {
		return // a frozen process misses its ticks
	}
	m.w.history.newInput(m.id, noMessage)
	m.enter()
	m.rn.Tick()
	m.leave()
	m.ticks++
	if m.ticks%m.w.cfg.ElectionTicks == 0 {
		m.srv.PollLeader(m.soft.Lead != 0)
	}
	if m.soft.RaftState == raft.StateLeader {
		m.expireLeases()
	}
	m.flush()
}

func (m *member) step(msg *pb.Message) {
	m.enter()
	kept := m.keepTimer(msg) // only with TimerRuleLogCabin (timerrule.go)
	_ = m.rn.Step(msg)       // errors are stale or foreign messages, which raft ignores
	kept.restore(m)
	m.leave()
	m.flush()
}

// flush handles every Ready raft has, in the order DESIGN.md gives. With
// disk latency, a Ready that writes waits for its write before any of it
// (messages included) takes effect, and no further Ready is taken meanwhile.
func (m *member) flush() {
	for m.up && !m.stalled && !m.diskBusy && !m.removed {
		m.enter()
		if !m.rn.HasReady() {
			m.leave()
			m.snapHeld = m.snapHeld[:0] // raft holds no message and no snapshot now
			return
		}
		rd := m.rn.Ready()
		m.leave()
		if m.w.cfg.DiskLatency > 0 && (len(rd.Entries) > 0 || rd.HardState != nil || !raft.IsEmptySnap(rd.Snapshot)) {
			m.diskBusy = true
			if rd.SoftState != nil && rd.SoftState.RaftState == raft.StateLeader ||
				rd.SoftState == nil && m.soft.RaftState == raft.StateLeader {
				m.sendBeforeWriting(&rd)
			} else {
				m.ackBeforePersist(&rd) // only with BugAckBeforePersist (bugs.go)
			}
			m.applyBeforeWriting(&rd)
			if !m.up || m.removed {
				return // it applied its own removal
			}
			m.pending = rd
			e := m.w.sched.after(m.w.now, Time(m.w.cfg.DiskLatency))
			e.kind, e.node, e.inc = evDiskDone, m.id, m.inc
			return
		}
		m.handleReady(&rd)
	}
}

// sendBeforeWriting is what etcd's raftNode does for a leader (raft thesis
// §10.2.1): it sends the Ready's messages first and writes to its disk
// while they travel, so that replication and its own write overlap. (A
// follower writes first and only then acknowledges.) The leader's own
// vote for its new entries still waits for its write: raft counts it only
// once the Ready is advanced. The role the Ready announces is recorded at
// once, since it is not something written to the disk.
func (m *member) sendBeforeWriting(rd *raft.Ready) {
	if rd.SoftState != nil {
		term, vote := m.hard.GetTerm(), m.hard.GetVote()
		if rd.HardState != nil {
			term, vote = rd.HardState.GetTerm(), rd.HardState.GetVote()
		}
		m.setSoft(*rd.SoftState)
		rd.SoftState = nil
		if m.leaderTerm != term {
			m.leaderTerm, m.leaderHigh, m.checkLeader = term, 0, true
			m.safety().leader(m.id, term)
		}
		m.recordRoleAt(term, vote)
	}
	for _, msg := range rd.Messages {
		m.w.send(m, msg)
	}
	rd.Messages = nil
}

// applyBeforeWriting applies the Ready's committed entries that are
// already on the member's disk, and takes its read states, while the write
// proceeds: etcd's raftNode hands committed entries to the apply loop
// before it saves the Ready, so that a commit index still being written
// does not hold up the answer. Entries of this very Ready (a follower may
// learn that they are committed as it receives them) are applied once
// written.
func (m *member) applyBeforeWriting(rd *raft.Ready) {
	if rd.HardState != nil {
		m.noteCommit(rd.HardState.GetCommit(), rd.HardState.GetTerm())
	}
	n := 0
	for n < len(rd.CommittedEntries) && m.onDisk(rd.CommittedEntries[n]) {
		n++
	}
	if n > 0 {
		m.apply(rd.CommittedEntries[:n])
		rd.CommittedEntries = rd.CommittedEntries[n:]
	}
	if m.removed {
		return
	}
	for _, rs := range rd.ReadStates {
		m.srv.Reads.ReadState(rs.RequestCtx, rs.Index)
	}
	rd.ReadStates = nil
	m.serveReads()
}

// onDisk reports whether the member's disk holds e as it is. NB: an index
// the disk holds may hold another term's entry, which this very Ready is
// about to overwrite (a deposed leader's uncommitted tail): that entry is
// not on the disk yet (found by raftsim swarm, seed 34).
func (m *member) onDisk(e *pb.Entry) bool {
	d, ok := m.entryAt(e.GetIndex())
	return ok && d.Term == e.GetTerm()
}

// noteCommit records that the member has learnt commit index c, once.
func (m *member) noteCommit(c, term uint64) {
	if c > m.commitSeen {
		m.commitSeen = c
		m.noteCommitWhy(c, term)
		m.w.record(Event{Kind: EvCommit, Node: m.id, Index: c, Term: term})
	}
}

func (m *member) diskDone() {
	rd := m.pending
	m.pending = raft.Ready{}
	m.diskBusy = false
	m.handleReady(&rd)
	m.flush()
}

func (m *member) handleReady(rd *raft.Ready) {
	w := m.w
	m.noteWrite(rd) // only with BugLoseUnsynced (bugs.go)
	if !raft.IsEmptySnap(rd.Snapshot) {
		m.installSnapshot(rd.Snapshot)
	}
	if len(rd.Entries) > 0 {
		if err := m.disk.Append(rd.Entries); err != nil {
			panic("sim: append: " + err.Error())
		}
		m.persist(rd.Entries, rd.SoftState)
	}
	roleChanged := false
	if rd.HardState != nil {
		if err := m.disk.SetHardState(m.durableHardState(rd.HardState)); err != nil {
			panic("sim: hard state: " + err.Error())
		}
		if rd.HardState.GetTerm() != m.hard.GetTerm() || rd.HardState.GetVote() != m.hard.GetVote() {
			roleChanged = true
		}
		prevCommit := m.hard.GetCommit()
		m.hard = pb.HardState{Term: new(rd.HardState.GetTerm()), Vote: new(rd.HardState.GetVote()), Commit: new(rd.HardState.GetCommit())}
		if c := m.hard.GetCommit(); c > prevCommit {
			m.noteCommit(c, m.hard.GetTerm())
			m.safety().commit(m, prevCommit, c)
		}
	}
	if rd.SoftState != nil {
		if rd.SoftState.RaftState != m.soft.RaftState || rd.SoftState.Lead != m.soft.Lead {
			roleChanged = true
		}
		if m.soft.RaftState == raft.StateLeader && rd.SoftState.RaftState != raft.StateLeader {
			m.srv.LeaseLoop.Demote(m.srv.KV) // only the leader's lessor expires leases
		}
		m.setSoft(*rd.SoftState)
		if m.soft.RaftState == raft.StateLeader && m.leaderTerm != m.hard.GetTerm() {
			m.leaderTerm, m.leaderHigh, m.checkLeader = m.hard.GetTerm(), 0, true
			m.safety().leader(m.id, m.hard.GetTerm())
		}
		if roleChanged {
			m.recordRole()
			roleChanged = false
		}
	}
	if roleChanged {
		m.recordRole()
	}
	if m.checkLeader && m.soft.RaftState == raft.StateLeader {
		m.checkLeader = false
		m.safety().completeness(m)
	}
	for _, msg := range rd.Messages {
		w.send(m, msg)
	}
	if len(rd.CommittedEntries) > 0 {
		m.apply(rd.CommittedEntries)
	}
	m.takeDueSnapshot()
	for _, rs := range rd.ReadStates {
		m.srv.Reads.ReadState(rs.RequestCtx, rs.Index)
	}
	if m.removed {
		return // it shut itself down while applying its own removal
	}
	m.applyUncommitted(rd.Entries) // only with BugApplyUncommitted (bugs.go)
	m.enter()
	m.rn.Advance(*rd)
	m.leave()
	m.serveReads()
	m.afterAdvance()
}

func (m *member) recordRole() { m.recordRoleAt(m.hard.GetTerm(), m.hard.GetVote()) }

// recordRoleAt records the member's role in term, having voted for vote,
// unless that is what it recorded last.
func (m *member) recordRoleAt(term, vote uint64) {
	r := roleSeen{m.soft.RaftState, term, m.soft.Lead, vote}
	if r == m.lastRole {
		return
	}
	m.lastRole = r
	m.w.record(Event{Kind: EvRole, Node: m.id, Role: r.state, Term: term, Lead: r.lead, Peer: vote})
}

// roleSeen is a role as the history last recorded it.
type roleSeen struct {
	state      raft.StateType
	term, lead uint64
	vote       uint64
}

// persist mirrors entries just written to the disk and checks them.
func (m *member) persist(ents []*pb.Entry, soft *raft.SoftState) {
	first := ents[0].GetIndex()
	isLeader := m.soft.RaftState == raft.StateLeader
	if soft != nil {
		isLeader = soft.RaftState == raft.StateLeader
	}
	if isLeader && m.leaderTerm == m.hard.GetTerm() && m.leaderHigh != 0 && first <= m.leaderHigh {
		m.w.safety.fail("Leader Append-Only", fmt.Sprintf(overwroteText, m.w.fmtNode(m.id), first, m.leaderTerm))
	}
	if first < m.log.first {
		m.w.safety.fail("Log Matching", fmt.Sprintf(belowSnapshotText, m.w.fmtNode(m.id), first))
		return
	}
	if first <= m.lastIndex() {
		m.log.truncate(first) // raft truncated a conflicting suffix
	}
	prev, ok := m.entryAt(first - 1)
	if !ok {
		m.w.safety.fail("Log Matching", fmt.Sprintf(gapText, m.w.fmtNode(m.id), first))
		return
	}
	h := prev.Chain
	for _, e := range ents {
		h = chain(h, e.GetTerm(), e.GetType(), e.GetData())
		m.log.append(logEntry{Term: e.GetTerm(), Chain: h, Type: e.GetType()})
		m.safety().logMatching(m, e.GetIndex(), e.GetTerm(), h)
	}
	if m.w.cfg.CountReplicasCommit {
		for _, e := range ents {
			m.safety().countCommit(m, e.GetIndex())
		}
	}
	if isLeader && m.leaderTerm == m.hard.GetTerm() {
		m.leaderHigh = m.lastIndex()
	}
	if isLeader {
		m.appendedByLeader(ents)
	}
	m.noteAppendWhy(isLeader, m.lastIndex(), ents[len(ents)-1].GetTerm())
	m.w.record(Event{Kind: EvPersist, Node: m.id, Index: m.lastIndex(), N: len(ents), Term: ents[len(ents)-1].GetTerm()})
}

func (m *member) apply(ents []*pb.Entry) {
	w := m.w
	applied := 0
	for _, e := range ents {
		idx := e.GetIndex()
		if idx <= m.applied {
			continue
		}
		applied++
		id, _ := m.entryAt(idx)
		m.safety().apply(m, id)
		m.applied = idx
		switch e.GetType() {
		case pb.EntryNormal:
			m.applyEntry(e.GetData()) // a new leader's empty entry too: its first commit in the term
		case pb.EntryConfChange, pb.EntryConfChangeV2:
			m.applyConfChange(e)
			if m.removed {
				return
			}
		}
		if n := w.cfg.SnapshotEvery; n > 0 && m.applied-m.snap.Index >= n {
			m.snapshot("automatic")
		}
	}
	if applied > 0 {
		last := ents[len(ents)-1]
		w.record(Event{Kind: EvApply, Node: m.id, Index: m.applied, Term: last.GetTerm(), N: applied})
	}
}

// serve starts a client request that has reached this member: after
// etcd's quota check, it carries out what the server layer decides
// (server.Admit, then server.Route).
func (m *member) serve(op *Op) {
	if op.Status != OpPending {
		return
	}
	if m.overQuota(op) {
		m.w.reply(m, op, reply{status: OpError, err: server.ErrNoSpace})
		return
	}
	c, r := server.Call{Kind: op.Kind.call(), Req: &op.Req, RequireLeader: op.RequireLeader}, m.role()
	if why := server.Admit(c, r); why != "" {
		m.w.reply(m, op, reply{status: OpError, err: why})
		return
	}
	if why := m.strictCheck(op); why != "" {
		m.w.reply(m, op, reply{status: OpError, err: why})
		return
	}
	switch server.Route(c, r) {
	case server.Hold:
		m.srv.Held.Hold(op)
	case server.Propose:
		m.propose(op)
	case server.ProposeCluster:
		m.proposeMembership(op, nil)
	case server.ReadLocal:
		m.w.reply(m, op, m.answerRead(op))
	case server.ReadIndex:
		m.srv.Reads.Add(readOp{op})
		m.readIndex(op)
	case server.OpenWatch:
		m.startWatch(op)
	case server.AtLeader:
		m.atLeader(op, m)
	case server.ToLeader:
		m.w.peerSend(m, m.w.members[m.soft.Lead-1], op, nil)
	case server.ListLeases:
		m.w.reply(m, op, reply{status: OpOK, rev: m.srv.KV.Store.Rev(), resp: server.Response{LeaseLeases: m.srv.KV.Leases()}})
	}
}

// role is what the member knows of itself that decides a call's way.
func (m *member) role() server.Role {
	return server.Role{Learner: m.isLearner(), Leader: m.soft.RaftState == raft.StateLeader,
		LeaderKnown: m.soft.Lead != 0, StaleReads: m.w.bug(BugStaleLocalRead)}
}

// answerRead answers a read (a get, or a transaction that writes nothing)
// from the local state.
func (m *member) answerRead(op *Op) reply {
	switch op.Kind {
	case OpTxn:
		return m.read(op)
	case OpMemberList:
		return reply{status: OpOK, members: m.w.clusterMembers(m), applied: m.applied}
	}
	return m.read(op)
}

// setSoft takes the role and leader a Ready announces. When it learns of a
// new leader (one it did not know just before, even after a spell with
// none), etcd's linearizable read loop gives up on the read index it is
// waiting for (requestCurrentIndex) and fails the reads waiting on it with
// "leader changed"; reads whose read index is known keep waiting for their
// apply.
func (m *member) setSoft(ss raft.SoftState) {
	newLeader := ss.Lead != raft.None && ss.Lead != m.soft.Lead
	m.soft = ss
	if newLeader && ss.RaftState == raft.StateLeader {
		m.leadElected = m.w.now
	}
	if !newLeader {
		return
	}
	m.srv.Reads.LeaderChanged(func(r readOp) { m.w.reply(m, r.Op, reply{status: OpError, err: server.ErrLeaderChanged}) })
}

// readIndex asks raft for a read index, and asks again every 500ms until
// it gets one, as etcd's linearizable read loop does: a ReadIndex at a
// member that knows no leader is dropped silently.
func (m *member) readIndex(op *Op) {
	m.enter()
	m.rn.ReadIndex(server.ReadCtx(op.ID))
	m.leave()
	e := m.w.sched.after(m.w.now, Time(readIndexRetry))
	e.kind, e.node, e.inc, e.op = evReadRetry, m.id, m.inc, op
	m.flush()
}

func (m *member) readRetry(op *Op) {
	if m.srv.Reads.NeedsIndex(readOp{op}) {
		m.readIndex(op)
	}
}

// serveReads answers the linearizable reads whose read index is applied.
func (m *member) serveReads() {
	m.srv.Reads.Applied(m.applied, func(r readOp) { m.w.reply(m, r.Op, m.answerRead(r.Op)) })
}

// readOp is a read on the server layer's read-index path
// (server.LinearRead): its read index is the operation's, which a client
// that sends it again starts over.
type readOp struct{ *Op }

func (r readOp) ReadID() uint64            { return r.ID }
func (r readOp) ReadIndex() (uint64, bool) { return r.readIndex, r.readIndexKnown }
func (r readOp) SetReadIndex(i uint64)     { r.readIndex, r.readIndexKnown = i, true }
func (r readOp) Pending() bool             { return r.Status == OpPending }
