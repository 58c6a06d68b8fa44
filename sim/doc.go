// Package sim owns the simulated world and its clock: real go.etcd.io/raft/v3
// RawNodes as etcd-like members (raft, a disk, a KV state machine), the
// clients that talk to them, the faults that befall them, the safety
// invariants checked as it runs, and the history of everything that happened.
//
// The world is single-threaded and runs in virtual time. Nothing here reads
// the wall clock, sleeps, starts a goroutine, uses a global math/rand or
// lets map order reach the output: one Config and one list of Commands always
// give the same run. Every random choice comes from a stream derived from the
// seed, and raft's own election-timeout draws are routed to the stream of the
// member being driven (see entropy.go).
//
// Time advances in batches: RunUntil(t) processes every event scheduled at or
// before t, so a command is always applied at a clean instant, and a run can
// be rebuilt exactly from its Config and its command log (Replay).
//
// The history is the largest thing a long run keeps, so it is packed into
// chunks of records (history_store.go, chunked.go), and reading it decodes:
// NB: even a World that is only read must not be used by two goroutines at
// once.
package sim
