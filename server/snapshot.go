package server

import (
	"fmt"

	"go.etcd.io/etcd/api/v3/mvccpb"

	"github.com/raftsim/raftsim/lease"
	"github.com/raftsim/raftsim/mvcc"
	"github.com/raftsim/raftsim/snapshot"
)

// Records is a snapshot file's key bucket, record by record.
type Records = func(yield func(*snapshot.Record) error) error

// Snapshot fills in st what `etcdctl snapshot save` streams of the state
// machine beside raft's position and the membership (which the member
// fills in): the auth revision, the storage version at st.ClusterVersion,
// the leases and the compaction; and returns the key bucket's records.
func (kv *KV) Snapshot(st *snapshot.State) Records {
	st.AuthRevision = 1
	st.StorageVersion = StorageVersion(st.ClusterVersion)
	for _, id := range kv.Lessor.Leases() {
		st.Leases = append(st.Leases, snapshot.Lease{ID: id, TTL: kv.Lessor.Lookup(id).TTL})
	}
	if c := kv.Store.CompactRev(); c > 0 {
		st.ScheduledCompact, st.FinishedCompact = c, c
	}
	store := kv.Store
	// NB: the records' key and value bytes are the store's, which never
	// change once kept: a restore may keep them (mvcc.Load).
	return func(yield func(*snapshot.Record) error) error {
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
}

// RestoreKV turns an etcd snapshot's key bucket and leases into the state
// machine a restored cluster's members start with (sim.Config.InitialKV),
// as etcd rebuilds its store and lessor from the database it starts on:
// the revision and the compaction are kept; leases keep their IDs and
// TTLs.
func RestoreKV(st *snapshot.State, records Records) ([]byte, error) {
	kv, err := restore(st, records)
	if err != nil {
		return nil, err
	}
	return kv.Encode(), nil
}

// RestoreShared is RestoreKV's state machine not encoded, for the members
// of a restored cluster to fork (SharedKV.KV): what DecodeShared of
// RestoreKV's bytes gives, without a copy of the store in its encoding
// beside the one read (issue 30).
func RestoreShared(st *snapshot.State, records Records) (*SharedKV, error) {
	kv, err := restore(st, records)
	if err != nil {
		return nil, err
	}
	return &SharedKV{store: kv.Store.Freeze(), leases: kv.Lessor.Encode()}, nil
}

func restore(st *snapshot.State, records Records) (*KV, error) {
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
	return &KV{Store: store, Lessor: le}, nil
}
