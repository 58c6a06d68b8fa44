package sim

import (
	"fmt"
	"slices"

	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/snapshot"
)

// SnapshotOf returns what `etcdctl snapshot save` streams from the named
// member: its backend as etcd's would hold it (the consistent index and
// term of the entry it applied last, its raft configuration and
// membership, and what server.KV.Snapshot adds of its state machine: its
// leases and, through records, its key bucket). It fails when the member
// is down (its state machine is volatile).
//
// Members are named by etcd member ID, as etcd's raft names them; the
// members_removed bucket stays empty (the simulator keeps no list of
// removed members; docs/semantics.md).
func (w *World) SnapshotOf(name string) (*snapshot.State, server.Records, error) {
	m := w.byName[name]
	if m == nil {
		return nil, nil, fmt.Errorf("no member %q", name)
	}
	if !m.up || m.kv == nil {
		return nil, nil, fmt.Errorf("%s is down", name)
	}
	st := &snapshot.State{ConsistentIndex: m.applied, ClusterVersion: m.cluster.Version}
	if e, ok := m.entryAt(m.applied); ok {
		st.Term = e.Term
	} else {
		st.Term = m.snap.Term
	}
	toMemberIDs := func(ids []uint64) []uint64 {
		var out []uint64
		for _, id := range ids {
			out = append(out, w.members[id-1].memberID)
		}
		slices.Sort(out)
		return out
	}
	st.ConfState.Voters = toMemberIDs(m.conf.GetVoters())
	st.ConfState.Learners = toMemberIDs(m.conf.GetLearners())
	members, _ := w.MemberList(name)
	for _, cm := range members {
		st.Members = append(st.Members, snapshot.Member{ID: cm.ID, PeerURLs: cm.PeerURLs, IsLearner: cm.IsLearner,
			Name: cm.Name, ClientURLs: cm.ClientURLs})
	}
	return st, m.kv.Snapshot(st), nil
}
