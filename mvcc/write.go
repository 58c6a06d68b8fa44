package mvcc

import (
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
)

// writeTxn is one write transaction, as etcd's storeTxnWrite: every change
// in it has the main revision beginRev+1 and its own sub revision, and the
// store's revision moves on once, at end, if anything changed.
type writeTxn struct {
	s        *Store
	beginRev int64
	changes  int // changes so far; the next one's sub revision
	events   []mvccpb.Event
}

func (s *Store) write() writeTxn {
	if s.frozen {
		panic("mvcc: a write to a frozen store")
	}
	return writeTxn{s: s, beginRev: s.currentRev}
}

// rev is the revision reads inside the transaction see: its own changes
// included.
func (tw *writeTxn) rev() int64 {
	if tw.changes > 0 {
		return tw.beginRev + 1
	}
	return tw.beginRev
}

func (tw *writeTxn) end() []mvccpb.Event {
	if tw.changes > 0 {
		tw.s.currentRev++
	}
	return tw.events
}

// get returns the key as the transaction sees it.
func (tw *writeTxn) get(key []byte) (mvccpb.KeyValue, bool) {
	ki := tw.s.index.get(key)
	if ki == nil {
		return mvccpb.KeyValue{}, false
	}
	mod, _, _, err := ki.get(tw.rev())
	if err != nil {
		return mvccpb.KeyValue{}, false
	}
	return tw.s.fetch(ki, mod).kv(), true
}

// event records a change for the watches, unless nobody watches.
func (tw *writeTxn) event(ev mvccpb.Event) {
	if !tw.s.noEvents {
		tw.events = append(tw.events, ev)
	}
}

func (tw *writeTxn) put(key, value []byte, lease int64) {
	s := tw.s
	rev := tw.beginRev + 1
	r := record{rev: Revision{Main: rev, Sub: int64(tw.changes)}, value: value, create: rev, version: 1, lease: lease}
	prev, existed := tw.get(key)
	if existed {
		r.create, r.version = prev.CreateRevision, prev.Version+1
	}
	ki := s.index.getWritable(key)
	if ki == nil {
		ki = &keyIndex{key: key}
		s.index.insert(ki)
	}
	r.key = ki.key // the index's copy: the request's can then die young instead of living in the backend
	ki.put(r.rev)
	ki.pos = s.backend.len()
	s.backend.append(s.records.share(&r))
	if s.sizer != nil {
		kv := r.kv()
		s.sizer.Put(r.rev, false, kv.Size())
	}
	tw.changes++
	if !s.noEvents {
		// NB: copies, so that the key-values stay off the heap when
		// nobody watches.
		now, before := r.kv(), prev
		ev := mvccpb.Event{Type: mvccpb.PUT, Kv: &now}
		if existed {
			ev.PrevKv = &before
		}
		tw.event(ev)
	}
	old := prev.Lease
	if old == lease || s.lessor == nil {
		return
	}
	if old != 0 {
		s.lessor.Detach(old, string(ki.key))
	}
	if lease != 0 {
		s.lessor.Attach(lease, string(ki.key))
	}
}

// deleteRange deletes every key in [key, end) that exists, and returns how
// many.
func (tw *writeTxn) deleteRange(key, end []byte) int64 {
	kvs, _, _, _ := tw.s.rangeKeys(key, end, tw.rev(), 0, 0, false)
	for i := range kvs {
		tw.delete(kvs[i])
	}
	return int64(len(kvs))
}

func (tw *writeTxn) delete(prev mvccpb.KeyValue) {
	s := tw.s
	ki := s.index.getWritable(prev.Key)
	r := record{rev: Revision{Main: tw.beginRev + 1, Sub: int64(tw.changes)}, key: ki.key, tomb: true}
	if err := ki.tombstone(r.rev); err != nil {
		panic("mvcc: tombstone of " + string(prev.Key) + ": " + err.Error())
	}
	ki.pos = s.backend.len()
	s.backend.append(s.records.share(&r))
	if s.sizer != nil {
		kv := mvccpb.KeyValue{Key: r.key} // etcd stores a tombstone's key alone
		s.sizer.Put(r.rev, true, kv.Size())
	}
	tw.changes++
	if !s.noEvents {
		now, before := mvccpb.KeyValue{Key: r.key, ModRevision: r.rev.Main}, prev
		tw.event(mvccpb.Event{Type: mvccpb.DELETE, Kv: &now, PrevKv: &before})
	}
	if prev.Lease != 0 && s.lessor != nil {
		s.lessor.Detach(prev.Lease, string(prev.Key))
	}
}

