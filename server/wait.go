package server

// Wait is etcd's wait.Wait at one member: what waits for the entry that
// carries a request ID to be applied (a client's write, a configuration
// change). The member registers a request when it proposes it and
// triggers it when it applies the entry; a request whose entry never comes
// (lost with a leader's uncommitted log) waits until its client gives up,
// and a restart forgets them all, as etcd's does.
type Wait[T any] struct {
	waiting map[uint64]T
}

// Register makes t wait for the entry with request ID id.
func (w *Wait[T]) Register(id uint64, t T) {
	if w.waiting == nil {
		w.waiting = map[uint64]T{}
	}
	w.waiting[id] = t
}

// Trigger is the entry with request ID id applied: it returns what waited
// for it, which waits no more.
func (w *Wait[T]) Trigger(id uint64) (t T, ok bool) {
	t, ok = w.waiting[id]
	if ok {
		delete(w.waiting, id)
	}
	return t, ok
}

// Len is how many requests wait.
func (w *Wait[T]) Len() int { return len(w.waiting) }
