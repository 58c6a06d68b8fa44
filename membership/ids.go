package membership

import (
	"crypto/sha1"
	"encoding/binary"
	"slices"
	"strconv"
	"time"
)

// DefaultClusterToken is etcd's default --initial-cluster-token.
const DefaultClusterToken = "etcd-cluster"

// MemberID computes an etcd member ID as etcd does (computeMemberID): the
// first 8 bytes, big-endian, of the SHA-1 of the sorted peer URLs joined,
// then the cluster token, then, for a member added at runtime (now not
// nil), the Unix seconds of the moment it was added.
func MemberID(peerURLs []string, token string, now *time.Time) uint64 {
	urls := slices.Sorted(slices.Values(peerURLs))
	b := []byte{}
	for _, u := range urls {
		b = append(b, u...)
	}
	b = append(b, token...)
	if now != nil {
		b = strconv.AppendInt(b, now.Unix(), 10)
	}
	h := sha1.Sum(b)
	return binary.BigEndian.Uint64(h[:8])
}

// ClusterID computes the cluster ID from the bootstrap members' IDs as etcd
// does (RaftCluster.genID): SHA-1 over the sorted IDs, big-endian.
func ClusterID(memberIDs []uint64) uint64 {
	ids := slices.Sorted(slices.Values(memberIDs))
	b := make([]byte, 0, 8*len(ids))
	for _, id := range ids {
		b = binary.BigEndian.AppendUint64(b, id)
	}
	h := sha1.Sum(b)
	return binary.BigEndian.Uint64(h[:8])
}
