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
// A member (member.go) drives one raft RawNode: its Readies, disk writes,
// messages, committed entries and reads. What else an etcd member does is
// a role, a small type that owns its state, embedded in member and named
// in the file that holds it: memberClock (clock.go: its own clock, which
// a fault may make run fast or slow, and its ticker), serverBoot (boot.go: the election tick
// advance, the publication, the cluster version check), confChanges
// (reconfig.go), snapshotter (snapshot.go: raft snapshots), dataDirs
// (datadir.go: the data directories on its host) and bugHooks (bugs.go:
// the injected bugs). Its server layer's state is a server.Member
// (member.srv).
//
// World's methods live in the file of their role: world.go (building a
// world and running its events), commands.go (the commands and their log),
// client.go (clientv3's model: picking a member, retries, deadlines),
// clientloops.go (lease keep-alives, kube-apiserver's compactor), load.go,
// propose.go (proposing, forwarding between members), watch.go, history_forget.go
// (what a run that forgets its history keeps of finished operations),
// reconfig.go and boot.go (the world's part of membership and of a
// member's start), restore.go (etcdutl snapshot restore), fork.go,
// snapshot.go, console_api.go (what the console and the wire read: the
// Maintenance answers, auth), view.go (what the window shows), history.go,
// why.go (raft's log lines, what a message carried), transcript.go (the
// transcript and the trace), linearize.go (the linearizability check, and
// porcupine's page of it) and op.go (Op: a request's record).
//
// The history is the largest thing a long run keeps, so it is packed into
// chunks of records (history_store.go, chunked.go), and reading it decodes:
// NB: even a World that is only read must not be used by two goroutines at
// once.
package sim
