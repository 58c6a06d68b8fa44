package sim

import (
	"slices"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"go.etcd.io/raft/v3/tracker"
	"google.golang.org/protobuf/proto"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/membership"
	"github.com/raftsim/raftsim/server"
)

// etcd's Cluster API as a member serves it: member add, remove, promote,
// update and list, following etcd's server.go (AddMember, PromoteMember,
// RemoveMember, configure). The rules are package membership's (the strict
// reconfiguration checks, ValidateConfigurationChange and applying a
// change); here is the world's part: who is connected to whom and since
// when, raft's progress for a promotion, proposing, forwarding, the hosts
// a member add makes, and the answers.

// errProposalDropped is what a member answers when raft drops its
// configuration change.
const errProposalDropped = "rpc error: code = Unknown desc = raft proposal dropped"

// confChanges is a member's part in changing the cluster's configuration:
// the strict checks etcd makes before it proposes a change, proposing or
// forwarding it (the Cluster API, and alarms, which every member applies),
// and applying it.
type confChanges struct {
	m *member
	// confOrigins: for a configuration change proposed for another member
	// (a promotion forwarded to the leader), that member, by op ID.
	confOrigins map[uint64]*member
}

// isLearner reports whether the member is a learner in the configuration
// it has applied.
func (cf *confChanges) isLearner() bool {
	m := cf.m
	return slices.Contains(m.conf.GetLearners(), m.id)
}

// strictCheck is etcd's strict reconfiguration check of a member add or
// remove, before it is proposed (or held for a leader): the error a
// client sees, or "".
func (cf *confChanges) strictCheck(op *Op) string {
	m := cf.m
	switch op.Kind {
	case OpMemberAdd:
		return m.mayAddMember(op)
	case OpMemberRemove:
		return m.mayRemoveMember(op)
	}
	return ""
}

// mayAddMember is etcd's strict check before a member add
// (membership.Cluster.MayAdd), with the voters m has been connected to for
// membership.HealthInterval.
func (cf *confChanges) mayAddMember(op *Op) string {
	m := cf.m
	return m.cluster.MayAdd(op.Learner(), m.connectedVoter)
}

// mayRemoveMember is etcd's strict check before a member remove
// (membership.Cluster.MayRemove): a member whose stream m has lost is gone.
func (cf *confChanges) mayRemoveMember(op *Op) string {
	m := cf.m
	t := m.w.byName[op.Target()]
	return m.cluster.MayRemove(t.id, t != m && !m.peers[t.id].ok, m.connectedVoter)
}

// connectedVoter says whether m counts the voter id as connected for a
// reconfiguration: itself, or a peer connected for HealthInterval (etcd's
// numConnectedSince).
func (cf *confChanges) connectedVoter(id uint64) bool {
	m := cf.m
	return id == m.id || m.connectedSince(id)
}

// connectedSince reports whether the member's transport has had a working
// stream to peer for at least membership.HealthInterval.
func (cf *confChanges) connectedSince(peer uint64) bool {
	m := cf.m
	c := m.peers[peer]
	return c.ok && c.since <= m.w.now-Time(membership.HealthInterval)
}

// peerConn is the member's transport's view of one peer.
type peerConn struct {
	ok    bool
	since Time // when the stream was last established
}

// refreshConnections updates every member's view of its peers after
// anything that may change who can reach whom: a stream is established
// when a peer becomes reachable and lost when it stops being so.
func (w *World) refreshConnections() {
	for _, a := range w.members {
		if len(a.peers) < len(w.members)+1 {
			a.peers = append(a.peers, make([]peerConn, len(w.members)+1-len(a.peers))...)
		}
		for _, b := range w.members {
			if a == b {
				continue
			}
			c := &a.peers[b.id]
			switch ok := a.up && w.reachable(a, b); {
			case ok && !c.ok:
				*c = peerConn{ok: true, since: w.now}
			case !ok:
				*c = peerConn{}
			}
		}
	}
}

