package sim

import (
	"fmt"
	"slices"

	"go.etcd.io/etcd/api/v3/mvccpb"

	"github.com/raftsim/raftsim/lease"
	"github.com/raftsim/raftsim/mvcc"
	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/snapshot"
)

// storageVersion is the storage version a member's backend holds once the
// cluster version has reached 3.6 (etcd's monitorStorageVersion).
const storageVersion = "3.6.0"

// SnapshotOf returns what `etcdctl snapshot save` streams from the named
// member: its backend as etcd's would hold it (the consistent index and
// term of the entry it applied last, its raft configuration and
// membership, its leases) and, through records, its key bucket. It fails
// when the member is down (its state machine is volatile).
//
// Members are named by etcd member ID, as etcd's raft names them; the
// members_removed bucket stays empty (the simulator keeps no list of
// removed members; docs/semantics.md).
func (w *World) SnapshotOf(name string) (*snapshot.State, func(yield func(*snapshot.Record) error) error, error) {
	m := w.byName[name]
	if m == nil {
		return nil, nil, fmt.Errorf("no member %q", name)
	}
	if !m.up || m.kv == nil {
		return nil, nil, fmt.Errorf("%s is down", name)
	}
	st := &snapshot.State{ConsistentIndex: m.applied, AuthRevision: 1, ClusterVersion: m.cluster.version}
	if e, ok := m.entryAt(m.applied); ok {
		st.Term = e.Term
	} else {
		st.Term = m.snap.Term
	}
	if st.ClusterVersion == "3.6.0" {
		st.StorageVersion = storageVersion
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
	for _, id := range m.kv.Lessor.Leases() {
		st.Leases = append(st.Leases, snapshot.Lease{ID: id, TTL: m.kv.Lessor.Lookup(id).TTL})
	}
	if c := m.kv.Store.CompactRev(); c > 0 {
		st.ScheduledCompact, st.FinishedCompact = c, c
	}
	store := m.kv.Store
	records := func(yield func(*snapshot.Record) error) error {
		var r snapshot.Record
		return store.Records(func(rev mvcc.Revision, tomb bool, kv *mvccpb.KeyValue) error {
			r = snapshot.Record{Rev: snapshot.Revision{Main: rev.Main, Sub: rev.Sub}, Tombstone: tomb}
			r.KV.Key = kv.Key
			if !tomb {
				r.KV.Value = kv.Value
				r.KV.CreateRevision, r.KV.ModRevision, r.KV.Version, r.KV.Lease = kv.CreateRevision, kv.ModRevision, kv.Version, kv.Lease
			}
			return yield(&r)
		})
	}
	return st, records, nil
}

// RestoreKV turns an etcd snapshot's key bucket and leases into the state
// machine a restored cluster's members start with (Config.InitialKV), as
// etcd rebuilds its store and lessor from the database it starts on: the
// revision and the compaction are kept; leases keep their IDs and TTLs.
func RestoreKV(st *snapshot.State, records func(yield func(*snapshot.Record) error) error) ([]byte, error) {
	le := lease.New(0)
	for _, l := range st.Leases {
		if _, err := le.Grant(l.ID, l.TTL, 0); err != nil {
			return nil, fmt.Errorf("lease %016x: %v", l.ID, err)
		}
	}
	compact := int64(-1)
	if st.FinishedCompact > 0 {
		compact = st.FinishedCompact
	}
	store, err := mvcc.Load(compact, st.ScheduledCompact, le, func(yield func(mvcc.Revision, bool, *mvccpb.KeyValue) error) error {
		return records(func(r *snapshot.Record) error {
			return yield(mvcc.Revision{Main: r.Rev.Main, Sub: r.Rev.Sub}, r.Tombstone, &r.KV)
		})
	})
	if err != nil {
		return nil, err
	}
	return (&server.KV{Store: store, Lessor: le}).Encode(), nil
}
