// Package snapshot reads and writes etcd v3.6's snapshot files: what
// `etcdctl snapshot save` writes and `etcdutl snapshot status` and
// `etcdutl snapshot restore` read.
//
// A snapshot is etcd's bbolt database (go.etcd.io/bbolt v1.4.3, the version
// etcd v3.6.16 builds with) followed by the sha256 of the database, 32
// bytes, that etcdutl checks before it restores. The database holds etcd's
// ten buckets: "key" (every change not compacted away, keyed by its
// revision in etcd's 17-byte format, "t" appended for a tombstone, valued
// as a marshalled mvccpb.KeyValue), "meta" (the consistent index and term,
// the raft ConfState, the storage version, the compaction revisions),
// "lease", "alarm", "cluster", "members", "members_removed" and the three
// auth buckets.
//
// Write lays the database out as a real etcd's is laid out just after
// `etcdctl defrag`: the buckets copied in name order with bbolt's fill
// percent at 90%, a commit every 10,000 keys (etcd's defragdb). A real etcd
// that holds the same data and is defragmented before its snapshot is
// saved gives a file with the same hash, revision, key count and size in
// `etcdutl snapshot status`.
//
// Open reads a snapshot back, bounded: a file over a size limit is refused
// before it is opened, the sha256 is checked, bbolt's own consistency check
// runs, and the key bucket is streamed to the caller a record at a time.
//
// The bucket and key names, the revision format and the value encodings
// are etcd's (server/storage/schema/bucket.go, server/storage/mvcc/
// revision.go, server/lease/leasepb, server/etcdserver/api/membership).
// They are copied here rather than imported: go.etcd.io/etcd/server/v3
// builds against raft v3.6's gogo-protobuf raftpb, which cannot be built
// with the raft v3.7.0 that the simulator drives, and its storage packages
// start goroutines and read the wall clock. The values that are protobuf
// messages in the API module (mvccpb.KeyValue, etcdserverpb.AlarmMember)
// use that module's own types.
package snapshot