// proposeMembership proposes the configuration change of op at m, and
// waits for it to be applied there (etcd's configure). origin is the member
// that forwarded it (a promotion at the leader), or nil. A member add
// creates the new member here, unstarted, with the ID etcd computes from
// its peer URL and the time.
func (cf *confChanges) proposeMembership(op *Op, origin *member) {
	m := cf.m
	switch op.Kind {
	case OpAlarmList, OpAlarmDisarm:
		m.proposeAlarms(op)
		return
	case OpDowngrade:
		m.proposeDowngrade(op)
		return
	}
	t := m.w.byName[op.Target()]
	if op.Kind == OpMemberAdd && t == nil {
		t = m.w.newMember(op, m)
	} else if op.Kind == OpMemberAdd && t.noData && !t.up {
		m.w.renewHost(t, op, m)
	} else if op.Kind == OpMemberAdd && (t.started || t.removed) {
		m.answerOrigin(op, origin, reply{status: OpError, err: membership.ErrIDExists})
		return
	}
	ctx := membership.ConfContext{ID: t.memberID}
	var typ pb.ConfChangeType
	switch op.Kind {
	case OpMemberAdd:
		typ, ctx.PeerURLs, ctx.IsLearner = pb.ConfChangeAddNode, []string{t.peerURL}, op.Learner()
		if op.Learner() {
			typ = pb.ConfChangeAddLearnerNode
		}
	case OpMemberPromote:
		typ, ctx.IsPromote = pb.ConfChangeAddNode, true
	case OpMemberRemove:
		typ = pb.ConfChangeRemoveNode
	case OpMemberUpdate:
		typ, ctx.PeerURLs = pb.ConfChangeUpdateNode, []string{op.PeerURL()}
	}
	cc := &pb.ConfChange{Id: new(op.ID), Type: typ.Enum(), NodeId: new(t.id), Context: ctx.Encode()}
	m.enter()
	err := m.rn.ProposeConfChange(cc)
	m.leave()
	if err != nil {
		m.answerOrigin(op, origin, reply{status: OpError, err: errProposalDropped})
		return
	}
	m.srv.Wait.Register(op.ID, op)
	if origin != nil {
		cf.confOrigins[op.ID] = origin
	}
	m.w.fault(m.id, "proposes: "+describeOp(i18n.En, op))
	m.flush()
}

// answerOrigin answers op at m: its client, or the member that
// forwarded it.
func (cf *confChanges) answerOrigin(op *Op, origin *member, r reply) {
	m := cf.m
	if origin != nil && origin != m {
		m.w.peerSend(m, origin, op, &r)
		return
	}
	m.w.reply(m, op, r)
}

// promoteAtLeader is etcd's promoteMember at the leader, for a call that
// origin received: the learner must have caught up (its log matches 90%
// of the leader's) and the voters it joins must have a started quorum.
func (cf *confChanges) promoteAtLeader(op *Op, origin *member) {
	m := cf.m
	t := m.w.byName[op.Target()]
	var learnerMatch, leaderMatch uint64
	found := false
	m.rn.WithProgress(func(id uint64, _ raft.ProgressType, pr tracker.Progress) {
		if id == t.id {
			learnerMatch, found = pr.Match, true
		}
		if id == m.id {
			leaderMatch = pr.Match
		}
	})
	if why := m.cluster.MayPromote(found, learnerMatch, leaderMatch); why != "" {
		m.answerOrigin(op, origin, reply{status: OpError, err: why})
		return
	}
	m.proposeMembership(op, origin)
}

