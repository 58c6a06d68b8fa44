// Package mvcc is etcd's multi-version key-value store, as the simulator's
// members apply it: a key index with generations, a revision-ordered
// "backend" of every change not yet compacted, reads at a past revision,
// transactions, compaction, and the events watches are fed from.
//
// It is shaped after etcd's server/storage/mvcc (key_index.go, index.go,
// kvstore_txn.go, kvstore_compaction.go, watchable_store.go) and its apply
// layer (server/etcdserver/txn/txn.go). Requests and responses are etcd's
// own types, go.etcd.io/etcd/api/v3's etcdserverpb and mvccpb, from the
// client to the store and back. The store keeps a put's key and value
// bytes, and the KeyValues it answers with share them: they are read,
// never written.
//
// The package imports neither raft nor the simulator: it is a pure,
// deterministic state machine. The caller (the member's apply path) feeds
// it committed requests in log order.
package mvcc
