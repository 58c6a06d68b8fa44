package mvcc

import (
	"bytes"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
)

// GteEnd is the range end that means "every key from Key on" ("\x00").
var GteEnd = []byte{0}

// IsGteEnd reports whether end is GteEnd.
func IsGteEnd(end []byte) bool { return len(end) == 1 && end[0] == 0 }

// PrefixEnd returns the range end of every key with the prefix, as
// clientv3's GetPrefixRangeEnd does: the prefix with its last byte below
// 0xff incremented, or GteEnd when there is none (the empty prefix, or one
// of 0xff bytes only).
func PrefixEnd(prefix []byte) []byte {
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] < 0xff {
			end := make([]byte, i+1)
			copy(end, prefix)
			end[i]++
			return end
		}
	}
	return GteEnd
}

// InRange reports whether key is in the range [start, end) as etcd reads
// a request's key and range end: end empty is start alone, GteEnd every
// key from start on.
func InRange(key, start, end []byte) bool {
	switch {
	case len(end) == 0:
		return bytes.Equal(key, start)
	case IsGteEnd(end):
		return bytes.Compare(key, start) >= 0
	}
	return bytes.Compare(key, start) >= 0 && bytes.Compare(key, end) < 0
}

// IsCreate reports whether a watch event created its key, as etcd's
// Event.IsCreate does.
func IsCreate(e *mvccpb.Event) bool { return e.Type == mvccpb.PUT && e.Kv.Version == 1 }

// header returns a response header that carries only the revision: the
// store fills that in, the server layer the rest.
func header(rev int64) *pb.ResponseHeader { return &pb.ResponseHeader{Revision: rev} }
