// Package lease is etcd's lessor, as the simulator's members run it: leases
// granted and revoked through raft, kept alive at the leader, and expired by
// the leader's clock, which then proposes their revocation through raft.
//
// It is shaped after etcd's server/lease/lessor.go. Only the primary (the
// leader's lessor) keeps real expiries; every other member's leases never
// expire ("forever"), and a member that becomes leader extends every lease
// it inherits by the election timeout (Promote). Time is the member's own
// clock, in nanoseconds, handed in by the caller, so that a member with a
// skewed clock expires leases early or late, as a real one would.
//
// The package imports neither raft nor the simulator.
package lease

import (
	"encoding/binary"
	"errors"
	"maps"
	"slices"
)

// MaxLeaseTTL is etcd's largest TTL, in seconds.
const MaxLeaseTTL = 9000000000

// ExpiredLeaseRetryInterval is how long the leader waits before it
// proposes the revocation of an expired lease again, if the first
// proposal has not taken effect (etcd's expiredLeaseRetryInterval).
const ExpiredLeaseRetryInterval = int64(3e9)

// CheckInterval is how often the leader looks for expired leases (etcd's
// lessor runLoop ticks every 500ms).
const CheckInterval = int64(500e6)

// The lessor's errors, as a client sees them over gRPC.
var (
	ErrLeaseNotFound    = errors.New("etcdserver: requested lease not found")
	ErrLeaseExists      = errors.New("etcdserver: lease already exists")
	ErrLeaseTTLTooLarge = errors.New("etcdserver: too large lease TTL")
	// ErrNotPrimary: only the leader's lessor renews; etcd forwards the
	// request to the leader.
	ErrNotPrimary = errors.New("not a primary lessor")
	// ErrExpired: the lease has expired and its revocation is on its way
	// through raft. etcd holds a keep-alive for such a lease until the
	// revocation is applied, and then answers ErrLeaseNotFound.
	ErrExpired = errors.New("lease expired; its revocation is pending")
)

const forever = int64(-1)

// Lease is one lease.
type Lease struct {
	ID  int64
	TTL int64 // seconds, as granted (at least the minimum TTL)

	expiry    int64 // the lessor's clock, ns; forever when not primary
	nextCheck int64 // when the leader may propose its revocation again
	keys      map[string]bool
}

// Keys returns the keys attached to the lease, in order.
func (l *Lease) Keys() []string { return slices.Sorted(maps.Keys(l.keys)) }

// Remaining returns the time left before the lease expires, in ns, at now;
// -1 means forever.
func (l *Lease) Remaining(now int64) int64 {
	if l.expiry == forever {
		return forever
	}
	return l.expiry - now
}

// Lessor holds a member's leases.
type Lessor struct {
	minTTL  int64
	primary bool
	leases  map[int64]*Lease
}

// New returns an empty lessor whose leases live at least minTTL seconds
// (etcd: 1.5 election timeouts, rounded up to a second).
func New(minTTL int64) *Lessor {
	return &Lessor{minTTL: minTTL, leases: map[int64]*Lease{}}
}

// IsPrimary reports whether this is the leader's lessor.
func (le *Lessor) IsPrimary() bool { return le.primary }

// Grant applies a committed grant. A TTL below the minimum is raised to it.
func (le *Lessor) Grant(id, ttl, now int64) (*Lease, error) {
	if id == 0 {
		return nil, ErrLeaseNotFound
	}
	if ttl > MaxLeaseTTL {
		return nil, ErrLeaseTTLTooLarge
	}
	if le.leases[id] != nil {
		return nil, ErrLeaseExists
	}
	l := &Lease{ID: id, TTL: max(ttl, le.minTTL), keys: map[string]bool{}}
	le.refresh(l, 0, now)
	le.leases[id] = l
	return l, nil
}

func (le *Lessor) refresh(l *Lease, extend, now int64) {
	if !le.primary {
		l.expiry = forever
		return
	}
	l.expiry = now + extend + l.TTL*1e9
	l.nextCheck = 0
}

// Revoke applies a committed revocation: the lease goes, and the keys
// attached to it are returned, in order, for the caller to delete in one
// transaction.
func (le *Lessor) Revoke(id int64) ([]string, error) {
	l := le.leases[id]
	if l == nil {
		return nil, ErrLeaseNotFound
	}
	delete(le.leases, id)
	return l.Keys(), nil
}

