package mvcc

import (
	"slices"
	"sort"
	"strings"
)

// Lessor is what the store needs of the lease layer: whether a lease
// exists, and to be told when a key is attached to or detached from one.
type Lessor interface {
	Exists(id int64) bool
	Attach(id int64, key string)
	Detach(id int64, key string)
}

// record is one change in the backend, keyed by its revision, as etcd's
// bbolt "key" bucket holds them. A tombstone's kv holds the key only.
type record struct {
	rev  Revision
	kv   KeyValue
	tomb bool
}

// Store is one member's MVCC store. The zero value is not ready: use New.
type Store struct {
	currentRev     int64 // starts at 1, as etcd's does: the first write is revision 2
	compactMainRev int64 // -1 until the first compaction

	index map[string]*keyIndex
	keys  []string // the index's keys, sorted

	backend backend // every change not compacted away, in revision order

	lessor Lessor

	noEvents bool // nobody watches: writes need not report their events

	sizer SizeObserver // told of each change to the backend, if set
}

// SizeObserver is told of each record the backend gains or loses, as
// etcd's bbolt key bucket would gain or lose it: a model of the
// database's size (package dbsize) follows the store through it.
type SizeObserver interface {
	// Put: a record at rev, its value valueLen bytes (the marshalled
	// mvccpb.KeyValue).
	Put(rev Revision, tomb bool, valueLen int)
	// Delete: a compaction dropped the record at rev.
	Delete(rev Revision, tomb bool)
}

// SetSizeObserver connects a model of the database's size.
func (s *Store) SetSizeObserver(o SizeObserver) { s.sizer = o }

// ReportEvents says whether writes return their events (for watches); a
// member with no watch open turns it off, so that a write allocates less.
func (s *Store) ReportEvents(on bool) { s.noEvents = !on }

// New returns an empty store at revision 1.
func New() *Store {
	return &Store{currentRev: 1, compactMainRev: -1, index: map[string]*keyIndex{}}
}

// SetLessor connects the store to the lease layer.
func (s *Store) SetLessor(l Lessor) { s.lessor = l }

// Rev returns the current revision.
func (s *Store) Rev() int64 { return s.currentRev }

// CompactRev returns the revision of the last compaction, or -1.
func (s *Store) CompactRev() int64 { return s.compactMainRev }

// FirstRev returns the oldest revision that can still be read.
func (s *Store) FirstRev() int64 { return max(s.compactMainRev, 1) }

// visit calls f for every indexed key in [key, end), in key order. end ""
// means key alone; GteEnd means every key from key on.
func (s *Store) visit(key, end string, f func(ki *keyIndex)) {
	if end == "" {
		if ki := s.index[key]; ki != nil {
			f(ki)
		}
		return
	}
	i, _ := slices.BinarySearch(s.keys, key)
	for ; i < len(s.keys); i++ {
		k := s.keys[i]
		if end != GteEnd && k >= end {
			return
		}
		f(s.index[k])
	}
}

// GteEnd is the range end that means "every key from Key on" ("\x00").
const GteEnd = "\x00"

// PrefixEnd returns the range end of every key with the prefix, as
// clientv3's GetPrefixRangeEnd does: the prefix with its last byte below
// 0xff incremented, or GteEnd when there is none.
func PrefixEnd(prefix string) string {
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return GteEnd
}

// fetch returns the backend's record of ki's change at rev. The newest
// change of a key is the one read most, so the key index remembers where
// it is; a compaction moves records, so the place is checked before use.
func (s *Store) fetch(ki *keyIndex, rev Revision) *record {
	if rev == ki.modified && ki.pos < s.backend.len() {
		if r := s.backend.at(ki.pos); r.rev == rev {
			return r
		}
	}
	i := s.backend.search(func(r *record) bool { return rev.GreaterThan(r.rev) })
	if i == s.backend.len() || s.backend.at(i).rev != rev {
		panic("mvcc: the index names a revision the backend does not hold")
	}
	if rev == ki.modified {
		ki.pos = i
	}
	return s.backend.at(i)
}

