package sim

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/raftsim/raftsim/lease"
	"github.com/raftsim/raftsim/mvcc"
)

// KeyValue is one key with etcd's per-key metadata (mvccpb.KeyValue).
type KeyValue = mvcc.KeyValue

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
func (kv *KV) Get(key string) (KeyValue, bool) {
	r, _ := kv.store.Range(&mvcc.RangeRequest{Key: key})
	if len(r.Kvs) == 0 {
		return KeyValue{}, false
	}
	return *r.Kvs[0], true
}

// Range returns every key with the prefix, in key order.
func (kv *KV) Range(prefix string) []KeyValue {
	r, _ := kv.store.Range(&mvcc.RangeRequest{Key: prefix, RangeEnd: prefixEnd(prefix)})
	out := make([]KeyValue, len(r.Kvs))
	for i, x := range r.Kvs {
		out[i] = *x
	}
	return out
}

// prefixEnd is the range end of a prefix read, as clientv3's WithPrefix
// makes it: every key for the empty prefix.
func prefixEnd(prefix string) string {
	if prefix == "" {
		return mvcc.GteEnd
	}
	return mvcc.PrefixEnd(prefix)
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

// request is what a client write (or the leader's lessor) puts in a raft
// entry. A plain put or delete is packed by hand, since most entries are
// one; anything else carries its extra fields as JSON.
type request struct {
	op     uint64 // the Op's ID, so the member that proposed it can answer; 0 from the lessor
	kind   OpKind
	key    string
	value  string
	prefix bool
	ext    *requestExt
}

// requestExt holds what only some requests need.
type requestExt struct {
	RangeEnd string           `json:"range_end,omitempty"`
	PrevKV   bool             `json:"prev_kv,omitempty"`
	Lease    int64            `json:"lease,omitempty"` // put: attach; lease grant, revoke: the lease
	TTL      int64            `json:"ttl,omitempty"`
	Rev      int64            `json:"rev,omitempty"` // compaction
	Txn      *mvcc.TxnRequest `json:"txn,omitempty"`
}

const (
	reqPrefix   = 0x80
	reqExtended = 0x40
)

func (r request) encode() []byte {
	b := []byte{byte(r.kind)}
	if r.prefix {
		b[0] |= reqPrefix
	}
	if r.ext != nil {
		b[0] |= reqExtended
	}
	b = binary.AppendUvarint(b, r.op)
	b = appendString(b, r.key)
	b = appendString(b, r.value)
	if r.ext != nil {
		if !r.ext.textOnly() {
			// JSON would replace bytes that are not UTF-8 (a
			// kube-apiserver's protobuf values in a transaction): gob
			// carries them as they are.
			var buf bytes.Buffer
			if err := gob.NewEncoder(&buf).Encode(r.ext); err != nil {
				panic("sim: encode request: " + err.Error())
			}
			return append(append(b, extGob), buf.Bytes()...)
		}
		ext, err := json.Marshal(r.ext)
		if err != nil {
			panic("sim: encode request: " + err.Error())
		}
		b = append(b, ext...)
	}
	return b
}

// extGob marks extra fields written with gob rather than JSON (which
// never starts with this byte).
const extGob = 0x01

// textOnly reports whether every string of the extra fields is UTF-8, as
// JSON carries strings.
func (e *requestExt) textOnly() bool {
	return utf8.ValidString(e.RangeEnd) && txnTextOnly(e.Txn)
}

func txnTextOnly(t *mvcc.TxnRequest) bool {
	if t == nil {
		return true
	}
	ok := utf8.ValidString
	for _, c := range t.Compare {
		if !ok(c.Key) || !ok(c.RangeEnd) || !ok(c.Value) {
			return false
		}
	}
	for _, ops := range [][]*mvcc.RequestOp{t.Success, t.Failure} {
		for _, o := range ops {
			switch {
			case o.RequestRange != nil && (!ok(o.RequestRange.Key) || !ok(o.RequestRange.RangeEnd)),
				o.RequestPut != nil && (!ok(o.RequestPut.Key) || !ok(o.RequestPut.Value)),
				o.RequestDeleteRange != nil && (!ok(o.RequestDeleteRange.Key) || !ok(o.RequestDeleteRange.RangeEnd)),
				o.RequestTxn != nil && !txnTextOnly(o.RequestTxn):
				return false
			}
		}
	}
	return true
}

func decodeRequest(b []byte) (request, error) {
	if len(b) == 0 {
		return request{}, errCorrupt
	}
	r := request{kind: OpKind(b[0] &^ (reqPrefix | reqExtended)), prefix: b[0]&reqPrefix != 0}
	d := decoder{b: b[1:]}
	r.op = d.uvarint()
	r.key = d.string()
	r.value = d.string()
	if d.err == nil && b[0]&reqExtended != 0 {
		r.ext = &requestExt{}
		if len(d.b) > 0 && d.b[0] == extGob {
			if err := gob.NewDecoder(bytes.NewReader(d.b[1:])).Decode(r.ext); err != nil {
				return r, errCorrupt
			}
		} else if err := json.Unmarshal(d.b, r.ext); err != nil {
			return r, errCorrupt
		}
	}
	return r, d.err
}
