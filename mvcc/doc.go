// Package mvcc is etcd's multi-version key-value store, as the simulator's
// members apply it: a key index with generations, a revision-ordered
// "backend" of every change not yet compacted, reads at a past revision,
// transactions, compaction, and the events watches are fed from.
//
// It is shaped after etcd's server/storage/mvcc (key_index.go, index.go,
// kvstore_txn.go, kvstore_compaction.go, watchable_store.go) and its apply
// layer (server/etcdserver/txn/txn.go). The request and response types
// mirror go.etcd.io/etcd/api/v3's etcdserverpb and mvccpb field for field,
// so that a wire front end can sit on it later. They are mirrored rather
// than imported: etcdserverpb pulls in gRPC, gogo/protobuf, grpc-gateway
// and newer golang.org/x modules than the window's ebiten was built with,
// for types that are plain structs here. Keys and values are Go strings,
// which hold the same bytes as etcd's []byte.
//
// The package imports neither raft nor the simulator: it is a pure,
// deterministic state machine. The caller (the member's apply path) feeds
// it committed requests in log order.
package mvcc