// Renew is a keep-alive at the leader: the lease lives its TTL again from
// now. An expired lease is not renewed (ErrExpired).
func (le *Lessor) Renew(id, now int64) (int64, error) {
	if !le.primary {
		return -1, ErrNotPrimary
	}
	l := le.leases[id]
	if l == nil {
		return -1, ErrLeaseNotFound
	}
	if l.expiry <= now {
		return -1, ErrExpired
	}
	le.refresh(l, 0, now)
	return l.TTL, nil
}

// Lookup returns the lease, or nil.
func (le *Lessor) Lookup(id int64) *Lease { return le.leases[id] }

// Expired reports whether the lease exists and has expired at now.
func (le *Lessor) Expired(id, now int64) bool {
	l := le.leases[id]
	return l != nil && l.expiry != forever && l.expiry <= now
}

// Leases returns every lease ID, in order.
func (le *Lessor) Leases() []int64 { return slices.Sorted(maps.Keys(le.leases)) }

// Promote makes this the primary lessor, as when its member becomes leader
// and has applied the first entry of its term: every lease it inherits
// lives its full TTL again from now, plus extend (the election timeout).
func (le *Lessor) Promote(extend, now int64) {
	le.primary = true
	for _, id := range le.Leases() {
		le.refresh(le.leases[id], extend, now)
	}
}

// Demote makes this a follower's lessor: no lease expires here.
func (le *Lessor) Demote() {
	le.primary = false
	for _, l := range le.leases {
		l.expiry = forever
	}
}

// ExpiredToRevoke returns, in ID order, the leases that have expired at now
// and whose revocation the leader should propose: each again only after
// ExpiredLeaseRetryInterval, in case the first proposal was lost.
func (le *Lessor) ExpiredToRevoke(now int64) []int64 {
	if !le.primary {
		return nil
	}
	var out []int64
	for _, id := range le.Leases() {
		l := le.leases[id]
		if l.expiry == forever || l.expiry > now || l.nextCheck > now {
			continue
		}
		l.nextCheck = now + ExpiredLeaseRetryInterval
		out = append(out, id)
	}
	return out
}

// Exists reports whether the lease exists (mvcc.Lessor).
func (le *Lessor) Exists(id int64) bool { return le.leases[id] != nil }

// Attach attaches a key to a lease (mvcc.Lessor).
func (le *Lessor) Attach(id int64, key string) {
	if l := le.leases[id]; l != nil {
		l.keys[key] = true
	}
}

// Detach detaches a key from a lease (mvcc.Lessor).
func (le *Lessor) Detach(id int64, key string) {
	if l := le.leases[id]; l != nil {
		delete(l.keys, key)
	}
}

// Encode writes the leases as a snapshot carries them: IDs and TTLs. Keys
// are attached again from the store, and expiries start afresh, as etcd's
// lessor recovers from its backend.
func (le *Lessor) Encode() []byte {
	ids := le.Leases()
	b := binary.AppendUvarint(nil, uint64(len(ids)))
	for _, id := range ids {
		b = binary.AppendVarint(b, id)
		b = binary.AppendVarint(b, le.leases[id].TTL)
	}
	return b
}

// ErrCorrupt says snapshot data could not be decoded.
var ErrCorrupt = errors.New("lease: corrupt snapshot data")

// Decode rebuilds a follower's lessor from Encode's bytes.
func Decode(data []byte, minTTL int64) (*Lessor, error) {
	le := New(minTTL)
	if len(data) == 0 {
		return le, nil
	}
	n, k := binary.Uvarint(data)
	if k <= 0 || n > uint64(len(data)) {
		return nil, ErrCorrupt
	}
	data = data[k:]
	for i := uint64(0); i < n; i++ {
		id, k1 := binary.Varint(data)
		if k1 <= 0 {
			return nil, ErrCorrupt
		}
		ttl, k2 := binary.Varint(data[k1:])
		if k2 <= 0 {
			return nil, ErrCorrupt
		}
		data = data[k1+k2:]
		le.leases[id] = &Lease{ID: id, TTL: ttl, expiry: forever, keys: map[string]bool{}}
	}
	if len(data) != 0 {
		return nil, ErrCorrupt
	}
	return le, nil
}
