package sim

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/server"
	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// Fork returns a copy of w that goes on from this instant on its own, as
// cfg says: with cfg.Seed for every random choice from now on (election
// timeouts, latencies, tick phases), and with cfg's member settings (tick,
// election and heartbeat ticks, pre-vote, check quorum, disk latency...).
// cfg must describe the same cluster: the same members, network, links and
// clients. Experiments use Fork to run many trials from one settled cluster
// instead of building and electing a new one for each.
//
// Each member goes on in the copy as the same process, with its disk, its
// state machine and what etcd's server holds beside raft, except that its
// raft state is rebuilt from its disk, since a RawNode cannot be copied. It
// loses what raft loses in a restart: whom it follows, its election timer
// (it draws a new timeout), and a leader its leadership and its followers'
// progress. (It is not an etcd restart: no election tick advance, no new
// publication.) The members named in crash are down in the copy. Messages
// in flight are copied and arrive when they would have. The copy's history
// begins with w's and records the crashes; its command log starts empty,
// so Replay cannot rebuild it.
//
// Fork refuses a world it cannot copy faithfully: one that has stopped on a
// violation, or that has a stalled member, a disk write in progress, a
// client request pending or a watch open. (A write in progress is a Ready
// of raft's, which a RawNode rebuilt from the disk does not have: run the
// world on to an instant without one, as experiment.Settle does.)
func (w *World) Fork(cfg Config, crash ...string) (*World, error) {
	if v := w.safety.violation; v != nil {
		return nil, v
	}
	if err := w.sameCluster(cfg); err != nil {
		return nil, err
	}
	for _, name := range crash {
		if m := w.byName[name]; m == nil || !m.up {
			return nil, fmt.Errorf("fork: cannot crash %q: no such member is up", name)
		}
	}
	for _, m := range w.members {
		switch {
		case m.stalled:
			return nil, fmt.Errorf("fork: %s is stalled", m.name)
		case m.diskBusy:
			return nil, fmt.Errorf("fork: %s has a disk write in progress (fork at an instant when no member writes)", m.name)
		case m.srv.Watches.Open() > 0:
			return nil, fmt.Errorf("fork: %s has a watch open", m.name)
		case m.srv.LeaseWaits.Len() > 0:
			return nil, fmt.Errorf("fork: %s holds lease keep-alives", m.name)
		}
	}
	for _, op := range w.ops {
		if op != nil && op.Status == OpPending {
			return nil, fmt.Errorf("fork: request %d (%s) is pending", op.ID, describeOp(i18n.En, op))
		}
	}
	if w.loadRunning() {
		return nil, fmt.Errorf("fork: a load is running")
	}
	inFlight, err := w.inFlight()
	if err != nil {
		return nil, err
	}

	seed := cfg.Seed
	f := &World{
		cfg:         cfg,
		now:         w.now,
		byName:      map[string]*member{},
		net:         w.net.Clone(stream(seed, "network")),
		lastCaption: w.lastCaption,
		ops:         slices.Clone(w.ops), // finished, so never changed again
		done:        cloneDone(w.done),
		compactFrom: w.compactFrom,
		opsBase:     w.opsBase,
		staleDone:   w.staleDone,
		streaming:   w.streaming,
		keepChecked: w.keepChecked,
		untracked:   slices.Clone(w.untracked),
		saved:       maps.Clone(w.saved),
		initialKV:   w.initialKV, // never changed: shared
		// frozen stores are never changed: shared
		snapKVs: maps.Clone(w.snapKVs), snapSeq: w.snapSeq, snapKept: w.snapKept,
		// the revocations lessors proposed may yet apply in the fork
		lessorRevokes: maps.Clone(w.lessorRevokes),
		carry:         w.carry.clone(),
	}
	f.streamChecked, f.streamSkipped = w.streamChecked, w.streamSkipped
	for _, g := range w.groups {
		c := &group{clusterID: g.clusterID, restored: g.restored, safety: g.safety.clone(f), initial: g.initial,
			untracked: slices.Clone(g.untracked), check: g.check.Clone()}
		if len(f.groups) > 0 {
			c.safety.root = f.groups[0].safety
		}
		f.groups = append(f.groups, c)
	}
	f.safety = f.groups[0].safety
	w.history.copyTo(&f.history)
	for _, c := range w.clients {
		f.clients = append(f.clients, &client{cfg: c.cfg, endpoints: c.endpoints, next: c.next})
	}
	f.clusterID = w.clusterID
	for _, m := range w.members {
		f.forkMember(m)
	}
	for _, e := range inFlight {
		c := f.sched.push(e.at)
		*c = e
		if e.msg != nil {
			c.msg = proto.Clone(e.msg).(*pb.Message) // raft changes what it is handed
		}
	}
	for _, fm := range f.members {
		m := w.members[fm.id-1]
		if !m.up {
			continue
		}
		if slices.Contains(crash, m.name) {
			fm.inc++ // as crash does: its timers are for an earlier life
			f.fault(fm.id, "crashes (volatile state lost, disk kept)")
			continue
		}
		if err := fm.resume(m); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// sameCluster says why cfg does not describe w's cluster, if it does not.
func (w *World) sameCluster(cfg Config) error {
	if err := cfg.check(); err != nil {
		return fmt.Errorf("fork: %w", err)
	}
	var names []string
	for _, m := range w.members {
		names = append(names, m.name)
	}
	a, b := w.cfg, cfg
	switch {
	case !slices.Equal(names, cfg.Members):
		return fmt.Errorf("fork: the members are %v, not %v", names, cfg.Members)
	case !reflect.DeepEqual(a.Network, b.Network) || !reflect.DeepEqual(a.Links, b.Links):
		return fmt.Errorf("fork: the network must stay as it is")
	case !reflect.DeepEqual(a.Clients, b.Clients) || a.Topology != b.Topology || a.Apiservers != b.Apiservers || a.ClientLatency != b.ClientLatency:
		return fmt.Errorf("fork: the clients must stay as they are")
	}
	return nil
}

// inFlight returns what a fork copies of w's schedule, in the order it is
// due: messages on their way, and the timers of etcd's server beside raft.
// Ticks and reports to senders are left out (a rebuilt RawNode has its own
// ticks and has forgotten what it sent), and so are the timers of finished
// requests. Anything else cannot be copied.
func (w *World) inFlight() ([]event, error) {
	var keys []key
	for _, k := range w.sched.heap {
		keys = append(keys, k)
	}
	for i := range w.sched.lanes {
		l := &w.sched.lanes[i]
		keys = append(keys, l.q[l.head:]...)
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.before(b) {
			return -1
		}
		return 1
	})
	var out []event
	for _, k := range keys {
		e := w.sched.slots[k.slot]
		switch e.kind {
		case evTick, evReportSnapshot, evReportUnreachable:
		case evClientTimeout, evReadRetry:
			if e.op != nil && e.op.Status == OpPending {
				return nil, fmt.Errorf("fork: request %d is pending", e.op.ID)
			}
			// It would find its request finished, and do nothing.
		case evProgressTick:
			if e.op.Status == OpOK {
				return nil, fmt.Errorf("fork: watch %d is open", e.op.ID)
			}
			// Its watch has ended: it would do nothing.
		case evDeliver, evTickAdvance, evPublishRetry, evVersionCheck:
			out = append(out, e)
		default:
			return nil, fmt.Errorf("fork: an event of kind %d is scheduled at %s", e.kind, e.at)
		}
	}
	return out, nil
}

// forkMember adds to f its copy of m: what the same process would still
// have, with a copy of its disk and new random streams from f's seed. What
// a rebuilt RawNode changes is set by resume. (TestForkCopiesEveryField
// lists each field of member and says which.)
func (f *World) forkMember(m *member) *member {
	fm := &member{
		w: f, id: m.id, memberID: m.memberID, name: m.name, peerURL: m.peerURL, clientURL: m.clientURL,
		inc: m.inc, removed: m.removed, group: m.group, dataDirs: dataDirs{dataDir: m.dataDir, noData: m.noData, dirs: copyDirs(m.dirs)},
		memberClock: memberClock{rate: m.rate, clockBase: m.clockBase, clockSince: m.clockSince, ticks: m.ticks,
			tickEvery: tickInterval(f.cfg.Tick, m.rate), clockRand: stream(f.cfg.Seed, "clock/"+m.name)},
		electionRand: stream(f.cfg.Seed, "election/"+m.name),
		disk:         copyDisk(m.disk),
		conf:         m.conf,
		hard:         pb.HardState{Term: new(m.hard.GetTerm()), Vote: new(m.hard.GetVote()), Commit: new(m.hard.GetCommit())},
		log:          m.log.clone(),
		snap:         m.snap,
		leaderTerm:   m.leaderTerm, leaderHigh: m.leaderHigh,
		commitSeen: m.commitSeen, lastRole: m.lastRole, // unsynced is never changed, only replaced:
		bugHooks: bugHooks{unsynced: m.unsynced},
		peers:    slices.Clone(m.peers), started: m.started, leadElected: m.leadElected,
		srv: serverMember{Backend: m.srv.Backend.Clone(), LeaderMonitor: m.srv.LeaderMonitor, LeaseLoop: m.srv.LeaseLoop, IDs: m.srv.IDs},
	}
	attachRoles(fm)
	f.members = append(f.members, fm)
	f.byName[m.name] = fm
	return fm
}

// resume makes fm, a fork's copy of m, go on as m: the state machine and
// the server's state are m's, and the RawNode is rebuilt over fm's copy of
// the disk, having applied what m applied.
func (fm *member) resume(m *member) error {
	fm.up = true
	fm.srv.Wait, fm.confOrigins = server.Wait[*Op]{}, map[uint64]*member{}
	if err := fm.restoreFrom(m); err != nil {
		return fmt.Errorf("fork: %s: %w", m.name, err)
	}
	fm.applied = m.applied
	fm.ready, fm.publishing, fm.wantVersion, fm.advancePolls = m.ready, m.publishing, m.wantVersion, m.advancePolls
	fm.wantNoSpace = m.wantNoSpace
	rc := fm.raftConfig()
	rc.Applied = fm.applied
	fm.enter()
	rn, err := raft.NewRawNode(rc)
	fm.leave()
	if err != nil {
		return fmt.Errorf("fork: %s: %w", m.name, err)
	}
	fm.rn = rn
	fm.startTicking() // a new tick phase, drawn from the fork's stream
	fm.flush()
	return nil
}

// restoreFrom is fm.restoreData(m.snapshotData()) without encoding and
// decoding the cluster state: fm gets a copy of m's (what decoding its
// encoding gives) and a fork of m's store (server.FrozenKV).
func (fm *member) restoreFrom(m *member) error {
	kv, err := m.srv.KV.Freeze().Thaw(fm.w.cfg.minLeaseTTL())
	if err != nil {
		return err
	}
	fm.cluster = m.cluster.Clone()
	fm.srv.SetKV(kv, watchSink{fm})
	fm.attachDB()
	return nil
}

// copyDirs returns a copy of a host's other data directories.
func copyDirs(dirs map[string]*dataDir) map[string]*dataDir {
	if dirs == nil {
		return nil
	}
	out := make(map[string]*dataDir, len(dirs))
	for p, d := range dirs {
		out[p] = &dataDir{disk: copyDisk(d.disk), db: d.db.Clone(), log: d.log.clone(), snap: d.snap, hard: cloneHard(d.hard),
			commitSeen: d.commitSeen, leaderTerm: d.leaderTerm, leaderHigh: d.leaderHigh, memberID: d.memberID,
			group: d.group, removed: d.removed}
	}
	return out
}

// copyDisk returns a copy of a member's disk. Entries and snapshots are
// shared: neither raft nor the simulator changes one once it is stored.
func copyDisk(d *raft.MemoryStorage) *raft.MemoryStorage {
	c := raft.NewMemoryStorage()
	snap, _ := d.Snapshot()
	if snap.GetMetadata().GetIndex() > 0 {
		if err := c.ApplySnapshot(snap); err != nil {
			panic("sim: fork: " + err.Error())
		}
	}
	first, _ := d.FirstIndex()
	last, _ := d.LastIndex()
	if last >= first {
		ents, err := d.Entries(first, last+1, math.MaxUint64)
		if err != nil {
			panic("sim: fork: " + err.Error())
		}
		if err := c.Append(ents); err != nil {
			panic("sim: fork: " + err.Error())
		}
	}
	hs, _, _ := d.InitialState()
	_ = c.SetHardState(&pb.HardState{Term: new(hs.GetTerm()), Vote: new(hs.GetVote()), Commit: new(hs.GetCommit())})
	return c
}

// clone returns a copy of s that reports to w.
func (s *safety) clone(w *World) *safety {
	c := &safety{w: w, g: s.g, leaders: make(map[uint64]uint64, len(s.leaders)), more: make(map[uint64][]termChain, len(s.more))}
	for term, id := range s.leaders {
		c.leaders[term] = id
	}
	for i, tcs := range s.more {
		c.more[i] = slices.Clone(tcs)
	}
	s.chains.copyTo(&c.chains)
	s.committed.copyTo(&c.committed)
	s.commitIn.copyTo(&c.commitIn)
	s.applied.copyTo(&c.applied)
	c.low, c.base = s.low, s.base
	return c
}

// copyTo makes the empty d a copy of c, chunk for chunk (those given back
// stay given back).
func (c *chunked[T]) copyTo(d *chunked[T]) {
	for _, chunk := range c.chunks {
		var free func()
		if chunk != nil {
			var fresh []T
			fresh, free = newChunk(&d.chunks, len(chunk))
			copy(fresh, chunk)
			chunk = fresh
		}
		d.chunks, d.frees = append(d.chunks, chunk), append(d.frees, free)
	}
	if len(d.chunks) > 0 {
		d.last = d.chunks[len(d.chunks)-1]
	}
	d.dropped, d.per, d.grown, d.before, d.used, d.n = c.dropped, c.per, c.grown, c.before, c.used, c.n
}

func (l *entryLog) clone() entryLog {
	c := entryLog{first: l.first, entries: &chunked[logEntry]{}}
	for i := range l.n {
		*c.entries.add() = *l.entries.at(l.start + i)
	}
	c.n = l.n
	return c
}

// copyTo makes the empty history d a copy of h.
func (h *history) copyTo(d *history) {
	h.events.copyTo(&d.events)
	d.n, d.last, d.started, d.first = h.n, h.last, h.started, h.first
	d.marks = slices.Clone(h.marks)
	d.blockMsg, d.blockOp, d.blockText = slices.Clone(h.blockMsg), slices.Clone(h.blockOp), slices.Clone(h.blockText)
	h.msgs.copyTo(&d.msgs)
	h.bodies.copyTo(&d.bodies)
	d.texts, d.textBase = slices.Clone(h.texts), h.textBase
	d.lastBody = h.lastBody
}

// copyTo makes the empty log d a copy of l, chunk for chunk, so that
// positions in one are positions in the other.
func (l *recordLog) copyTo(d *recordLog) {
	for _, chunk := range l.chunks {
		var free func()
		if chunk != nil {
			var fresh []byte
			fresh, free = newChunk(&d.chunks, len(chunk))
			copy(fresh, chunk)
			chunk = fresh
		}
		d.chunks, d.frees = append(d.chunks, chunk), append(d.frees, free)
		d.last = chunk
	}
	d.ends = slices.Clone(l.ends)
	d.used, d.full, d.dropped = l.used, l.full, l.dropped
}
