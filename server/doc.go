// Package server is etcd's server layer for one simulated member, as
// etcd's server/etcdserver draws it above raft: the requests it serves and
// the responses it answers, in etcd's own types (Request, Response); what
// a raft entry holds (an InternalRaftRequest with a request ID from the
// member's ID generator); the checks etcd's gRPC layer makes before a
// request reaches raft, and which way a call goes at the member that
// received it (Arrive, Admit, Route, Held), and the error a call that
// timed out there gets (TimeoutErr); the apply path of a committed entry
// (Member.ApplyEntry), a new leader's first commit in its term
// included; the state machine a member applies committed entries into (KV:
// the MVCC store and the lessor) and what applying one did; reads, and the
// read-index path of linearizable ones (Reads); the leader's answers to
// lease keep-alives and timetolives, and its lessor loop (LeaseLoop); the
// Maintenance answers: Status, MoveLeader's check (CheckTransferee), the
// space quota (Backend.QuotaCheck) and the alarm store (Alarms), the
// backend's batches over a model of its bbolt file (Backend), and the
// snapshot file of a state machine and back (KV.Snapshot, RestoreKV); the
// clients' watch streams over the member's watchable store (Watches);
// auth (AuthStore: users, roles, permissions, simple tokens, applied by
// one handler per Auth request in auth_apply.go) and Downgrade's
// answers (downgrade.go).
//
// It drives nothing: package sim's members own raft, the disk, the clock,
// the scheduler and the network, and call in here to propose, apply and
// answer (the narrow interface is KV, Arrive, Admit, Route, Held,
// TimeoutErr, Member, LeaseLoop, Reads, Wait, HeldKeepAlives,
// LeaderMonitor, IDGen, Encode/Decoder, Validate, TooLarge, Backend,
// Alarms, Status, CheckTransferee and Watches). Nothing here reads the
// wall clock, starts a goroutine or lets map order reach its answers.
package server
