package server

import (
	"encoding/binary"
	"errors"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"

	"github.com/raftsim/raftsim/lease"
	"github.com/raftsim/raftsim/mvcc"
)

// KV is a member's state machine: etcd's MVCC store, its lessor and its
// auth store. They are volatile: a restart rebuilds them from the
// snapshot and the log.
type KV struct {
	Store  *mvcc.Store
	Lessor *lease.Lessor
	Auth   *AuthStore
	// ApplyIndex is the raft index of the entry being applied (etcd's
	// consistent index): an Authenticate's token ends with it.
	ApplyIndex uint64
}

// NewKV returns an empty state machine whose leases live at least
// minLeaseTTL seconds.
func NewKV(minLeaseTTL int64) *KV {
	kv := &KV{Store: mvcc.New(), Lessor: lease.New(minLeaseTTL), Auth: NewAuthStore()}
	kv.Store.SetLessor(kv.Lessor)
	return kv
}

// Revision returns the store's current revision.
func (kv *KV) Revision() int64 { return kv.Store.Rev() }

// Get returns the key, if present.
func (kv *KV) Get(key string) (*mvccpb.KeyValue, bool) {
	r, _ := kv.Store.Range(&etcdserverpb.RangeRequest{Key: []byte(key)})
	if len(r.Kvs) == 0 {
		return nil, false
	}
	return r.Kvs[0], true
}

// Range returns every key with the prefix, in key order.
func (kv *KV) Range(prefix string) []*mvccpb.KeyValue {
	r, _ := kv.Store.Range(&etcdserverpb.RangeRequest{Key: []byte(prefix), RangeEnd: mvcc.PrefixEnd([]byte(prefix))})
	return r.Kvs
}

// Encode writes the state machine for a snapshot: the store (with its
// history), then the leases, then, once auth has been used, the auth
// store with its length and authMagic (a state machine that never used
// auth encodes as it did before auth was simulated).
func (kv *KV) Encode() []byte {
	s := kv.Store.Encode()
	b := binary.AppendUvarint(nil, uint64(len(s)))
	b = append(b, s...)
	b = append(b, kv.Lessor.Encode()...)
	if kv.Auth.Empty() {
		return b
	}
	a := kv.Auth.Encode()
	b = append(b, a...)
	b = binary.BigEndian.AppendUint64(b, uint64(len(a)))
	return append(b, authMagic...)
}

// authMagic ends the data of a state machine that holds an auth store.
const authMagic = "raftsim-auth\x00\x01"

// splitAuth parts Encode's bytes into the store and leases, and the auth
// store (nil for none).
func splitAuth(b []byte) (rest []byte, auth *AuthStore, err error) {
	if len(b) < len(authMagic)+8 || string(b[len(b)-len(authMagic):]) != authMagic {
		return b, NewAuthStore(), nil
	}
	b = b[:len(b)-len(authMagic)]
	n := binary.BigEndian.Uint64(b[len(b)-8:])
	b = b[:len(b)-8]
	if n > uint64(len(b)) {
		return nil, nil, ErrCorrupt
	}
	as, err := DecodeAuthStore(b[len(b)-int(n):])
	if err != nil {
		return nil, nil, err
	}
	return b[:len(b)-int(n)], as, nil
}

// ErrCorrupt says snapshot data could not be decoded.
var ErrCorrupt = errors.New("corrupt snapshot data")

// DecodeKV rebuilds a state machine from Encode's bytes; empty data is an
// empty one.
func DecodeKV(b []byte, minLeaseTTL int64) (*KV, error) {
	if len(b) == 0 {
		return NewKV(minLeaseTTL), nil
	}
	b, as, err := splitAuth(b)
	if err != nil {
		return nil, err
	}
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, ErrCorrupt
	}
	le, err := lease.Decode(b[k+int(n):], minLeaseTTL)
	if err != nil {
		return nil, err
	}
	st, err := mvcc.Decode(b[k:k+int(n)], le)
	if err != nil {
		return nil, err
	}
	return &KV{Store: st, Lessor: le, Auth: as}, nil
}

// SharedKV is a state machine decoded once, from which the members of a
// cluster that begins with it (sim.Config.InitialKV: a restored
// snapshot) each take their own (KV), sharing its records: with five
// members, a snapshot's records were decoded six times (issue 30).
type SharedKV struct {
	store  *mvcc.Store // frozen: only forked
	leases []byte      // the lessor's part of the data, decoded for each KV
	auth   []byte      // the auth store's, likewise (nil: none)
}

// DecodeShared decodes Encode's bytes once, for KV to fork. The records'
// bytes are b's own: b must not change while any of the state machines is
// in use.
func DecodeShared(b []byte, minLeaseTTL int64) (*SharedKV, error) {
	if len(b) == 0 {
		return &SharedKV{store: mvcc.New().Freeze()}, nil
	}
	b, as, err := splitAuth(b)
	if err != nil {
		return nil, err
	}
	var auth []byte
	if !as.Empty() {
		auth = as.Encode()
	}
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, ErrCorrupt
	}
	leases := b[k+int(n):]
	if _, err := lease.Decode(leases, minLeaseTTL); err != nil {
		return nil, err
	}
	st, err := mvcc.DecodeShared(b[k : k+int(n)])
	if err != nil {
		return nil, err
	}
	return &SharedKV{store: st, leases: leases, auth: auth}, nil
}

// KV returns a state machine of its own, as DecodeKV of the same bytes
// gives, that shares the records with the others, its leases living at
// least minLeaseTTL seconds. Several goroutines may call it at once.
func (s *SharedKV) KV(minLeaseTTL int64) *KV {
	le, err := lease.Decode(s.leases, minLeaseTTL)
	if err != nil {
		panic("server: the leases decoded once fail to decode: " + err.Error()) // DecodeShared decoded them
	}
	as := NewAuthStore()
	if s.auth != nil {
		if as, err = DecodeAuthStore(s.auth); err != nil {
			panic("server: the auth store decoded once fails to decode: " + err.Error())
		}
	}
	return &KV{Store: s.store.Fork(le), Lessor: le, Auth: as}
}
