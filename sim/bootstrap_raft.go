package sim

import (
	"slices"

	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/membership"
	"github.com/raftsim/raftsim/server"
)

// The ways a new cluster can start (Config.Bootstrap).
const (
	// BootstrapEtcd starts as etcd does (the default, also ""): one
	// configuration change per member at indexes 1..n in term 1, then each
	// member publishes itself and the leader sets the cluster version.
	BootstrapEtcd = "etcd"
	// BootstrapRaft starts as the Raft paper's figures do: every member's
	// log begins with the same entry at index 1 in term 1 (here a snapshot
	// of the configuration, as raftsim's first core did), and the members
	// are plain raft nodes: no election tick advance, no publication, no
	// cluster version. The first leader is elected in term 2 and appends
	// its empty entry at index 2, so a lesson can follow the paper's
	// indexes (Figure 8).
	BootstrapRaft = "raft"
)

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
	data := snapshotData(cluster.Encode(), server.NewKV(w.cfg.minLeaseTTL()).Encode())
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