// Put applies a put, as etcd's apply layer does (txn.Put): the lease must
// exist; ignore_value and ignore_lease need the key to exist. The store
// keeps the request's key and value bytes.
func (s *Store) Put(p *pb.PutRequest) (*pb.PutResponse, []mvccpb.Event, error) {
	if p.Lease != 0 && (s.lessor == nil || !s.lessor.Exists(p.Lease)) {
		return nil, nil, ErrLeaseNotFound
	}
	tw := s.write()
	resp, err := tw.applyPut(p)
	if err != nil {
		return nil, nil, err
	}
	evs := tw.end()
	resp.Header.Revision = s.currentRev
	return resp, evs, nil
}

// putResponse is a PutResponse and its header in one allocation: every
// member builds one for every put it applies.
type putResponse struct {
	resp   pb.PutResponse
	header pb.ResponseHeader
}

func (tw *writeTxn) applyPut(p *pb.PutRequest) (*pb.PutResponse, error) {
	pr := &putResponse{}
	resp := &pr.resp
	resp.Header = &pr.header
	value, lease := p.Value, p.Lease
	prev, existed := tw.get(p.Key)
	if (p.IgnoreValue || p.IgnoreLease) && !existed {
		return nil, ErrKeyNotFound
	}
	if p.IgnoreValue {
		value = prev.Value
	}
	if p.IgnoreLease {
		lease = prev.Lease
	}
	if p.PrevKv && existed {
		before := prev
		resp.PrevKv = &before
	}
	tw.put(p.Key, value, lease)
	resp.Header.Revision = tw.rev()
	return resp, nil
}

// DeleteRange applies a delete of one key or a range.
func (s *Store) DeleteRange(r *pb.DeleteRangeRequest) (*pb.DeleteRangeResponse, []mvccpb.Event, error) {
	tw := s.write()
	resp := tw.applyDeleteRange(r)
	evs := tw.end()
	resp.Header.Revision = s.currentRev
	return resp, evs, nil
}

func (tw *writeTxn) applyDeleteRange(r *pb.DeleteRangeRequest) *pb.DeleteRangeResponse {
	resp := &pb.DeleteRangeResponse{Header: &pb.ResponseHeader{}}
	if r.PrevKv {
		kvs, _, _, _ := tw.s.rangeKeys(r.Key, r.RangeEnd, tw.rev(), 0, 0, false)
		for i := range kvs {
			resp.PrevKvs = append(resp.PrevKvs, &kvs[i])
		}
	}
	resp.Deleted = tw.deleteRange(r.Key, r.RangeEnd)
	resp.Header.Revision = tw.rev()
	return resp
}

// DeleteKeys deletes the keys that exist, in one revision: what revoking a
// lease does to the keys attached to it.
func (s *Store) DeleteKeys(keys []string) []mvccpb.Event {
	tw := s.write()
	for _, k := range keys {
		if kv, ok := tw.get([]byte(k)); ok {
			tw.delete(kv)
		}
	}
	return tw.end()
}

// Compact discards the history before rev, as etcd's Compact does: every
// revision of a key older than its last change at or before rev, and keys
// deleted by then. Reads and watches before rev then fail with
// ErrCompacted.
func (s *Store) Compact(rev int64) (*pb.CompactionResponse, error) {
	if s.frozen {
		panic("mvcc: a compaction of a frozen store")
	}
	if rev <= s.compactMainRev {
		return nil, ErrCompacted
	}
	if rev > s.currentRev {
		return nil, ErrFutureRev
	}
	s.compactMainRev = rev
	available := map[Revision]struct{}{}
	s.index.deleteFunc(func(ki *keyIndex) bool {
		ki.compact(rev, available)
		return ki.isEmpty()
	})
	s.backend.deleteFunc(func(r *record) bool {
		if r.rev.Main > rev {
			return false
		}
		_, keep := available[r.rev]
		if !keep && s.sizer != nil {
			s.sizer.Delete(r.rev, r.tomb)
		}
		return !keep
	})
	return &pb.CompactionResponse{Header: header(s.currentRev)}, nil
}
