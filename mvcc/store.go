package mvcc

import (
	"bytes"
	"slices"
	"sort"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
)

// Lessor is what the store needs of the lease layer: whether a lease
// exists, and to be told when a key is attached to or detached from one.
type Lessor interface {
	Exists(id int64) bool
	Attach(id int64, key string)
	Detach(id int64, key string)
}

// record is one change in the backend, keyed by its revision, as etcd's
// bbolt "key" bucket holds them: a marshalled mvccpb.KeyValue there, its
// fields here (its mod revision is rev.Main). A tombstone holds the key
// only. key is the key index's copy, shared by every record of the key;
// value is the put request's own bytes.
type record struct {
	rev                    Revision
	key, value             []byte
	create, version, lease int64
	tomb                   bool
}

// kv returns the record as etcd's KeyValue. It shares the record's bytes:
// what the store returns is read, never written.
func (r *record) kv() mvccpb.KeyValue {
	return mvccpb.KeyValue{Key: r.key, Value: r.value, CreateRevision: r.create, ModRevision: r.rev.Main,
		Version: r.version, Lease: r.lease}
}

// Store is one member's MVCC store. The zero value is not ready: use New.
type Store struct {
	currentRev     int64 // starts at 1, as etcd's does: the first write is revision 2
	compactMainRev int64 // -1 until the first compaction

	index index // every key's history, in key order

	backend backend // every change not compacted away, in revision order

	lessor Lessor

	noEvents bool // nobody watches: writes need not report their events

	sizer SizeObserver // told of each change to the backend, if set

	records *RecordPool // shared with the other members of its cluster, if set

	frozen bool // never written, and forks leave it as it is (Freeze)
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
	return &Store{currentRev: 1, compactMainRev: -1}
}

// SetLessor connects the store to the lease layer.
func (s *Store) SetLessor(l Lessor) { s.lessor = l }

// Rev returns the current revision.
func (s *Store) Rev() int64 { return s.currentRev }

// CompactRev returns the revision of the last compaction, or -1.
func (s *Store) CompactRev() int64 { return s.compactMainRev }

// FirstRev returns the oldest revision that can still be read.
func (s *Store) FirstRev() int64 { return max(s.compactMainRev, 1) }

// visit calls f for every indexed key in [key, end), in key order. end
// empty means key alone; GteEnd means every key from key on.
func (s *Store) visit(key, end []byte, f func(ki *keyIndex)) {
	if len(end) == 0 {
		if ki := s.index.get(key); ki != nil {
			f(ki)
		}
		return
	}
	gte := IsGteEnd(end)
	s.index.ascend(key, func(ki *keyIndex) bool {
		if !gte && bytes.Compare(ki.key, end) >= 0 {
			return false
		}
		f(ki)
		return true
	})
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
	if rev == ki.modified && ki.owner == s.index.tag {
		ki.pos = i // not in a keyIndex shared with a fork: a frozen store is only read
	}
	return s.backend.at(i)
}

// rangeKeys is etcd's storeTxnCommon.rangeKeys: the keys in [key, end) as
// they were at rev (0: curRev), up to limit of them, and how many there
// were in all.
func (s *Store) rangeKeys(key, end []byte, curRev, rev, limit int64, countOnly bool) ([]mvccpb.KeyValue, int64, int64, error) {
	if rev > curRev {
		return nil, -1, curRev, ErrFutureRev
	}
	if rev <= 0 {
		rev = curRev
	}
	if rev < s.compactMainRev {
		return nil, -1, 0, ErrCompacted
	}
	var kvs []mvccpb.KeyValue
	var total int64
	s.visit(key, end, func(ki *keyIndex) {
		mod, _, _, err := ki.get(rev)
		if err != nil {
			return
		}
		total++
		if !countOnly && (limit <= 0 || int64(len(kvs)) < limit) {
			kvs = append(kvs, s.fetch(ki, mod).kv())
		}
	})
	return kvs, total, curRev, nil
}

// Range answers a range request at the store's current revision, as etcd's
// apply layer does (executeRange): filters, then sort, then limit. The
// KeyValues share the store's bytes: they are read, never written.
func (s *Store) Range(r *pb.RangeRequest) (*pb.RangeResponse, error) {
	return s.executeRange(r, s.currentRev)
}

func (s *Store) executeRange(r *pb.RangeRequest, curRev int64) (*pb.RangeResponse, error) {
	limit := r.Limit
	if r.SortOrder != pb.RangeRequest_NONE || r.MinModRevision != 0 || r.MaxModRevision != 0 ||
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
	prune := func(drop func(kv *mvccpb.KeyValue) bool) {
		kvs = slices.DeleteFunc(kvs, func(kv mvccpb.KeyValue) bool { return drop(&kv) })
	}
	if r.MaxModRevision != 0 {
		prune(func(kv *mvccpb.KeyValue) bool { return kv.ModRevision > r.MaxModRevision })
	}
	if r.MinModRevision != 0 {
		prune(func(kv *mvccpb.KeyValue) bool { return kv.ModRevision < r.MinModRevision })
	}
	if r.MaxCreateRevision != 0 {
		prune(func(kv *mvccpb.KeyValue) bool { return kv.CreateRevision > r.MaxCreateRevision })
	}
	if r.MinCreateRevision != 0 {
		prune(func(kv *mvccpb.KeyValue) bool { return kv.CreateRevision < r.MinCreateRevision })
	}
	order := r.SortOrder
	if r.SortTarget != pb.RangeRequest_KEY && order == pb.RangeRequest_NONE {
		order = pb.RangeRequest_ASCEND // the index returns keys in order; other targets sort ascending by default
	} else if r.SortTarget == pb.RangeRequest_KEY && order == pb.RangeRequest_ASCEND {
		order = pb.RangeRequest_NONE // already in key order
	}
	if order != pb.RangeRequest_NONE {
		// NB: sort.Sort, not a stable sort, with etcd's own comparisons, so
		// that ties come out in the order etcd's come out.
		var sorter sort.Interface = kvSorter{kvs, r.SortTarget}
		if order == pb.RangeRequest_DESCEND {
			sorter = sort.Reverse(sorter)
		}
		sort.Sort(sorter)
	}
	resp := &pb.RangeResponse{Header: header(rev), Count: count}
	if r.Limit > 0 && int64(len(kvs)) > r.Limit {
		kvs = kvs[:r.Limit]
		resp.More = true
	}
	resp.Kvs = make([]*mvccpb.KeyValue, len(kvs))
	for i := range kvs {
		if r.KeysOnly {
			kvs[i].Value = nil
		}
		resp.Kvs[i] = &kvs[i]
	}
	return resp, nil
}

type kvSorter struct {
	kvs    []mvccpb.KeyValue
	target pb.RangeRequest_SortTarget
}

func (s kvSorter) Len() int      { return len(s.kvs) }
func (s kvSorter) Swap(i, j int) { s.kvs[i], s.kvs[j] = s.kvs[j], s.kvs[i] }
func (s kvSorter) Less(i, j int) bool {
	a, b := &s.kvs[i], &s.kvs[j]
	switch s.target {
	case pb.RangeRequest_VERSION:
		return a.Version-b.Version < 0
	case pb.RangeRequest_CREATE:
		return a.CreateRevision-b.CreateRevision < 0
	case pb.RangeRequest_MOD:
		return a.ModRevision-b.ModRevision < 0
	case pb.RangeRequest_VALUE:
		return bytes.Compare(a.Value, b.Value) < 0
	}
	return bytes.Compare(a.Key, b.Key) < 0
}
