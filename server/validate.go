package server

import (
	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/lease"
	"github.com/raftsim/raftsim/mvcc"
)

// Validate checks a request as etcd's gRPC layer does before it reaches
// raft (v3rpc's checkPutRequest, checkRangeRequest, checkDeleteRequest,
// checkTxnRequest, the lease TTL), and returns the error a client sees, or
// "".
func Validate(req *Request) string {
	var err error
	switch {
	case req.Put != nil:
		err = mvcc.ValidatePut(req.Put)
	case req.Range != nil && len(req.Range.Key) == 0, req.DeleteRange != nil && len(req.DeleteRange.Key) == 0:
		err = mvcc.ErrEmptyKey
	case req.Txn != nil:
		err = mvcc.ValidateTxn(req.Txn)
	case req.LeaseGrant != nil && req.LeaseGrant.TTL > lease.MaxLeaseTTL:
		err = lease.ErrLeaseTTLTooLarge
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// etcd refuses a request that is too large in two places, and raftsim
// refuses it in the same two, with the same words:
//
//   - clientv3 will not send a gRPC message over 2 MiB (its default
//     MaxCallSendMsgSize): the call fails at the client with
//     "rpc error: code = ResourceExhausted desc = trying to send message
//     larger than max (N vs. 2097152)", N being the message's size.
//   - etcd will not propose a raft request over --max-request-bytes
//     (1.5 MiB by default): the member answers "etcdserver: request is too
//     large". What it measures is the InternalRaftRequest the entry holds:
//     the client's request with a header holding a request ID, which
//     takes 9 or 10 bytes as a varint depending on the member's ID (its
//     low 16 bits are the ID's top ones). Measured against etcd v3.6.16
//     with key "k": a member whose ID ends in 0x4a3b takes a value of
//     1572840 bytes and refuses 1572841; one whose ID ends in 0xbcee
//     refuses 1572840 already.
const (
	// MaxRequestBytes is etcd's default --max-request-bytes.
	MaxRequestBytes = 1536 * 1024
	// MaxSendBytes is clientv3's default MaxCallSendMsgSize.
	MaxSendBytes = 2 << 20
)

// ErrTooLarge is etcd's answer to a request it will not propose.
const ErrTooLarge = "etcdserver: request is too large"

// TooLarge reports whether etcd refuses to propose a write: its
// InternalRaftRequest, with request ID id (the next the member draws: it
// decides the header's size), would be larger than --max-request-bytes.
func TooLarge(req *Request, id uint64) bool {
	h := etcdserverpb.RequestHeader{ID: id}
	var r etcdserverpb.InternalRaftRequest
	raftRequest(&r, &h, req, int64(id&(1<<63-1)))
	return r.Size() > MaxRequestBytes
}