// applyConfChange applies a configuration change entry. Every member first
// validates it against the membership it has applied, as etcd does; a
// change that fails is applied as no change, and the member waiting for it
// answers with the reason. The waiting member answers with the members.
func (cf *confChanges) applyConfChange(e *pb.Entry) {
	m := cf.m
	var cc pb.ConfChangeI
	var ccID uint64
	why := ""
	if e.GetType() == pb.EntryConfChange {
		var v1 pb.ConfChange
		if err := proto.Unmarshal(e.GetData(), &v1); err != nil {
			panic("sim: conf change: " + err.Error())
		}
		ccID = v1.GetId()
		ctx := membership.DecodeConfContext(v1.GetContext())
		why = m.cluster.Validate(v1.GetType(), v1.GetNodeId(), ctx, m.w.peerURLOf)
		if why == "" {
			m.cluster.ApplyConfChange(v1.GetType(), v1.GetNodeId(), ctx)
		} else {
			if v1.GetType() != pb.ConfChangeRemoveNode && v1.GetType() != pb.ConfChangeUpdateNode && !ctx.IsPromote {
				m.w.refuseNewMember(v1.GetNodeId())
			}
			v1.NodeId = new(uint64(raft.None)) // etcd: raft applies it as no change
		}
		cc = &v1
	} else {
		var v2 pb.ConfChangeV2
		if err := proto.Unmarshal(e.GetData(), &v2); err != nil {
			panic("sim: conf change: " + err.Error())
		}
		for _, ch := range v2.GetChanges() {
			m.cluster.ApplyConfChange(ch.GetType(), ch.GetNodeId(), membership.DecodeConfContext(v2.GetContext()))
		}
		cc = &v2
	}
	m.enter()
	m.conf = m.rn.ApplyConfChange(cc)
	m.leave()
	// A joiner can only be caught up by a snapshot that lists it, so every
	// member snapshots right after applying a configuration change.
	// NB: CreateSnapshot fails with ErrSnapOutOfDate when a newer snapshot
	// exists (one installed from the leader); that one already lists the
	// configuration, so the error is expected and ignored.
	switch {
	case !m.snapshotDurable(e.GetIndex()):
		m.confSnapDue = true // applied while its commit is being written: taken once it is
	default:
		if _, err := m.disk.CreateSnapshot(e.GetIndex(), m.conf, m.snapshotData()); err == nil {
			m.snap, _ = m.entryAt(e.GetIndex())
		}
	}
	text := m.w.describeConf(m.conf)
	if why != "" {
		text = refusedConfText + why
	}
	m.w.record(Event{Kind: EvConf, Node: m.id, Index: e.GetIndex(), Text: text})
	if op, ok := m.triggerConf(ccID); ok {
		origin := cf.confOrigins[ccID]
		delete(cf.confOrigins, ccID)
		r := reply{status: OpOK, members: m.w.clusterMembers(m)}
		if why != "" {
			r = reply{status: OpError, err: why}
		}
		m.answerOrigin(op, origin, r)
	}
	if why == "" && m.cluster.Find(m.id) == nil && removes(cc, m.id) {
		// etcd stops a member once it applies its own removal.
		m.removed = true
		m.w.record(Event{Kind: EvFault, Node: m.id, Text: "removed from the cluster; it shuts down"})
		m.crash()
		m.w.refreshConnections()
	}
}

// removes reports whether a configuration change removes the member id.
func removes(cc pb.ConfChangeI, id uint64) bool {
	for _, ch := range cc.AsV2().GetChanges() {
		if ch.GetType() == pb.ConfChangeRemoveNode && ch.GetNodeId() == id {
			return true
		}
	}
	return false
}

// proposeAlarms proposes an alarm list, or a disarm of every alarm the
// member has applied, as clientv3 disarms them all: one deactivation each
// (etcd serves every alarm request through raft). A disarm answers once
// the last is applied, with the alarms it disarmed; with none, at once.
func (cf *confChanges) proposeAlarms(op *Op) {
	m := cf.m
	reqs := []*etcdserverpb.AlarmRequest{{Action: etcdserverpb.AlarmRequest_GET}}
	if op.Kind == OpAlarmDisarm {
		reqs, op.rare().alarms = nil, m.cluster.Alarms.Members()
		for _, a := range op.more.alarms {
			reqs = append(reqs, &etcdserverpb.AlarmRequest{Action: etcdserverpb.AlarmRequest_DEACTIVATE, MemberID: a.MemberID, Alarm: a.Alarm})
		}
		if len(reqs) == 0 {
			m.w.reply(m, op, reply{status: OpOK, rev: m.srv.KV.Store.Rev()})
			return
		}
	}
	for i, r := range reqs {
		id := m.srv.IDs.Next()
		data := server.Encode(&etcdserverpb.InternalRaftRequest{Header: &etcdserverpb.RequestHeader{ID: id}, Alarm: r})
		m.enter()
		err := m.rn.Propose(data)
		m.leave()
		if err != nil {
			m.w.reply(m, op, reply{status: OpError, err: errProposalDropped})
			return
		}
		if i == len(reqs)-1 {
			m.srv.Wait.Register(id, op)
		}
	}
	m.flush()
}

