package sim

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// A member restarted with --force-new-cluster, as etcd v3.6 restarts one
// (server/etcdserver/bootstrap.go, bootstrapWALFromSnapshot): it keeps its
// data directory, its member ID and its cluster ID; it drops the entries
// of its log above its commit index (committed elsewhere or not, it cannot
// know); and it appends, at once committed, one ConfChange entry that
// removes each other member its log knows of (GetEffectiveNodeIDsFromWALEntries
// and CreateConfigChangeEnts, in the term of its HardState). Started, it
// applies them and is a cluster of one, which elects itself; new members
// join it with member add. The survivor's committed data and revision
// stay; what the old cluster acknowledged that it never committed is gone,
// and the transcript says what.
//
// The forced member is a raft group of its own (groups.go): its new
// entries take indexes that other members' logs may hold with other
// contents in the same term, which raft's invariants forbid within one
// cluster, and a write acknowledged by the old cluster may be gone. Its
// cluster ID is the old one, so a member it removed is refused by name,
// as etcd's peer transport refuses a removed member's messages (drop
// reason removed-member).

// checkForce says why the member cannot be restarted with
// --force-new-cluster from the data directory dir ("": the one it ran
// from), before anything changes.
func (m *member) checkForce(dir string) error {
	removed, disk := m.removed, m.disk
	if dir != "" && dir != m.dataDir {
		d := m.dirs[dir]
		if d == nil {
			return nil // useDir says it
		}
		removed, disk = d.removed, d.disk
	} else if m.noData {
		return nil // useDir says it
	}
	if removed {
		// etcd would add it back with the peer URL http://localhost:2380,
		// which its own membership store then refuses as a removed ID.
		return fmt.Errorf("%s was removed from the cluster: its log has no member of its own to keep", m.name)
	}
	if !slices.Contains(diskIDs(disk), m.id) {
		// A member added but never started: etcd has no WAL to force, and
		// starts it as --initial-cluster says.
		return fmt.Errorf("%s has no log of a cluster it is a member of (never started?): --force-new-cluster has nothing to keep", m.name)
	}
	return nil
}

// diskIDs returns the raft IDs the committed configuration of a raft log
// holds.
func diskIDs(disk *raft.MemoryStorage) []uint64 {
	hs, cs, _ := disk.InitialState()
	first, _ := disk.FirstIndex()
	var kept []*pb.Entry
	if c := hs.GetCommit(); c >= first {
		kept, _ = disk.Entries(first, c+1, math.MaxUint64)
	}
	return effectiveIDs(cs, kept)
}

