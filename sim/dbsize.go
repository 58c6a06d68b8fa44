package sim

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
// member's do (docs/semantics.md). It is part of the disk: a crash keeps
// it, and a restart's replay of the log puts the same records again,
// which changes nothing.

// batchInterval is etcd's --backend-batch-interval: a change is committed
// to bbolt at most this long after it was applied.
const batchInterval = Time(100 * time.Millisecond)

// batchLimit is etcd's --backend-batch-limit.
const batchLimit = 10000

// dbObserver feeds a member's store's changes to its database model.
type dbObserver struct{ m *member }

func (o dbObserver) Put(rev mvcc.Revision, tomb bool, valueLen int) {
	keyLen := 17
	if tomb {
		keyLen = 18
	}
	o.m.dbChange()
	o.m.db.Put(dbsize.KeyBucket, dbsize.Key{Main: rev.Main, Sub: rev.Sub}, keyLen, valueLen, true)
}

func (o dbObserver) Delete(rev mvcc.Revision, tomb bool) {
	o.m.dbChange()
	o.m.db.Delete(dbsize.KeyBucket, dbsize.Key{Main: rev.Main, Sub: rev.Sub})
}

// dbChange commits the batch the change would join if etcd's batch
// interval has passed since the batch began (or it is full), and starts a
// batch if none is open.
func (m *member) dbChange() {
	m.dbSettle()
	if m.db.Pending() >= batchLimit {
		m.db.Commit()
	}
	if m.db.Pending() == 0 {
		m.dbSince = m.w.now
	}
}

// dbSettle commits the open batch once its interval has passed. A commit
// depends only on what the batch holds, so settling when someone asks
// for the size gives what settling at the interval's end would.
func (m *member) dbSettle() {
	if m.db.Pending() > 0 && m.w.now >= m.dbSince+batchInterval {
		m.db.Commit()
	}
}

// dbLease records a lease granted (ttl > 0) or revoked in the lease
// bucket: its ID, 8 bytes, and a leasepb.Lease{ID, TTL}.
func (m *member) dbLease(id, ttl int64) {
	m.dbChange()
	if ttl <= 0 {
		m.db.Delete(dbsize.LeaseBucket, dbsize.Key{Main: id})
		return
	}
	m.db.Put(dbsize.LeaseBucket, dbsize.Key{Main: id}, 8, 2+protowire.SizeVarint(uint64(id))+protowire.SizeVarint(uint64(ttl)), false)
}

// attachDB connects the member's new store to its database model; a
// member with no model yet (a first start, or a snapshot installed from
// the leader, which replaces the file) gets one holding the store as a
// freshly written file does.
func (m *member) attachDB() {
	if m.db == nil {
		m.db = dbsize.New()
		n := 0
		_ = m.kv.Store.Records(func(rev mvcc.Revision, tomb bool, kv *mvccpb.KeyValue) error {
			o := *kv
			keyLen := 17
			if tomb {
				o, keyLen = mvccpb.KeyValue{Key: kv.Key}, 18 // etcd stores a tombstone's key alone
			}
			m.db.Put(dbsize.KeyBucket, dbsize.Key{Main: rev.Main, Sub: rev.Sub}, keyLen, o.Size(), true)
			n++
			return nil
		})
		for _, id := range m.kv.Lessor.Leases() {
			ttl := m.kv.Lessor.Lookup(id).TTL
			m.db.Put(dbsize.LeaseBucket, dbsize.Key{Main: id}, 8, 2+protowire.SizeVarint(uint64(id))+protowire.SizeVarint(uint64(ttl)), false)
			n++
		}
		if n > 0 {
			m.db.Defrag()
		}
	}
	m.kv.Store.SetSizeObserver(dbObserver{m})
	m.kv.Store.ShareRecords(&m.w.records)
}

// DBSize returns the named member's DB SIZE and IN USE, in bytes, as
// etcd's Status reports them; 0, 0 for a member that has never started.
func (w *World) DBSize(name string) (size, inUse int64) {
	m := w.byName[name]
	if m == nil || m.db == nil {
		return 0, 0
	}
	m.dbSettle()
	return m.db.Size(), m.db.SizeInUse()
}
