package sim

import (
	"slices"
	"strconv"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/membershippb"
	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/membership"
	"github.com/raftsim/raftsim/server"
)

// What an etcd server does as it starts and runs, besides raft
// (etcd's EtcdServer.Start and its monitors):
//   - it fast-forwards its election timer once its peers are connected
//     (adjustTicks, --initial-election-tick-advance);
//   - it publishes its name and client URLs through raft (publishV3) and
//     serves clients only once it has applied that (ReadyNotify);
//   - as leader, once its first entry of a term is applied, it sets the
//     cluster version (monitorClusterVersions).

const (
	// etcd polls its peer connections every 50ms for up to 5s
	// (rafthttp.ConnReadTimeout) before it gives up advancing.
	tickAdvancePoll  = 50 * time.Millisecond
	tickAdvancePolls = 100
	// etcd's leader checks the cluster version every 4s
	// (rafthttp.ConnWriteTimeout - 1s), and at once on its first commit
	// in a term.
	versionCheckEvery = 4 * time.Second
)

// serverBoot is a member's etcd server starting and running beside raft:
// the election tick advance, its publication, and the leader's cluster
// version check.
type serverBoot struct {
	m            *member
	ready        bool // it has applied its own publication: it serves clients
	publishing   bool // its publication is proposed and not yet applied
	wantVersion  bool // it applied its first entry as leader: check the cluster version
	wantNoSpace  bool // its apply-time quota check answered NOSPACE: raise the alarm (server.ApplyQuota)
	advancePolls int  // peer-connection polls so far (election tick advance)
}

// requestTimeout is etcd's request timeout: 5s plus twice the election
// timeout (ServerConfig.ReqTimeout). A publication that has not applied by
// then is proposed again.
func (w *World) requestTimeout() time.Duration {
	return 5*time.Second + 2*time.Duration(w.cfg.ElectionTicks)*w.cfg.Tick
}

// boot starts what a starting etcd server does beside raft. It is part of
// start.
func (b *serverBoot) boot() {
	m := b.m
	b.ready, b.publishing, b.wantVersion, b.wantNoSpace = false, false, false, false
	b.advancePolls = 0
	if m.w.raftBoot() {
		b.ready = true // a plain raft node: it serves at once, and publishes nothing
		return
	}
	if m.w.clusterSize() == 1 {
		// etcd: "started as single-node; fast-forwarding election ticks".
		m.advanceTicks(m.w.cfg.ElectionTicks - 1)
		return
	}
	if m.w.cfg.InitialElectionTickAdvance {
		e := m.w.sched.after(m.w.now, Time(tickAdvancePoll))
		e.kind, e.node, e.inc = evTickAdvance, m.id, m.inc
	}
}

// clusterSize is how many members the cluster has (etcd counts the members
// it knows at start).
func (w *World) clusterSize() int {
	n := 0
	for _, o := range w.members {
		if !o.removed {
			n++
		}
	}
	return n
}

// tickAdvancePoll is etcd's adjustTicks loop: once more than one peer is
// connected, it advances the election timer by election ticks - 2, so that
// a fresh cluster elects its first leader sooner.
func (b *serverBoot) tickAdvancePoll() {
	m := b.m
	if m.activePeers() > 1 {
		m.advanceTicks(m.w.cfg.ElectionTicks - 2)
		return
	}
	b.advancePolls++
	if b.advancePolls < tickAdvancePolls {
		e := m.w.sched.after(m.w.now, Time(tickAdvancePoll))
		e.kind, e.node, e.inc = evTickAdvance, m.id, m.inc
	}
}

// activePeers counts the peers a member's transport has a working stream
// with: up, not frozen, and neither direction of the link cut.
func (b *serverBoot) activePeers() int {
	m := b.m
	n := 0
	for _, o := range m.w.members {
		if o != m && m.w.reachable(m, o) {
			n++
		}
	}
	return n
}

// reachable says whether a's transport can talk to b now.
func (w *World) reachable(a, b *member) bool {
	return b.up && !b.stalled && !b.removed && !w.net.IsCut(a.id, b.id) && !w.net.IsCut(b.id, a.id) &&
		a.clusterID() == b.clusterID() // etcd's peer streams refuse another cluster's member
}

// advanceTicks fast-forwards the election timer by n ticks. (etcd logs why;
// the transcript says only how far, so that it reads the same in every
// language.)
func (b *serverBoot) advanceTicks(n int) {
	m := b.m
	if n <= 0 || m.rn == nil {
		return
	}
	m.enter()
	for range n {
		m.rn.Tick()
	}
	m.leave()
	m.w.fault(m.id, tickAdvancePrefix+strconv.Itoa(n)+tickAdvanceSuffix)
	m.flush()
}

// afterAdvance does what waits for a leader, or for the Ready to be over:
// proposing flushes, and a second Ready before Advance panics.
func (b *serverBoot) afterAdvance() {
	m := b.m
	if m.soft.Lead != 0 {
		m.publish()
	}
	if b.wantVersion {
		b.wantVersion = false
		m.monitorClusterVersion()
	}
	if b.wantNoSpace {
		b.wantNoSpace = false
		m.raiseNoSpace(m.w.cfg.quota(m.name))
	}
	if b.ready && m.srv.Unready.Len() > 0 {
		for _, op := range m.srv.Unready.Release() {
			m.w.accept(m, op)
		}
	}
	// Calls held while no leader was known.
	if m.soft.Lead != 0 && m.srv.Held.Len() > 0 {
		for _, op := range m.srv.Held.Release() {
			m.serve(op)
		}
	}
}

