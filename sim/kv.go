package sim

import (
	"encoding/binary"
	"errors"
	"slices"
	"strings"
)

// KV is a member's state machine: etcd's key space, without MVCC history.
// Every change bumps the store's revision, as in etcd; each key keeps its
// create and mod revisions and its version.
type KV struct {
	Revision int64
	items    map[string]*KeyValue
}

// KeyValue is one key with etcd's per-key metadata.
type KeyValue struct {
	Key            string
	Value          string
	CreateRevision int64
	ModRevision    int64
	Version        int64
}

// newKV returns an empty store. etcd's store starts at revision 1, so the
// first write is revision 2.
func newKV() *KV { return &KV{Revision: 1, items: map[string]*KeyValue{}} }

// Get returns the key, if present.
func (kv *KV) Get(key string) (KeyValue, bool) {
	if it, ok := kv.items[key]; ok {
		return *it, true
	}
	return KeyValue{}, false
}

// Range returns every key with the prefix, in key order.
func (kv *KV) Range(prefix string) []KeyValue {
	var out []KeyValue
	for k, it := range kv.items {
		if strings.HasPrefix(k, prefix) {
			out = append(out, *it)
		}
	}
	slices.SortFunc(out, func(a, b KeyValue) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// Len returns the number of keys.
func (kv *KV) Len() int { return len(kv.items) }

func (kv *KV) put(key, value string) KeyValue {
	kv.Revision++
	it, ok := kv.items[key]
	if !ok {
		it = &KeyValue{Key: key, CreateRevision: kv.Revision}
		kv.items[key] = it
	}
	it.Value = value
	it.ModRevision = kv.Revision
	it.Version++
	return *it
}

// del deletes key, or every key under it with prefix, as one revision, and
// returns what it deleted.
func (kv *KV) del(key string, prefix bool) []KeyValue {
	var gone []KeyValue
	if prefix {
		gone = kv.Range(key)
	} else if it, ok := kv.items[key]; ok {
		gone = []KeyValue{*it}
	}
	if len(gone) == 0 {
		return nil
	}
	kv.Revision++
	for _, it := range gone {
		delete(kv.items, it.Key)
	}
	return gone
}

// encode writes the state machine for a snapshot, keys in order.
func (kv *KV) encode() []byte {
	all := kv.Range("")
	b := binary.AppendUvarint(nil, uint64(kv.Revision))
	b = binary.AppendUvarint(b, uint64(len(all)))
	for _, it := range all {
		b = appendString(b, it.Key)
		b = appendString(b, it.Value)
		b = binary.AppendUvarint(b, uint64(it.CreateRevision))
		b = binary.AppendUvarint(b, uint64(it.ModRevision))
		b = binary.AppendUvarint(b, uint64(it.Version))
	}
	return b
}

var errCorrupt = errors.New("corrupt snapshot data")

func decodeKV(b []byte) (*KV, error) {
	kv := newKV()
	if len(b) == 0 {
		return kv, nil
	}
	d := decoder{b: b}
	kv.Revision = int64(d.uvarint())
	n := d.uvarint()
	for i := uint64(0); i < n && d.err == nil; i++ {
		it := &KeyValue{Key: d.string(), Value: d.string()}
		it.CreateRevision = int64(d.uvarint())
		it.ModRevision = int64(d.uvarint())
		it.Version = int64(d.uvarint())
		kv.items[it.Key] = it
	}
	return kv, d.err
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errCorrupt
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// request is what a client write puts in a raft entry.
type request struct {
	op     uint64 // the Op's ID, so the member that proposed it can answer
	kind   OpKind
	key    string
	value  string
	prefix bool
}

func (r request) encode() []byte {
	b := []byte{byte(r.kind)}
	if r.prefix {
		b[0] |= 0x80
	}
	b = binary.AppendUvarint(b, r.op)
	b = appendString(b, r.key)
	return appendString(b, r.value)
}

func decodeRequest(b []byte) (request, error) {
	if len(b) == 0 {
		return request{}, errCorrupt
	}
	r := request{kind: OpKind(b[0] &^ 0x80), prefix: b[0]&0x80 != 0}
	d := decoder{b: b[1:]}
	r.op = d.uvarint()
	r.key = d.string()
	r.value = d.string()
	return r, d.err
}
