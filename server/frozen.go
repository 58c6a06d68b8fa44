package server

import (
	"github.com/raftsim/raftsim/lease"
	"github.com/raftsim/raftsim/mvcc"
)

// FrozenKV is a state machine as it stood when it was frozen: what a
// member's raft snapshot refers to. etcd's raft snapshot holds only the
// membership (the v2 store); the key-value store is the backend, which a
// leader streams beside the raft snapshot (snap.Message). Here the
// snapshot refers to a FrozenKV, which shares the store's records, key
// index and backend with the live store (mvcc.Store.Fork, copy on write)
// instead of holding an encoding of it: a snapshot of a store of n keys
// costs a pointer per block of keys, not an encoding of every record
// (issue 30).
type FrozenKV struct {
	store  *mvcc.Store // never changed: Thaw forks it
	leases []byte      // the lessor's encoding
	auth   []byte      // the auth store's encoding (nil: never used)
}

// Freeze returns the state machine as it stands now; kv's later changes
// leave it as it is.
func (kv *KV) Freeze() *FrozenKV {
	f := &FrozenKV{store: kv.Store.Freeze(), leases: kv.Lessor.Encode()}
	if kv.Auth != nil && !kv.Auth.Empty() {
		f.auth = kv.Auth.Encode()
	}
	return f
}

// Thaw returns a state machine of its own that begins as f, as DecodeKV of
// the encoding kv.Encode gave when f was frozen would: its leases decoded,
// and told of the keys attached to them.
func (f *FrozenKV) Thaw(minLeaseTTL int64) (*KV, error) {
	le, err := lease.Decode(f.leases, minLeaseTTL)
	if err != nil {
		return nil, err
	}
	as := NewAuthStore()
	if f.auth != nil {
		if as, err = DecodeAuthStore(f.auth); err != nil {
			return nil, err
		}
	}
	return &KV{Store: f.store.Fork(le), Lessor: le, Auth: as}, nil
}

// Revision is the frozen store's revision.
func (f *FrozenKV) Revision() int64 { return f.store.Rev() }
