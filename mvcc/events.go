package mvcc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"go.etcd.io/etcd/api/v3/mvccpb"
)

// Changes returns the events of every revision from minRev to the current
// one, in order, as etcd's watchable store reads them from its backend to
// catch up an unsynced watcher (syncWatchers). It fails with ErrCompacted
// when minRev is older than the last compaction: those events are gone.
// Each event carries the key as it was before (PrevKv) when that revision
// can still be read.
func (s *Store) Changes(minRev int64) ([]mvccpb.Event, error) {
	if minRev < s.compactMainRev {
		return nil, ErrCompacted
	}
	// the first record of minRev, or where it would be
	i := s.backend.search(func(r *record) bool { return r.rev.Main < minRev })
	var evs []mvccpb.Event
	for ; i < s.backend.len(); i++ {
		r := s.backend.at(i)
		kv := r.kv()
		ev := mvccpb.Event{Type: mvccpb.PUT, Kv: &kv}
		if r.tomb {
			ev.Type = mvccpb.DELETE
		}
		if !IsCreate(&ev) {
			if kvs, _, _, err := s.rangeKeys(kv.Key, nil, s.currentRev, kv.ModRevision-1, 0, false); err == nil && len(kvs) > 0 {
				ev.PrevKv = &kvs[0]
			}
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

// Encode writes the store as a snapshot carries it: the revisions and the
// backend. The index is rebuilt from the backend on Decode, as etcd
// rebuilds its tree index from bbolt when it restores a snapshot.
func (s *Store) Encode() []byte {
	b := binary.AppendVarint(nil, s.currentRev)
	b = binary.AppendVarint(b, s.compactMainRev)
	b = binary.AppendUvarint(b, uint64(s.backend.len()))
	for i := range s.backend.len() {
		r := s.backend.at(i)
		b = binary.AppendVarint(b, r.rev.Main)
		b = binary.AppendVarint(b, r.rev.Sub)
		if r.tomb {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		b = appendBytes(b, r.key)
		b = appendBytes(b, r.value)
		b = binary.AppendVarint(b, r.create)
		b = binary.AppendVarint(b, r.rev.Main) // the mod revision, as etcd's KeyValue has it
		b = binary.AppendVarint(b, r.version)
		b = binary.AppendVarint(b, r.lease)
	}
	return b
}

// ErrCorrupt says snapshot data could not be decoded.
var ErrCorrupt = errors.New("mvcc: corrupt snapshot data")

// Decode rebuilds a store from Encode's bytes; empty data is an empty
// store. Leases attached to keys are reported to the lessor, if one is set.
func Decode(data []byte, lessor Lessor) (*Store, error) {
	return decode(data, lessor, false)
}

func decode(data []byte, lessor Lessor, share bool) (*Store, error) {
	s := New()
	s.lessor = lessor
	if len(data) == 0 {
		return s, nil
	}
	d := decoder{b: data, share: share}
	s.currentRev = d.varint()
	s.compactMainRev = d.varint()
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.b)) {
		return nil, ErrCorrupt
	}
	for i := uint64(0); i < n && d.err == nil; i++ {
		var r record
		r.rev.Main, r.rev.Sub = d.varint(), d.varint()
		r.tomb = d.byte() == 1
		r.key, r.value = d.bytes(), d.bytes()
		r.create, _ = d.varint(), d.varint() // the mod revision is r.rev.Main
		r.version, r.lease = d.varint(), d.varint()
		if last := s.backend.last(); last != nil && !r.rev.GreaterThan(last.rev) {
			return nil, ErrCorrupt
		}
		s.backend.append(&r)
	}
	if d.err != nil {
		return nil, d.err
	}
	s.restoreIndex()
	return s, nil
}

// restoreIndex rebuilds the key index from the backend, as etcd's
// restoreIntoIndex does: the first record of a key (the others were
// compacted away) restores its generation with the record's own create
// revision and version.
func (s *Store) restoreIndex() {
	leases := map[string]int64{}
	byKey := map[string]*keyIndex{} // while it is built
	var kis []*keyIndex
	for i := range s.backend.len() {
		r := s.backend.at(i)
		k := string(r.key)
		ki := byKey[k]
		switch {
		case ki != nil && r.tomb:
			_ = ki.tombstone(r.rev) // a tombstone of a key already deleted is ignored, as etcd warns and goes on
		case ki != nil:
			ki.put(r.rev)
		case r.tomb:
			ki = &keyIndex{key: r.key, modified: r.rev, generations: []generation{
				{created: r.rev, ver: 1, revs: []Revision{r.rev}}, {}}}
		default:
			ki = &keyIndex{key: r.key, modified: r.rev, generations: []generation{
				{created: Revision{Main: r.create}, ver: r.version, revs: []Revision{r.rev}}}}
		}
		r.key = ki.key // one copy of the key, shared by its records
		if ki.modified == r.rev {
			ki.pos = i
		}
		if byKey[k] == nil {
			byKey[k] = ki
			kis = append(kis, ki)
		}
		if r.tomb || r.lease == 0 {
			delete(leases, k)
		} else {
			leases[k] = r.lease
		}
	}
	s.index.build(kis)
	if s.lessor != nil {
		s.index.ascend(nil, func(ki *keyIndex) bool { // in key order, never map order
			k := string(ki.key)
			if id, ok := leases[k]; ok {
				s.lessor.Attach(id, k)
			}
			return true
		})
	}
}

func appendBytes(b, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

type decoder struct {
	b     []byte
	err   error
	share bool // bytes returns data's own bytes, not copies
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = ErrCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = ErrCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.err = ErrCorrupt
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// bytes returns the next length-prefixed bytes, copied (nil when empty).
func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = ErrCorrupt
		return nil
	}
	if n == 0 {
		return nil
	}
	s := d.b[:n:n]
	if !d.share {
		s = slices.Clone(s)
	}
	d.b = d.b[n:]
	return s
}

// Records calls f for every change the store holds, oldest first, as
// etcd's key bucket holds them (a tombstone's kv holds its key and
// ModRevision), and stops at f's first error.
func (s *Store) Records(f func(rev Revision, tomb bool, kv *mvccpb.KeyValue) error) error {
	for i := range s.backend.len() {
		r := s.backend.at(i)
		kv := r.kv()
		if err := f(r.rev, r.tomb, &kv); err != nil {
			return err
		}
	}
	return nil
}

// MaxRestoredRev is the newest revision a store Load rebuilds may be at:
// 2^62, which leaves more revisions to write than any run writes, where a
// store at 2^63-1 (which etcd's int64 cannot go past) would fail at its
// next write.
const MaxRestoredRev = 1 << 62

// Load rebuilds a store from etcd's key bucket, read in revision order, as
// etcd's store.restore does when it starts on a database: the current
// revision is the newest one read, or the compaction revision (finished,
// else scheduled) when that is later; compactRev is -1 when there has been
// no compaction. Leases attached to keys are reported to the lessor, if
// one is set. The store keeps the key-values' key and value bytes, not
// copies: records must hand each record in bytes of its own, never
// changed afterwards (a copy of a snapshot's values doubled what opening
// one allocated, issue 30).
func Load(compactRev, scheduledCompact int64, lessor Lessor, records func(yield func(rev Revision, tomb bool, kv *mvccpb.KeyValue) error) error) (*Store, error) {
	s := New()
	s.lessor = lessor
	s.compactMainRev = compactRev
	err := records(func(rev Revision, tomb bool, kv *mvccpb.KeyValue) error {
		if last := s.backend.last(); last != nil && !rev.GreaterThan(last.rev) {
			return fmt.Errorf("revision %d_%d follows %d_%d: the key bucket is out of order", rev.Main, rev.Sub, last.rev.Main, last.rev.Sub)
		}
		if rev.Main < 1 {
			return fmt.Errorf("revision %d_%d is before the first", rev.Main, rev.Sub)
		}
		r := record{rev: rev, key: kv.Key, tomb: tomb}
		if !tomb {
			r.value, r.create, r.version, r.lease = kv.Value, kv.CreateRevision, kv.Version, kv.Lease
		}
		s.backend.append(&r)
		s.currentRev = rev.Main
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.currentRev = max(s.currentRev, compactRev, scheduledCompact, 1)
	if s.currentRev > MaxRestoredRev {
		return nil, fmt.Errorf("revision %d is too near 2^63-1, the largest etcd's revision can hold: etcd v3.6.16 does not check that a write's revision overflows it (kvstore_txn.go: currentRev++), and raftsim opens stores up to revision 2^62 (%d)", s.currentRev, int64(MaxRestoredRev))
	}
	s.restoreIndex()
	return s, nil
}
