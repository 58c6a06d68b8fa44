package sim

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
	// maxSendBytes is clientv3's default MaxCallSendMsgSize.
	maxSendBytes = 2 << 20
)

const errTooLarge = "etcdserver: request is too large"

// tooLargeToSend returns clientv3's error for a request it will not send.
func tooLargeToSend(op *Op) (string, bool) {
	if n := op.Req.Size(); n > maxSendBytes {
		return "rpc error: code = ResourceExhausted desc = trying to send message larger than max (" +
			itoa(uint64(n)) + " vs. " + itoa(maxSendBytes) + ")", true
	}
	return "", false
}
