package server

// HeldKeepAlives are the keep-alives the leader holds for leases that have
// expired: etcd's Renew waits until the expired lease's revocation is
// applied (or the leader changes) and then answers that the lease is not
// found. T is what the member needs to answer one (the request, and where
// it came from).
type HeldKeepAlives[T any] struct {
	held []heldKeepAlive[T]
}

type heldKeepAlive[T any] struct {
	lease int64
	t     T
}

// Hold holds t, a keep-alive of lease.
func (h *HeldKeepAlives[T]) Hold(lease int64, t T) {
	h.held = append(h.held, heldKeepAlive[T]{lease, t})
}

// Revoked is lease's revocation applied: answer is called for each
// keep-alive held for it, in the order they came, and they are held no
// more.
func (h *HeldKeepAlives[T]) Revoked(lease int64, answer func(T)) {
	kept := h.held[:0]
	for _, k := range h.held {
		if k.lease != lease {
			kept = append(kept, k)
			continue
		}
		answer(k.t)
	}
	h.held = kept
}

// All calls f for each keep-alive held (a crash fails them).
func (h *HeldKeepAlives[T]) All(f func(T)) {
	for _, k := range h.held {
		f(k.t)
	}
}

// Len is how many keep-alives are held.
func (h *HeldKeepAlives[T]) Len() int { return len(h.held) }
