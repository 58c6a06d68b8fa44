package sim

import (
	"fmt"
	"math"
	"slices"

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
