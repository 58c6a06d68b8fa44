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
//     large". The request it measures is the client's, wrapped with a
//     header; measured against etcd v3.6.16, a put of key "k" is refused
//     from a value of 1572841 bytes on, 17 bytes of wrapping.
const (
	// MaxRequestBytes is etcd's default --max-request-bytes.
	MaxRequestBytes = 1536 * 1024
	// maxSendBytes is clientv3's default MaxCallSendMsgSize.
	maxSendBytes = 2 << 20
	// raftHeaderBytes is what an InternalRaftRequest adds to a request
	// besides its own field's tag and length: the header of field 100 (a
	// two-byte tag and a length) holding a request ID (a tag and a
	// nine-byte varint).
	raftHeaderBytes = 2 + 1 + 1 + 9
)

// grpcBytes returns the size of op's request as a protobuf message: a
// PutRequest, DeleteRangeRequest or RangeRequest.
func grpcBytes(op *Op) int {
	n := bytesField(len(op.Key))
	switch op.Kind {
	case OpPut:
		n += bytesField(len(op.Value))
	case OpDelete, OpGet, OpWatch:
		if op.Prefix {
			n += bytesField(max(len(op.Key), 1)) // range_end: the key with its last byte raised, or "\x00"
		}
		if op.Kind == OpGet && op.KeysOnly {
			n += 2
		}
		if op.Kind == OpGet && op.Serializable {
			n += 2
		}
	}
	return n
}

// raftBytes returns the size of the raft request a write becomes.
func raftBytes(op *Op) int {
	body := grpcBytes(op)
	return raftHeaderBytes + 1 + varintLen(uint64(body)) + body
}

// bytesField is the size of a non-empty bytes field of a small field
// number: a tag, the length, the bytes. An empty one is left out.
func bytesField(n int) int {
	if n == 0 {
		return 0
	}
	return 1 + varintLen(uint64(n)) + n
}

func varintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// tooLargeToSend returns clientv3's error for a request it will not send.
func tooLargeToSend(op *Op) (string, bool) {
	if n := grpcBytes(op); n > maxSendBytes {
		return "rpc error: code = ResourceExhausted desc = trying to send message larger than max (" +
			itoa(uint64(n)) + " vs. " + itoa(maxSendBytes) + ")", true
	}
	return "", false
}

// tooLargeToPropose reports whether etcd refuses to propose a write.
func tooLargeToPropose(op *Op) bool {
	return (op.Kind == OpPut || op.Kind == OpDelete) && raftBytes(op) > MaxRequestBytes
}
