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
