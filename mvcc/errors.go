package mvcc

import "errors"

// The store's errors, worded as etcd's mvcc package words them. Over gRPC
// etcd prefixes them with "etcdserver: " (see GRPCMessage).
var (
	ErrCompacted = errors.New("mvcc: required revision has been compacted")
	ErrFutureRev = errors.New("mvcc: required revision is a future revision")
)

// The request errors etcd's gRPC layer and apply layer give, as a client
// sees them.
var (
	ErrEmptyKey      = errors.New("etcdserver: key is not provided")
	ErrKeyNotFound   = errors.New("etcdserver: key not found")
	ErrValueProvided = errors.New("etcdserver: value is provided")
	ErrLeaseProvided = errors.New("etcdserver: lease is provided")
	ErrTooManyOps    = errors.New("etcdserver: too many operations in txn request")
	ErrDuplicateKey  = errors.New("etcdserver: duplicate key given in txn request")
	ErrLeaseNotFound = errors.New("etcdserver: requested lease not found")
)

// GRPCMessage returns the text a client sees for err, as etcd's
// togRPCError maps the store's errors.
func GRPCMessage(err error) string {
	if errors.Is(err, ErrCompacted) || errors.Is(err, ErrFutureRev) {
		return "etcdserver: " + err.Error()
	}
	return err.Error()
}

// MaxTxnOps is etcd's default --max-txn-ops.
const MaxTxnOps = 128
