package mvcc

import (
	"encoding/binary"
	"hash/crc32"

	"go.etcd.io/etcd/api/v3/mvccpb"
)

// KeyValueHash is what etcd's HashKV answers: the hash of the store's
// changes up to Revision, and the compaction revision it was taken at.
type KeyValueHash struct {
	Hash            uint32
	CompactRevision int64
	Revision        int64
}

// HashByRev hashes the store's changes up to rev (0: the current
// revision) exactly as etcd's HashByRev does, so that `etcdctl endpoint
// hashkv` prints the same numbers: CRC-32C over the bucket name "key",
// then each change's bbolt key (its revision, "t" for a tombstone) and
// value (the marshalled mvccpb.KeyValue), skipping what a compaction at
// rev would drop. It also returns the current revision.
func (s *Store) HashByRev(rev int64) (KeyValueHash, int64, error) {
	compactRev, currentRev := s.compactMainRev, s.currentRev
	switch {
	case rev > 0 && rev < compactRev:
		return KeyValueHash{}, 0, ErrCompacted
	case rev > 0 && rev > currentRev:
		return KeyValueHash{}, currentRev, ErrFutureRev
	case rev == 0:
		rev = currentRev
	}
	keep := map[Revision]struct{}{}
	s.index.ascend(nil, func(ki *keyIndex) bool {
		ki.keep(rev, keep)
		return true
	})
	h := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	h.Write([]byte("key"))
	upper := Revision{Main: rev + 1}
	lower := Revision{Main: compactRev + 1}
	for i := range s.backend.len() {
		r := s.backend.at(i)
		if !upper.GreaterThan(r.rev) {
			break
		}
		if lower.GreaterThan(r.rev) && len(keep) > 0 {
			if _, ok := keep[r.rev]; !ok {
				continue
			}
		}
		if r.rev.Main == compactRev && r.tomb {
			continue // etcd skips a tombstone at the compaction revision
		}
		h.Write(bucketKey(r.rev, r.tomb))
		kv := r.kv()
		if r.tomb {
			kv = mvccpb.KeyValue{Key: kv.Key} // etcd stores a tombstone's key alone
		}
		b, err := kv.Marshal()
		if err != nil {
			panic("mvcc: marshal a key-value: " + err.Error())
		}
		h.Write(b)
	}
	return KeyValueHash{Hash: h.Sum32(), CompactRevision: compactRev, Revision: rev}, currentRev, nil
}

// keep adds to available the revisions of this key that a compaction at
// atRev keeps, as etcd's keyIndex.keep does (a tombstone at atRev is not
// kept, so that hashes agree across etcd versions).
func (ki *keyIndex) keep(atRev int64, available map[Revision]struct{}) {
	if ki.isEmpty() {
		return
	}
	genIdx, revIndex := ki.doCompact(atRev, available)
	g := &ki.generations[genIdx]
	if !g.isEmpty() && revIndex == len(g.revs)-1 && genIdx != len(ki.generations)-1 {
		delete(available, g.revs[revIndex])
	}
}

// bucketKey is a change's key in etcd's bbolt "key" bucket: the main and
// sub revision, big-endian, joined by '_', and 't' for a tombstone.
func bucketKey(rev Revision, tomb bool) []byte {
	b := make([]byte, 17, 18)
	binary.BigEndian.PutUint64(b, uint64(rev.Main))
	b[8] = '_'
	binary.BigEndian.PutUint64(b[9:], uint64(rev.Sub))
	if tomb {
		b = append(b, 't')
	}
	return b
}