// rangeKeys is etcd's storeTxnCommon.rangeKeys: the keys in [key, end) as
// they were at rev (0: curRev), up to limit of them, and how many there
// were in all.
func (s *Store) rangeKeys(key, end string, curRev, rev, limit int64, countOnly bool) ([]KeyValue, int64, int64, error) {
	if rev > curRev {
		return nil, -1, curRev, ErrFutureRev
	}
	if rev <= 0 {
		rev = curRev
	}
	if rev < s.compactMainRev {
		return nil, -1, 0, ErrCompacted
	}
	var kvs []KeyValue
	var total int64
	s.visit(key, end, func(ki *keyIndex) {
		mod, _, _, err := ki.get(rev)
		if err != nil {
			return
		}
		total++
		if !countOnly && (limit <= 0 || int64(len(kvs)) < limit) {
			kvs = append(kvs, s.fetch(ki, mod).kv)
		}
	})
	return kvs, total, curRev, nil
}

// Range answers a range request at the store's current revision, as etcd's
// apply layer does (executeRange): filters, then sort, then limit.
func (s *Store) Range(r *RangeRequest) (*RangeResponse, error) {
	return s.executeRange(r, s.currentRev)
}

func (s *Store) executeRange(r *RangeRequest, curRev int64) (*RangeResponse, error) {
	limit := r.Limit
	if r.SortOrder != SortNone || r.MinModRevision != 0 || r.MaxModRevision != 0 ||
		r.MinCreateRevision != 0 || r.MaxCreateRevision != 0 {
		limit = 0 // fetch everything; sort and truncate afterwards
	}
	if limit > 0 {
		limit++ // one more, for More
	}
	kvs, count, rev, err := s.rangeKeys(r.Key, r.RangeEnd, curRev, r.Revision, limit, r.CountOnly)
	if err != nil {
		return nil, err
	}
	prune := func(drop func(kv *KeyValue) bool) {
		kvs = slices.DeleteFunc(kvs, func(kv KeyValue) bool { return drop(&kv) })
	}
	if r.MaxModRevision != 0 {
		prune(func(kv *KeyValue) bool { return kv.ModRevision > r.MaxModRevision })
	}
	if r.MinModRevision != 0 {
		prune(func(kv *KeyValue) bool { return kv.ModRevision < r.MinModRevision })
	}
	if r.MaxCreateRevision != 0 {
		prune(func(kv *KeyValue) bool { return kv.CreateRevision > r.MaxCreateRevision })
	}
	if r.MinCreateRevision != 0 {
		prune(func(kv *KeyValue) bool { return kv.CreateRevision < r.MinCreateRevision })
	}
	order := r.SortOrder
	if r.SortTarget != SortByKey && order == SortNone {
		order = SortAscend // the index returns keys in order; other targets sort ascending by default
	} else if r.SortTarget == SortByKey && order == SortAscend {
		order = SortNone // already in key order
	}
	if order != SortNone {
		// NB: sort.Sort, not a stable sort, with etcd's own comparisons, so
		// that ties come out in the order etcd's come out.
		var sorter sort.Interface = kvSorter{kvs, r.SortTarget}
		if order == SortDescend {
			sorter = sort.Reverse(sorter)
		}
		sort.Sort(sorter)
	}
	resp := &RangeResponse{Header: ResponseHeader{Revision: rev}, Count: count}
	if r.Limit > 0 && int64(len(kvs)) > r.Limit {
		kvs = kvs[:r.Limit]
		resp.More = true
	}
	resp.Kvs = make([]*KeyValue, len(kvs))
	for i := range kvs {
		if r.KeysOnly {
			kvs[i].Value = ""
		}
		resp.Kvs[i] = &kvs[i]
	}
	return resp, nil
}

type kvSorter struct {
	kvs    []KeyValue
	target SortTarget
}

func (s kvSorter) Len() int      { return len(s.kvs) }
func (s kvSorter) Swap(i, j int) { s.kvs[i], s.kvs[j] = s.kvs[j], s.kvs[i] }
func (s kvSorter) Less(i, j int) bool {
	a, b := &s.kvs[i], &s.kvs[j]
	switch s.target {
	case SortByVersion:
		return a.Version-b.Version < 0
	case SortByCreate:
		return a.CreateRevision-b.CreateRevision < 0
	case SortByMod:
		return a.ModRevision-b.ModRevision < 0
	case SortByValue:
		return strings.Compare(a.Value, b.Value) < 0
	}
	return strings.Compare(a.Key, b.Key) < 0
}
