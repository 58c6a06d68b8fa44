package snapshot

import (
	"encoding/binary"
	"fmt"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
)

// The bucket names, as etcd v3.6.16's server/storage/schema/bucket.go
// names them.
const (
	bucketKey            = "key"
	bucketMeta           = "meta"
	bucketLease          = "lease"
	bucketAlarm          = "alarm"
	bucketCluster        = "cluster"
	bucketMembers        = "members"
	bucketMembersRemoved = "members_removed"
	bucketAuth           = "auth"
	bucketAuthUsers      = "authUsers"
	bucketAuthRoles      = "authRoles"
)

// allBuckets is every bucket a v3.6 database has, in the order bbolt's
// root cursor visits them (byte order), which is the order etcd's defrag
// copies them in.
var allBuckets = []string{bucketAlarm, bucketAuth, bucketAuthRoles, bucketAuthUsers, bucketCluster,
	bucketKey, bucketLease, bucketMembers, bucketMembersRemoved, bucketMeta}

// The keys of the meta, cluster and auth buckets (schema/bucket.go).
const (
	metaScheduledCompact = "scheduledCompactRev"
	metaFinishedCompact  = "finishedCompactRev"
	metaConsistentIndex  = "consistent_index"
	metaTerm             = "term"
	metaConfState        = "confState"
	metaStorageVersion   = "storageVersion"
	clusterVersionKey    = "clusterVersion"
	authRevisionKey      = "authRevision"
	authEnabledKey       = "authEnabled"
)

// Revision is a change's place in the store's history, as etcd's
// mvcc.Revision: Main is the store revision of one transaction, Sub orders
// the changes within it.
type Revision struct {
	Main int64
	Sub  int64
}

// revBytesLen is the length of a revision key: the main revision, '_', the
// sub revision, each big-endian (server/storage/mvcc/revision.go).
const revBytesLen = 8 + 1 + 8

// markTombstone marks a deletion's key, appended to its revision.
const markTombstone = 't'

// revKey encodes a revision as etcd's key bucket keys it.
func revKey(rev Revision, tomb bool) []byte {
	b := make([]byte, revBytesLen, revBytesLen+1)
	binary.BigEndian.PutUint64(b, uint64(rev.Main))
	b[8] = '_'
	binary.BigEndian.PutUint64(b[9:], uint64(rev.Sub))
	if tomb {
		b = append(b, markTombstone)
	}
	return b
}

// parseRevKey decodes a key bucket key, or says why it is not one.
func parseRevKey(k []byte) (Revision, bool, error) {
	switch {
	case len(k) == revBytesLen:
	case len(k) == revBytesLen+1 && k[revBytesLen] == markTombstone:
	default:
		return Revision{}, false, fmt.Errorf("key bucket key %x is not a revision", k)
	}
	if k[8] != '_' {
		return Revision{}, false, fmt.Errorf("key bucket key %x is not a revision", k)
	}
	rev := Revision{Main: int64(binary.BigEndian.Uint64(k)), Sub: int64(binary.BigEndian.Uint64(k[9:]))}
	return rev, len(k) == revBytesLen+1, nil
}

// Record is one entry of the key bucket: a put of KV at Rev, or, with
// Tombstone, the deletion of KV.Key (whose other fields are then empty, as
// etcd stores a tombstone's key alone).
type Record struct {
	Rev       Revision
	Tombstone bool
	KV        mvccpb.KeyValue
}

// Member is one member of the cluster, as the members bucket holds it
// (membership.Member, JSON).
type Member struct {
	ID         uint64   `json:"id"`
	PeerURLs   []string `json:"peerURLs"`
	IsLearner  bool     `json:"isLearner,omitempty"`
	Name       string   `json:"name,omitempty"`
	ClientURLs []string `json:"clientURLs,omitempty"`
}

// Lease is one lease, as the lease bucket holds it (leasepb.Lease).
type Lease struct {
	ID           int64
	TTL          int64
	RemainingTTL int64 // set only by lease checkpoints
}

// ConfState is raft's configuration, as the meta bucket holds it: the JSON
// of raftpb.ConfState (gogo-protobuf's struct tags).
type ConfState struct {
	Voters         []uint64 `json:"voters,omitempty"`
	Learners       []uint64 `json:"learners,omitempty"`
	VotersOutgoing []uint64 `json:"voters_outgoing,omitempty"`
	LearnersNext   []uint64 `json:"learners_next,omitempty"`
	AutoLeave      bool     `json:"auto_leave"`
}

// State is everything a snapshot holds, apart from the key bucket, which
// is streamed (Records) because it is the one that grows.
type State struct {
	ConsistentIndex uint64 // the raft index of the last entry applied
	Term            uint64 // the raft term of that entry
	ConfState       ConfState
	StorageVersion  string // "3.6.0"; empty leaves the key out, as etcd before v3.6 did
	ClusterVersion  string // "3.6.0"; empty: not set yet

	// The compaction revisions: a compaction is scheduled, then finished;
	// zero when there has been none.
	ScheduledCompact int64
	FinishedCompact  int64

	Members        []Member
	RemovedMembers []uint64
	Leases         []Lease
	Alarms         []*etcdserverpb.AlarmMember

	AuthRevision uint64 // 1 in a cluster that never enabled auth
	AuthEnabled  bool   // the key is written only once auth has been enabled or disabled
}
