// Package netmodel owns the simulated network between members: per-link
// latency, loss and duplication, cuts and partitions, and the reason every
// dropped message was dropped.
//
// It is deterministic: every random choice is drawn from the *rand.Rand the
// caller hands in, in the order the caller asks, and nothing here iterates a
// map. Times are offsets from the start of the simulation (time.Duration),
// never the wall clock.
//
// Links behave like etcd's peer streams: messages on one directed link arrive
// in the order they were sent (FIFO), so a fast message never overtakes a slow
// one on the same link. Different links are independent.
package netmodel
