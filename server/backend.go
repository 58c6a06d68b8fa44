package server

import (
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/raftsim/raftsim/dbsize"
	"github.com/raftsim/raftsim/mvcc"
)

// The database file a member keeps on its disk is modelled, not written:
// package dbsize follows bbolt's pages as the store gains and loses
// records, so that DB SIZE and IN USE grow, stay and shrink as a real
// member's do (docs/semantics.md). Backend is etcd's backend over that
// file: the batch it has open, committed at most BatchInterval after it
// began. The file is part of the disk: a crash keeps it, and a restart's
// replay of the log puts the same records again, which changes nothing.

// BatchInterval is etcd's --backend-batch-interval: a change is committed
// to bbolt at most this long after it was applied.
const BatchInterval = int64(100 * time.Millisecond)

// BatchLimit is etcd's --backend-batch-limit.
const BatchLimit = 10000

// Backend is a member's database file and the batch open on it. Times are
// the world's virtual time, in ns.
type Backend struct {
	// File models the bbolt file; nil: the member has none yet (a first
	// start, or a snapshot installed from the leader, which replaces it).
	File *dbsize.Model
	// since is when the open batch began.
	since int64
}

// Clone returns a copy that changes apart from b (a forked world's disk).
func (b *Backend) Clone() Backend { return Backend{File: b.File.Clone(), since: b.since} }

// change commits the batch a change at now would join if etcd's batch
// interval has passed since the batch began (or it is full), and starts a
// batch if none is open.
func (b *Backend) change(now int64) {
	b.Settle(now)
	if b.File.Pending() >= BatchLimit {
		b.File.Commit()
	}
	if b.File.Pending() == 0 {
		b.since = now
	}
}

// Settle commits the open batch once its interval has passed at now. A
// commit depends only on what the batch holds, so settling when someone
// asks for the size gives what settling at the interval's end would.
func (b *Backend) Settle(now int64) {
	if b.File.Pending() > 0 && now >= b.since+BatchInterval {
		b.File.Commit()
	}
}

// Size returns DB SIZE and IN USE, in bytes, at now, as etcd's Status
// reports them; 0, 0 with no file yet.
func (b *Backend) Size(now int64) (size, inUse int64) {
	if b.File == nil {
		return 0, 0
	}
	b.Settle(now)
	return b.File.Size(), b.File.SizeInUse()
}

// Defrag rewrites the file at now as etcd's defragment does, and returns
// its size before and after. Before is DB SIZE as Status would report it
// at now: the batch settled first, as Size settles it, so that the size
// does not depend on whether someone asked for the status meanwhile (it
// did: a replay without the status's reads said 20480 where serve had
// said 24576).
func (b *Backend) Defrag(now int64) (before, after int64) {
	b.Settle(now)
	before = b.File.Size()
	b.File.Defrag()
	return before, b.File.Size()
}

// Lease records at now a lease granted (ttl > 0) or revoked (ttl 0) in
// the lease bucket.
func (b *Backend) Lease(id, ttl, now int64) {
	b.change(now)
	if ttl <= 0 {
		b.File.Delete(dbsize.LeaseBucket, dbsize.Key{Main: id})
		return
	}
	putLease(b.File, id, ttl)
}

// putLease puts a lease's record: its ID, 8 bytes, and a
// leasepb.Lease{ID, TTL}.
func putLease(db *dbsize.Model, id, ttl int64) {
	db.Put(dbsize.LeaseBucket, dbsize.Key{Main: id}, 8, 2+protowire.SizeVarint(uint64(id))+protowire.SizeVarint(uint64(ttl)), false)
}

// Attach connects kv's store to the file, whose changes it commits in
// batches by now (the world's clock). With no file yet, the file is made
// holding kv as a freshly written file does.
func (b *Backend) Attach(kv *KV, now func() int64) {
	if b.File == nil {
		b.File = dbsize.New()
		n := 0
		_ = kv.Store.Records(func(rev mvcc.Revision, tomb bool, r *mvccpb.KeyValue) error {
			valueLen := r.Size()
			if tomb {
				valueLen = (&mvccpb.KeyValue{Key: r.Key}).Size() // etcd stores a tombstone's key alone
			}
			FileObserver{b.File}.Put(rev, tomb, valueLen)
			n++
			return nil
		})
		for _, id := range kv.Lessor.Leases() {
			putLease(b.File, id, kv.Lessor.Lookup(id).TTL)
			n++
		}
		if n > 0 {
			b.File.Defrag()
		}
	}
	kv.Store.SetSizeObserver(batchObserver{b, now})
}

// FileObserver puts a store's records in the key bucket of a file as
// they come, without batches.
type FileObserver struct{ DB *dbsize.Model }

// Put is a record at rev: its key is the revision (17 bytes, 18 for a
// tombstone), its value the marshalled mvccpb.KeyValue.
func (o FileObserver) Put(rev mvcc.Revision, tomb bool, valueLen int) {
	keyLen := 17
	if tomb {
		keyLen = 18
	}
	o.DB.Put(dbsize.KeyBucket, dbsize.Key{Main: rev.Main, Sub: rev.Sub}, keyLen, valueLen, true)
}

// Delete is the record at rev dropped by a compaction.
func (o FileObserver) Delete(rev mvcc.Revision, _ bool) {
	o.DB.Delete(dbsize.KeyBucket, dbsize.Key{Main: rev.Main, Sub: rev.Sub})
}

// batchObserver feeds a store's changes to the backend's batch.
type batchObserver struct {
	b   *Backend
	now func() int64
}

func (o batchObserver) Put(rev mvcc.Revision, tomb bool, valueLen int) {
	o.b.change(o.now())
	FileObserver{o.b.File}.Put(rev, tomb, valueLen)
}

func (o batchObserver) Delete(rev mvcc.Revision, tomb bool) {
	o.b.change(o.now())
	FileObserver{o.b.File}.Delete(rev, tomb)
}
