package sim

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	cryptorand "crypto/rand"
	"math/big"
	"sync"
	"testing"
)

// TestEntropyRouterKeepsRealCryptography: the router that makes raft's
// election timers deterministic must not weaken anything else that reads
// crypto/rand in the process. While a member is being driven (entropy.current
// set), a read from another goroutine, a read on this goroutine outside
// raft, crypto/rand.Int and a key generation all get the real CSPRNG: bytes
// that differ from read to read, not the member's stream (one small number,
// big-endian, after zeros).
func TestEntropyRouterKeepsRealCryptography(t *testing.T) {
	w, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	m := w.members[0]
	before := UnroutedEntropyReads()
	m.enter()
	defer m.leave()
	mm := *m.electionRand // the member's stream must not move

	read := func() []byte {
		b := make([]byte, 32)
		if _, err := cryptorand.Read(b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b := read(), read()
	var c []byte
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); c = read() }()
	wg.Wait()
	zeros := make([]byte, 24)
	for _, x := range [][]byte{a, b, c} {
		if bytes.Equal(x[:24], zeros) {
			t.Fatalf("a read outside raft got the member's stream: %x", x)
		}
	}
	if bytes.Equal(a, b) || bytes.Equal(b, c) {
		t.Fatalf("two reads gave the same bytes: %x, %x, %x", a, b, c)
	}
	n1, _ := cryptorand.Int(cryptorand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	n2, _ := cryptorand.Int(cryptorand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if n1.Cmp(n2) == 0 || n1.BitLen() < 64 {
		t.Fatalf("crypto/rand.Int outside raft: %v, %v", n1, n2)
	}
	k1, err1 := ecdsa.GenerateKey(elliptic.P256(), cryptorand.Reader)
	k2, err2 := ecdsa.GenerateKey(elliptic.P256(), cryptorand.Reader)
	if err1 != nil || err2 != nil || k1.D.Cmp(k2.D) == 0 {
		t.Fatalf("two keys generated while a member is driven are the same (or failed: %v %v)", err1, err2)
	}
	if *m.electionRand != mm {
		t.Fatal("reads outside raft drew from the member's election stream")
	}
	if UnroutedEntropyReads() != before {
		t.Fatalf("reads outside raft were counted as raft's: %d, then %d", before, UnroutedEntropyReads())
	}
}

// TestShapedElectionTimeouts: with Config.MaxElectionTicks the router
// draws raft's timeouts from [ElectionTicks, MaxElectionTicks), and raft
// uses exactly what it drew; when the two are equal every timeout is
// ElectionTicks. Over many elections every allowed value comes up.
func TestShapedElectionTimeouts(t *testing.T) {
	for _, max := range []int{10, 11, 13, 20} {
		cfg := DefaultConfig()
		cfg.MaxElectionTicks = max
		cfg.PreVote, cfg.CheckQuorum = false, false
		w, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int]bool{}
		for _, m := range w.members {
			seen[m.timeoutTicks] = true
		}
		// Cut everyone off from everyone: each member times out, again
		// and again, drawing a timeout each time.
		for _, m := range w.members {
			if _, err := w.Do(Command{Kind: CmdIsolate, Node: m.name}); err != nil {
				t.Fatal(err)
			}
		}
		for range 400 {
			if err := w.Advance(cfg.Tick); err != nil {
				t.Fatal(err)
			}
			for _, m := range w.members {
				if got := raftField(t, m.rn, "randomizedElectionTimeout"); got != m.timeoutTicks {
					t.Fatalf("max %d: %s drew %d, raft has %d", max, m.name, m.timeoutTicks, got)
				}
				seen[m.timeoutTicks] = true
			}
		}
		want := max - cfg.ElectionTicks
		if want == 0 {
			want = 1
		}
		for v := range seen {
			if v < cfg.ElectionTicks || v >= cfg.ElectionTicks+want {
				t.Errorf("max %d: a timeout of %d ticks", max, v)
			}
		}
		if len(seen) != want {
			t.Errorf("max %d: %d distinct timeouts, want %d", max, len(seen), want)
		}
	}
	if UnroutedEntropyReads() != 0 {
		t.Fatalf("%d unrouted entropy reads", UnroutedEntropyReads())
	}
	cfg := DefaultConfig()
	for _, bad := range []int{9, 21} {
		cfg.MaxElectionTicks = bad
		if _, err := New(cfg); err == nil {
			t.Errorf("MaxElectionTicks %d with ElectionTicks %d: accepted", bad, cfg.ElectionTicks)
		}
	}
}
