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

// ReadPermitted is etcd's doSerialize check for a read the member answers
// (a get, a transaction that writes nothing) at its own clock now (ns):
// the request's token resolved at the member, then the user's read
// permission; "" when auth permits it, else the error the client gets.
func (s *Member[T, R, K]) ReadPermitted(r *Request, now int64) string {
	as, ai, why := s.authInfo(r.Token, now)
	if as == nil || why != "" {
		return why
	}
	switch {
	case r.Range != nil:
		return as.IsRangePermitted(ai, r.Range.Key, r.Range.RangeEnd)
	case r.Txn != nil:
		return as.IsTxnPermitted(ai, r.Txn)
	}
	return ""
}

// WatchPermitted is etcd's isWatchPermitted, as the member creates a
// watch at its own clock now (ns): the stream's token resolved, then the
// user's read permission on the watched range. etcd answers a refusal
// with a created and canceled response whose cancel reason is the error
// (wire, WatchRefused).
func (s *Member[T, R, K]) WatchPermitted(r *Request, now int64) string {
	as, ai, why := s.authInfo(r.Token, now)
	if as == nil || why != "" {
		return why
	}
	return as.IsRangePermitted(ai, r.Watch.Key, r.Watch.RangeEnd)
}

// authInfo resolves a request's token at the member's own clock now (ns),
// as both checks begin: as is nil when auth is off (everything is
// permitted), why the error the client gets when the token does not
// resolve.
func (s *Member[T, R, K]) authInfo(token string, now int64) (as *AuthStore, ai *AuthInfo, why string) {
	if !s.KV.Auth.Enabled() {
		return nil, nil, ""
	}
	ai, why = s.KV.Auth.Info(token, now)
	return s.KV.Auth, ai, why
}

// Read answers a read from the member's store (a get, or a transaction
// that writes nothing) at its own clock now (ns), once auth permits it
// (ReadPermitted): the response, or the error the client gets.
func (s *Member[T, R, K]) Read(r *Request, now int64) (Response, string) {
	if why := s.ReadPermitted(r, now); why != "" {
		return Response{}, why
	}
	return s.KV.Read(r)
}

// SetKV makes kv the member's state machine (at its start, or restored
// from a snapshot), its watches over kv's store, sent to sink.
func (s *Member[T, R, K]) SetKV(kv *KV, sink WatchSink[T]) {
	s.KV = kv
	s.Watches.Store(kv.Store, sink)
}

// PollLeader is etcd's monitorLeader's poll, once an election timeout:
// whether the member knows a leader. After maxNoLeaderPolls polls in a row
// without one it cancels the watches that require a leader.
func (s *Member[T, R, K]) PollLeader(leader bool) {
	if s.LeaderMonitor.Poll(leader) {
		s.Watches.LeaderLost()
	}
}
