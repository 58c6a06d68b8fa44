package lease

import (
	"errors"
	"slices"
	"testing"
)

const s = int64(1e9)

// TestLessorExpiry follows one lease through etcd's rules: a follower's
// lease never expires; the leader's expires TTL after its grant or last
// renewal; a new leader extends what it inherits by the election timeout;
// an expired lease is proposed for revocation once, and again after the
// retry interval.
func TestLessorExpiry(t *testing.T) {
	follower := New(2)
	if _, err := follower.Grant(7, 1, 0); err != nil {
		t.Fatal(err)
	}
	if got := follower.Lookup(7).TTL; got != 2 {
		t.Fatalf("TTL below the minimum: got %d, want the minimum 2", got)
	}
	if follower.Expired(7, 1000*s) || follower.ExpiredToRevoke(1000*s) != nil {
		t.Fatal("a follower's lease expired")
	}
	if _, err := follower.Renew(7, 0); !errors.Is(err, ErrNotPrimary) {
		t.Fatalf("renew at a follower: got %v, want ErrNotPrimary", err)
	}

	// It becomes leader at 10s with an election timeout of 1s.
	follower.Promote(1*s, 10*s)
	if follower.Expired(7, 12*s+s/2) {
		t.Fatal("expired before TTL + extension")
	}
	if got := follower.ExpiredToRevoke(13 * s); !slices.Equal(got, []int64{7}) {
		t.Fatalf("at 13s: got %v, want [7]", got)
	}
	if got := follower.ExpiredToRevoke(14 * s); got != nil {
		t.Fatalf("proposed again before the retry interval: %v", got)
	}
	if got := follower.ExpiredToRevoke(16 * s); !slices.Equal(got, []int64{7}) {
		t.Fatalf("at 16s, after the retry interval: got %v, want [7]", got)
	}
	if _, err := follower.Renew(7, 16*s); !errors.Is(err, ErrExpired) {
		t.Fatalf("renewing an expired lease: got %v, want ErrExpired", err)
	}
	follower.Attach(7, "b")
	follower.Attach(7, "a")
	keys, err := follower.Revoke(7)
	if err != nil || !slices.Equal(keys, []string{"a", "b"}) {
		t.Fatalf("revoke: %v %v", keys, err)
	}
	if _, err := follower.Revoke(7); !errors.Is(err, ErrLeaseNotFound) {
		t.Fatalf("second revoke: %v", err)
	}
}

func TestLessorRenewAndEncode(t *testing.T) {
	le := New(2)
	le.Promote(0, 0)
	if _, err := le.Grant(5, 10, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := le.Grant(5, 10, 0); !errors.Is(err, ErrLeaseExists) {
		t.Fatalf("granting twice: %v", err)
	}
	if _, err := le.Grant(6, MaxLeaseTTL+1, 0); !errors.Is(err, ErrLeaseTTLTooLarge) {
		t.Fatalf("too large: %v", err)
	}
	if ttl, err := le.Renew(5, 9*s); err != nil || ttl != 10 {
		t.Fatalf("renew: %d %v", ttl, err)
	}
	if le.Expired(5, 18*s) || !le.Expired(5, 19*s) {
		t.Fatal("a renewed lease should expire TTL after its renewal")
	}
	got, err := Decode(le.Encode(), 2)
	if err != nil || !slices.Equal(got.Leases(), []int64{5}) || got.Lookup(5).TTL != 10 || got.IsPrimary() {
		t.Fatalf("decode: %v %v", got, err)
	}
	le.Demote()
	if le.Expired(5, 100*s) {
		t.Fatal("a demoted lessor's lease expired")
	}
}
