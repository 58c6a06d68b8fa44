package server

// Member is the server layer of one member, as etcd's EtcdServer owns it
// beside raft: its state machine (the KV: the MVCC store, the lessor and
// auth), its backend, the clients waiting on their request IDs, its
// watches, its linearizable reads, the calls it holds, the lessor's loop
// at the leader, its leader monitor and its ID generator. Package sim's
// member keeps raft, the disk, the clock, the timers and the queues, and
// calls in here; it gives each life of the process a new Member (a crash
// loses all of it but what the disk keeps).
//
// T is the member's handle on a client's call (its request); R, on a
// linearizable read waiting for its read index; K, on a keep-alive held
// for an expired lease.
type Member[T comparable, R LinearRead, K any] struct {
	KV      *KV     // nil while the member is down
	Backend Backend // its bbolt file, modelled, and the batch open on it
	Wait    Wait[T] // proposals this member made, by request ID (etcd's wait.Wait)
	// Watches are its clients' watch streams over its watchable store
	// (synced, unsynced and victims; no store while it is down).
	Watches Watches[T]
	Reads   Reads[R] // linearizable reads waiting for their read index and apply (the read-index path)
	Unready Held[T]  // requests that arrived before it was ready to serve
	Held    Held[T]  // requests waiting for a leader to be known (Route's Hold)

	LeaderMonitor LeaderMonitor     // etcd's monitorLeader: polls in a row that found no leader (require-leader watches)
	LeaseLoop     LeaseLoop         // the leader's lessor: promotion, and when it next looks for expired leases
	LeaseWaits    HeldKeepAlives[K] // keep-alives of expired leases, held until their revocation applies
	IDs           IDGen             // its request IDs (and the lease IDs it picks), from this life's start
}
