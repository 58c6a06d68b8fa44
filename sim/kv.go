package sim

import "go.etcd.io/etcd/api/v3/mvccpb"

// KeyValue is one key with etcd's per-key metadata.
type KeyValue = mvccpb.KeyValue