// forceNewCluster rewrites the raft log of m's data directory as etcd's
// --force-new-cluster does, before m starts from it, and moves m to a new
// raft group. It returns the group m left.
func (w *World) forceNewCluster(m *member) int {
	hs, cs, _ := m.disk.InitialState()
	snap, _ := m.disk.Snapshot()
	first, _ := m.disk.FirstIndex()
	last, _ := m.disk.LastIndex()
	commit := hs.GetCommit()
	var kept []*pb.Entry
	if commit >= first {
		kept, _ = m.disk.Entries(first, commit+1, math.MaxUint64)
	}
	ids := effectiveIDs(cs, kept)
	term := hs.GetTerm()
	next := commit + 1
	var removals []*pb.Entry
	var removed []string
	for _, id := range ids {
		if id == m.id {
			continue
		}
		data, err := proto.Marshal(&pb.ConfChange{Type: pb.ConfChangeRemoveNode.Enum(), NodeId: new(id)})
		if err != nil {
			panic("sim: " + err.Error())
		}
		removals = append(removals, &pb.Entry{Type: pb.EntryConfChange.Enum(), Term: new(term), Index: new(next), Data: data})
		removed = append(removed, w.fmtNode(id))
		next++
	}
	disk := raft.NewMemoryStorage()
	if err := disk.ApplySnapshot(snap); err != nil {
		panic("sim: " + m.name + ": " + err.Error())
	}
	for _, ents := range [][]*pb.Entry{kept, removals} {
		if len(ents) > 0 {
			if err := disk.Append(ents); err != nil {
				panic("sim: " + m.name + ": " + err.Error())
			}
		}
	}
	hard := &pb.HardState{Term: new(term), Vote: new(hs.GetVote()), Commit: new(next - 1)}
	if err := disk.SetHardState(hard); err != nil {
		panic("sim: " + m.name + ": " + err.Error())
	}
	// The entries mirror: the uncommitted tail goes, the removals follow.
	m.log.truncate(commit + 1)
	prev, _ := m.entryAt(commit)
	h := prev.Chain
	for _, e := range removals {
		h = chain(h, e.GetTerm(), e.GetType(), e.GetData())
		m.log.append(logEntry{Term: e.GetTerm(), Chain: h, Type: e.GetType()})
	}
	m.disk, m.hard, m.commitSeen = disk, *cloneHard(hard), next-1
	m.unsynced = nil
	old := m.group
	g := w.newGroup(m.clusterID(), nil)
	g.forced = true
	m.group = len(w.groups) - 1
	// The new group knows m's log as its own: a member that joins later
	// and installs m's snapshot chains on from the same hashes.
	g.safety.logMatching(m, m.snap.Index, m.snap.Term, m.snap.Chain)
	for i := m.log.first; i <= m.log.last(); i++ {
		e := m.log.at(i)
		g.safety.logMatching(m, i, e.Term, e.Chain)
	}
	if last > commit {
		w.fault(m.id, fmt.Sprintf(forceDiscardText, last-commit, commit+1, last, commit))
	}
	if len(removed) == 0 {
		w.fault(m.id, fmt.Sprintf(forceAloneText, m.memberID, m.clusterID()))
	} else {
		w.fault(m.id, fmt.Sprintf(forceRemoveText, m.memberID, m.clusterID(), strings.Join(removed, ", "), commit+1, next-1))
	}
	return old
}

// forcedStarted finishes a restart with --force-new-cluster once m has
// applied what its log commits: the new group's linearizability check
// starts from m's store, and the transcript says what the old cluster
// (group old) acknowledged that m's store lacks.
func (w *World) forcedStarted(m *member, old int) {
	g := w.groups[m.group]
	g.setInitial(m.kv)
	rev := m.kv.Revision()
	lost, seen, keys := w.lostWrites(old, rev)
	if lost == 0 {
		w.fault(m.id, fmt.Sprintf(forceLostNothingText, rev, seen))
	} else {
		w.fault(m.id, fmt.Sprintf(forceLostWritesText, rev, seen, lost, keys))
	}
}

// effectiveIDs returns the raft IDs a log's configuration holds: the
// snapshot's voters and learners, then each configuration change of the
// entries after it (etcd's GetEffectiveNodeIDsFromWALEntries), in order.
func effectiveIDs(cs *pb.ConfState, ents []*pb.Entry) []uint64 {
	var ids []uint64
	add := func(id uint64) {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	for _, id := range append(slices.Clone(cs.GetVoters()), cs.GetLearners()...) {
		add(id)
	}
	for _, e := range ents {
		var cc pb.ConfChangeI
		switch e.GetType() {
		case pb.EntryConfChange:
			var v1 pb.ConfChange
			if proto.Unmarshal(e.GetData(), &v1) != nil {
				continue
			}
			cc = &v1
		case pb.EntryConfChangeV2:
			var v2 pb.ConfChangeV2
			if proto.Unmarshal(e.GetData(), &v2) != nil {
				continue
			}
			cc = &v2
		default:
			continue
		}
		for _, ch := range cc.AsV2().GetChanges() {
			switch ch.GetType() {
			case pb.ConfChangeAddNode, pb.ConfChangeAddLearnerNode:
				add(ch.GetNodeId())
			case pb.ConfChangeRemoveNode:
				ids = slices.DeleteFunc(ids, func(id uint64) bool { return id == ch.GetNodeId() })
			}
		}
	}
	slices.Sort(ids)
	return ids
}
