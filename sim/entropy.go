package sim

import (
	cryptorand "crypto/rand"
	"encoding/binary"
	"io"
	"runtime"
	"strings"
	"sync"
)

// raft v3.7.0 draws each randomized election timeout as
// electionTimeout + crypto/rand.Int(crypto/rand.Reader, electionTimeout),
// and Config offers no hook to change that. crypto/rand.Int reads exactly
// ceil(bits/8) bytes from the reader it is handed and returns them as a
// big-endian number if it is below the bound. So the simulator replaces
// crypto/rand.Reader with a router that writes a value drawn from the
// election stream of the member being driven right now, below the member's
// election timeout: Int returns exactly that value, and the simulator knows
// every member's timeout. The same router can shape the timeout's range
// without changing raft: any value below the bound is one raft could have
// drawn, so drawing from a narrower range (Config.MaxElectionTicks) gives
// timeouts from [ET, MaxElectionTicks) instead of raft's [ET, 2·ET), as
// the top graph of the Raft paper's Figure 16 needs.
//
// NB: the router is process-wide. Worlds in one process must not run at the
// same time (none of this package's tests call t.Parallel); parallel trials
// use separate processes. A draw of raft's made while no member is being
// driven goes to the real CSPRNG and is counted: UnroutedEntropyReads must
// stay 0.
//
// The router must never weaken real cryptography in the process: only a
// read made from inside raft's own timer draw (its caller is in package
// go.etcd.io/raft/v3) can be answered from a member's stream. Any other
// read, from any goroutine, at any moment (a key generated while a member
// is being driven included), goes to the real CSPRNG.
type entropyRouter struct {
	real     io.Reader
	current  *member
	unrouted int
}

var entropy = &entropyRouter{real: cryptorand.Reader}

func init() { cryptorand.Reader = entropy }

func (r *entropyRouter) Read(p []byte) (int, error) {
	if !fromRaft() {
		return r.real.Read(p)
	}
	m := r.current
	if m == nil {
		r.unrouted++
		return r.real.Read(p)
	}
	v := m.timeoutDraw()
	m.timeoutTicks = m.w.cfg.ElectionTicks + int(v)
	clear(p)
	var buf [8]byte
	binary.BigEndian.PutUint64(buf[:], v)
	if len(p) >= 8 {
		copy(p[len(p)-8:], buf[:])
	} else {
		copy(p, buf[8-len(p):])
	}
	return len(p), nil
}

// timeoutDraw draws what raft adds to its election timeout, from m's
// election stream: uniform below ElectionTicks, as raft itself draws, or
// below MaxElectionTicks - ElectionTicks when Config shapes the range
// (nothing when that is 0). Either way the value is below ElectionTicks,
// the bound raft hands crypto/rand.Int, so Int returns it unchanged.
func (m *member) timeoutDraw() uint64 {
	c := &m.w.cfg
	span := c.ElectionTicks
	if c.MaxElectionTicks != 0 {
		span = c.MaxElectionTicks - c.ElectionTicks
	}
	if span <= 0 {
		return 0
	}
	return m.electionRand.Uint64N(uint64(span))
}

// UnroutedEntropyReads counts reads of crypto/rand.Reader made while no
// member was being driven. Anything but 0 means some randomness escaped the
// seed.
func UnroutedEntropyReads() int { return entropy.unrouted }

// raftPackage is where raft's election timer draws from crypto/rand.
const raftPackage = "go.etcd.io/raft/v3."

// fromRaft reports whether the read under way was made by raft: whether a
// caller a few frames up (crypto/rand.Int, io.ReadFull) is in its package.
// NB: it looks only at the calling goroutine's own stack.
//
// Five frames are enough: raft's timer draw is the fourth above Read even
// with inlining off (io.ReadAtLeast, io.ReadFull, crypto/rand.Int, then
// raft's lockedRand.Intn), and each frame unwound costs: with eight, the
// unwinding was 7% of a Figure 16 trial.
func fromRaft() bool {
	var pcs [5]uintptr
	n := runtime.Callers(3, pcs[:]) // above Read and fromRaft
	for _, pc := range pcs[:n] {
		if raftPC(pc) {
			return true
		}
	}
	return false
}

// raftPCs remembers, for each return address fromRaft has looked up,
// whether its frame (or a frame inlined at it) is a function of raft's
// package. An address always names the same functions, so the answer is
// the same as looking it up again; looking the name up was a tenth of a
// trial's time.
var raftPCs sync.Map // uintptr → bool

func raftPC(pc uintptr) bool {
	if v, ok := raftPCs.Load(pc); ok {
		return v.(bool)
	}
	found := false
	frames := runtime.CallersFrames([]uintptr{pc})
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, raftPackage) {
			found = true
			break
		}
		if !more {
			break
		}
	}
	raftPCs.Store(pc, found)
	return found
}