// publish proposes the member's attributes, as etcd's publishV3 does at
// every start. Like a client write it waits for a leader; if it has not
// applied within the request timeout it is proposed again.
func (b *serverBoot) publish() {
	m := b.m
	if b.ready || b.publishing || !m.up || m.removed {
		return
	}
	attr := &membershippb.ClusterMemberAttrSetRequest{Member_ID: m.memberID,
		MemberAttributes: &membershippb.Attributes{Name: m.name, ClientUrls: []string{m.clientURL}}}
	data := server.Encode(&etcdserverpb.InternalRaftRequest{Header: &etcdserverpb.RequestHeader{ID: m.srv.IDs.Next()}, ClusterMemberAttrSet: attr})
	m.enter()
	err := m.rn.Propose(data)
	m.leave()
	if err != nil {
		if m.w.cfg.DisableProposalForwarding && m.soft.RaftState != raft.StateLeader {
			// etcd never turns proposal forwarding off. A follower that
			// cannot forward cannot publish itself, so here it serves
			// without publishing, and the knob still shows what it is
			// for: a follower refusing writes.
			b.ready = true
			m.w.fault(m.id, cannotPublishText)
		}
		return // dropped (a leadership transfer): tried again at the next Ready
	}
	b.publishing = true
	e := m.w.sched.after(m.w.now, Time(m.w.requestTimeout()))
	e.kind, e.node, e.inc = evPublishRetry, m.id, m.inc
	m.flush()
}

func (b *serverBoot) publishRetry() {
	m := b.m
	if !b.ready {
		b.publishing = false
		if m.soft.Lead != 0 {
			m.publish()
		}
	}
}

// monitorClusterVersion is the leader's cluster version monitor: with every
// member reachable it sets the version they all run; while the version is
// unset and some member cannot be asked, it sets the minimum, and checks
// again every 4s.
func (b *serverBoot) monitorClusterVersion() {
	m := b.m
	if m.soft.RaftState != raft.StateLeader || !m.up || m.stalled || m.w.raftBoot() {
		return
	}
	all := true
	for _, cm := range m.cluster.Members {
		if o := m.w.members[cm.ID-1]; o != m && !m.w.reachable(m, o) {
			all = false
		}
	}
	if want := m.cluster.WantVersion(all); want != "" {
		data := server.Encode(&etcdserverpb.InternalRaftRequest{Header: &etcdserverpb.RequestHeader{ID: m.srv.IDs.Next()},
			ClusterVersionSet: &membershippb.ClusterVersionSetRequest{Ver: want}})
		m.enter()
		err := m.rn.Propose(data)
		m.leave()
		if err == nil {
			m.w.fault(m.id, clusterVersionPrefix+want)
			m.flush()
		}
	}
	if !all {
		e := m.w.sched.after(m.w.now, Time(versionCheckEvery))
		e.kind, e.node, e.inc = evVersionCheck, m.id, m.inc
	}
}

// memberWithID returns the member with etcd's member ID id, or nil.
func (w *World) memberWithID(id uint64) *member {
	for _, o := range w.members {
		if o.memberID == id {
			return o
		}
	}
	return nil
}

// peerURLOf is a member's peer URL as the cluster has it: the one it was
// added or updated with, or the one its process started with.
func (w *World) peerURLOf(cm membership.Member) string {
	if cm.PeerURL != "" {
		return cm.PeerURL
	}
	return w.members[cm.ID-1].peerURL
}

// newGroup adds a raft group whose store begins as kv holds it (nil: empty).
func (w *World) newGroup(clusterID uint64, kv *server.KV) *group {
	g := &group{clusterID: clusterID, safety: newSafety(w)}
	g.safety.g = len(w.groups)
	if len(w.groups) > 0 {
		g.safety.root = w.groups[0].safety
	}
	g.setInitial(kv)
	w.groups = append(w.groups, g)
	return g
}

// leaseExtend is how long the leases a new leader's lessor inherits live
// past their TTL: an election timeout.
func (w *World) leaseExtend() time.Duration { return time.Duration(w.cfg.ElectionTicks) * w.cfg.Tick }

// bootstrapRaft writes the paper's start to m's disk: a snapshot at index 1,
// term 1, whose configuration lists every member, and HardState{Term: 1,
// Commit: 1}.
func (w *World) bootstrapRaft(m *member) error {
	cs := &pb.ConfState{}
	var cluster membership.Cluster
	for i, name := range w.cfg.Members {
		id := uint64(i + 1)
		learner := slices.Contains(w.cfg.Learners, name)
		if learner {
			cs.Learners = append(cs.Learners, id)
		} else {
			cs.Voters = append(cs.Voters, id)
		}
		cluster.Members = append(cluster.Members, membership.Member{ID: id, Name: name, Learner: learner, Published: true})
	}
	data := w.snapshotData(cluster.Encode(), server.NewKV(w.cfg.minLeaseTTL()).Freeze())
	snap := &pb.Snapshot{Data: data, Metadata: &pb.SnapshotMetadata{Index: new(uint64(1)), Term: new(uint64(1)), ConfState: cs}}
	if err := m.disk.ApplySnapshot(snap); err != nil {
		return err
	}
	if err := m.disk.SetHardState(&pb.HardState{Term: new(uint64(1)), Commit: new(uint64(1))}); err != nil {
		return err
	}
	m.snap = w.safety.snapshotID(1, 1)
	m.log.reset(2)
	w.record(Event{Kind: EvSnapshot, Node: m.id, Index: 1, Term: 1, Text: snapshotBootstrap})
	return nil
}

// raftBoot reports whether the members are plain raft nodes (BootstrapRaft)
// rather than etcd servers.
func (w *World) raftBoot() bool { return w.cfg.Bootstrap == BootstrapRaft }
