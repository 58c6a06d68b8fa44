package sim

import (
	"encoding/binary"
	"hash/fnv"
	"testing"

	pb "go.etcd.io/raft/v3/raftpb"
)

// chain is FNV-1a over prev and term (8 bytes each, little-endian), the
// entry type (one byte) and the data, as hash/fnv computes it.
func TestChainIsFNV1a(t *testing.T) {
	for _, c := range []struct {
		prev, term uint64
		typ        pb.EntryType
		data       string
	}{
		{0, 0, 0, ""},
		{1, 2, pb.EntryNormal, "put k v"},
		{0xdeadbeefcafef00d, 1 << 40, pb.EntryConfChangeV2, "\x00\xff conf"},
	} {
		h := fnv.New64a()
		var b [17]byte
		binary.LittleEndian.PutUint64(b[:], c.prev)
		binary.LittleEndian.PutUint64(b[8:], c.term)
		b[16] = byte(c.typ)
		h.Write(b[:])
		h.Write([]byte(c.data))
		if got, want := chain(c.prev, c.term, c.typ, []byte(c.data)), h.Sum64(); got != want {
			t.Errorf("chain(%#x, %d, %v, %q) = %#x, want %#x", c.prev, c.term, c.typ, c.data, got, want)
		}
	}
}
