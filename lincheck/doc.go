// Package lincheck decides whether a history of key-value operations is
// linearizable: whether each operation can be given one instant between
// its call and its return such that, taken in that order, the operations
// are what a single sequential etcd store would do.
//
// It is built to always answer, and to answer the same way every time:
//
//   - Operations are ordered by the positions of their calls and returns in
//     the simulation's own event order, not by time alone: two events at
//     the same virtual nanosecond still happened one after the other, and a
//     read sent the instant after a write's acknowledgement is after it.
//   - The history is split into independent parts: keys that no operation
//     touches together are checked apart, so the cost follows the busiest
//     key, not the whole history.
//   - Before the search, writes whose outcome is unknown (they timed out)
//     are dropped or bounded where that provably changes no verdict (see
//     reduce.go), since each such write may take effect at any later time
//     or never, and a few dozen of them make a naive search explode.
//   - A part of one key whose puts write distinct values (a register
//     whose reads-from relation is known) is decided without a search,
//     in O(n log n), by the register check (register.go).
//   - The search (search.go) decides the rest. It walks the history
//     once, in order, keeping every state the operations so far can have
//     left the store in; its memory follows the operations in flight, not
//     the history's length. It counts its steps, and past a budget it
//     answers "unknown", naming the key, instead of running on. No wall
//     clock is involved.
//
// The package knows nothing of the simulator: the caller turns its client
// operations into Operations.
package lincheck
