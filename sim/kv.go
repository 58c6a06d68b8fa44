package sim

import (
	"encoding/binary"
	"errors"

	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/lease"
	"github.com/raftsim/raftsim/mvcc"
)

// KV is a member's state machine: etcd's MVCC store and its lessor. Both
// are volatile: a restart rebuilds them from the snapshot and the log.
type KV struct {
	store  *mvcc.Store
	lessor *lease.Lessor
}

func newKV(minLeaseTTL int64) *KV {
	kv := &KV{store: mvcc.New(), lessor: lease.New(minLeaseTTL)}
	kv.store.SetLessor(kv.lessor)
	return kv
}

// Revision returns the store's current revision.
func (kv *KV) Revision() int64 { return kv.store.Rev() }

// Get returns the key, if present.
func (kv *KV) Get(key string) (*KeyValue, bool) {
	r, _ := kv.store.Range(&etcdserverpb.RangeRequest{Key: []byte(key)})
	if len(r.Kvs) == 0 {
		return nil, false
	}
	return r.Kvs[0], true
}

// Range returns every key with the prefix, in key order.
func (kv *KV) Range(prefix string) []*KeyValue {
	r, _ := kv.store.Range(&etcdserverpb.RangeRequest{Key: []byte(prefix), RangeEnd: mvcc.PrefixEnd([]byte(prefix))})
	return r.Kvs
}

// encode writes the state machine for a snapshot: the store (with its
// history), then the leases.
func (kv *KV) encode() []byte {
	s := kv.store.Encode()
	b := binary.AppendUvarint(nil, uint64(len(s)))
	b = append(b, s...)
	return append(b, kv.lessor.Encode()...)
}

var errCorrupt = errors.New("corrupt snapshot data")

func decodeKV(b []byte, minLeaseTTL int64) (*KV, error) {
	if len(b) == 0 {
		return newKV(minLeaseTTL), nil
	}
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, errCorrupt
	}
	le, err := lease.Decode(b[k+int(n):], minLeaseTTL)
	if err != nil {
		return nil, err
	}
	st, err := mvcc.Decode(b[k:k+int(n)], le)
	if err != nil {
		return nil, err
	}
	return &KV{store: st, lessor: le}, nil
}