// newMember creates the member op adds, by the member by: not started,
// its disk empty.
func (w *World) newMember(op *Op, by *member) *member {
	t := w.addMember(op.Target())
	t.log.reset(1)
	t.group = by.group // it joins the cluster it is added to
	if op.PeerURL() != "" {
		t.peerURL = op.PeerURL()
		t.memberID = memberID(t.peerURL, "", &w.now)
	}
	if op.rareOrZero().startAdded {
		w.fault(t.id, startText)
		w.startMember(t)
	}
	w.refreshConnections()
	return t
}

// renewHost makes the host of t, lost with its disk, the member op adds
// (by the member by): a new member on a new machine that has the lost
// one's name, unstarted, its disk empty. (Its raft ID is the lost
// member's, which etcd would not reuse; docs/semantics.md.)
func (w *World) renewHost(t *member, op *Op, by *member) {
	t.started, t.removed, t.noData, t.dirs = false, false, false, nil
	t.dataDir, t.group = DefaultDataDir, by.group
	t.log.reset(1)
	t.peerURL = w.cfg.peerURL(t.name)
	if op.PeerURL() != "" {
		t.peerURL = op.PeerURL()
	}
	t.memberID = memberID(t.peerURL, "", &w.now)
	if op.rareOrZero().startAdded {
		w.fault(t.id, startText)
		w.startMember(t)
	}
	w.refreshConnections()
}

// refuseNewMember marks a member whose addition was refused as removed: it
// never joined, and cannot be started.
func (w *World) refuseNewMember(id uint64) {
	if id == 0 || id > uint64(len(w.members)) {
		return
	}
	if t := w.members[id-1]; !t.started {
		t.removed = true
	}
}

// clusterMembers is the member list m answers with.
func (w *World) clusterMembers(m *member) []ClusterMember {
	list, _ := w.MemberList(m.name)
	return list
}

// start starts a member that has never run: a member added at runtime,
// whose process the operator starts (etcd --initial-cluster-state
// existing) with an empty disk.
func (w *World) startMember(m *member) {
	m.started = true
	m.start()
	w.refreshConnections()
}

// triggerConf is the configuration change with request ID ccID applied:
// the request that waited for it, if any (0 is no request's).
func (cf *confChanges) triggerConf(ccID uint64) (*Op, bool) {
	m := cf.m
	if ccID == 0 {
		return nil, false
	}
	return m.srv.Wait.Trigger(ccID)
}

// proposeDowngrade serves a Maintenance.Downgrade at m as etcd's
// version.Manager does (server.Downgrade): validate, and a cancel with no
// downgrade in progress, answer at once; enable and cancel propose a
// DowngradeInfoSet and answer once it is applied here.
func (cf *confChanges) proposeDowngrade(op *Op) {
	m := cf.m
	v, set, why := server.Downgrade(op.Downgrade(), m.cluster.Version, m.cluster.Downgrade)
	if why != "" {
		m.w.reply(m, op, reply{status: OpError, err: why})
		return
	}
	if set == nil {
		op.rare().version = v
		m.w.reply(m, op, reply{status: OpOK, rev: m.srv.KV.Store.Rev()})
		return
	}
	id := m.srv.IDs.Next()
	data := server.Encode(&etcdserverpb.InternalRaftRequest{Header: &etcdserverpb.RequestHeader{ID: id}, DowngradeInfoSet: set})
	m.enter()
	err := m.rn.Propose(data)
	m.leave()
	if err != nil {
		m.w.reply(m, op, reply{status: OpError, err: errProposalDropped})
		return
	}
	m.srv.Wait.Register(id, op)
	m.flush()
}
