package server

import (
	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/membershippb"
)

// The apply path of a committed normal entry at a member, as etcd's
// applyEntryNormal and its appliers take it: the empty entry a leader
// appends at the start of its term is its first commit in the term (a
// leader then promotes its lessor); any other entry is decoded; a
// member's publication and the cluster version go to the membership, an
// alarm request to the alarm store, any other request to the state
// machine through the applier chain (KV.ApplyCapped); then the client
// that waits on the request ID is answered (Wait), and the watches get
// what changed. The member does what needs the world (ApplyHooks).

// ApplyAt is what a member's apply path needs to know of one entry
// beside its server layer's own state: where and when it applies.
type ApplyAt struct {
	Alarms  *Alarms // its alarm store (kept with its membership)
	Self    uint64  // its etcd member ID
	Now, At int64   // its own clock, and the world's time (ns)
	Index   uint64  // the raft index of the entry applied

	// For the first commit in a term: whether the member leads (as raft
	// last told it), and how long the leases it inherits live past their
	// TTL (ns, an election timeout).
	Leader bool
	Extend int64

	// Quota is the member's --quota-backend-bytes (0: none), checked again
	// as a request is applied (applyquota.go).
	Quota int64
}

// FirstCommit is what a member's first commit in a term did: a leader's
// checks the cluster version (etcd's firstCommitInTerm wakes its
// monitorClusterVersions) and promotes its lessor, which inherits the
// leases it holds unless it was primary already.
type FirstCommit struct {
	Leader    bool // it leads: the cluster version is to be checked
	Inherited int  // the leases its lessor inherited as it was promoted
}

// ApplyHooks are what the apply path asks of the member: what needs the
// world (its clients, the member network, the transcript, the other
// members) or the membership (package membership, which imports this
// one).
type ApplyHooks[T any] interface {
	// Answer answers t, the client waiting on an applied request, with
	// what applying it did.
	Answer(t T, a Applied)
	// Revoked is a lease's revocation applied (a.Revoked, a.Deleted), by
	// the request with ID id: the keep-alives held for the lease are
	// answered.
	Revoked(id uint64, a Applied)
	// Publish applies a member's publication of its attributes; own: it is
	// this member's, from this life (it then serves clients).
	Publish(r *membershippb.ClusterMemberAttrSetRequest, own bool)
	// SetVersion applies the cluster version.
	SetVersion(v string)
	// SetDowngrade applies a DowngradeInfoSet: target is the downgrade's
	// target version, "" for none (etcd's applierMembership.DowngradeInfoSet).
	SetDowngrade(target string)
	// AlarmChanged is an alarm request that raised or cleared an alarm.
	AlarmChanged(r *etcdserverpb.AlarmRequest)
	// FirstCommitInTerm is the empty entry that starts a term applied.
	FirstCommitInTerm(f FirstCommit)
	// NoSpace is the apply-time quota check answering ErrNoSpace while no
	// NOSPACE alarm is raised: the member is to raise its own.
	NoSpace()
}

// ApplyEntry applies the request a committed normal entry's data holds,
// decoded with d, or the first commit in a term for an entry with no data;
// an entry that does not decode is an error.
func (s *Member[T, R, K]) ApplyEntry(d *Decoder, data []byte, at ApplyAt, h ApplyHooks[T]) error {
	if len(data) == 0 {
		h.FirstCommitInTerm(s.firstCommitInTerm(at))
		return nil
	}
	var r etcdserverpb.InternalRaftRequest
	if err := d.Decode(data, &r); err != nil {
		return err
	}
	if IsClusterRequest(&r) {
		s.applyCluster(&r, at, h)
		return nil
	}
	s.applyRequest(&r, at, h)
	return nil
}

// firstCommitInTerm is what etcd's applyEntryNormal does for the empty
// entry a new leader appends: only a member that leads promotes its
// lessor, and only a leader's version monitor sets the cluster version.
func (s *Member[T, R, K]) firstCommitInTerm(at ApplyAt) FirstCommit {
	if !at.Leader {
		return FirstCommit{}
	}
	n, _ := s.LeaseLoop.Promote(s.KV, at.Extend, at.Now)
	return FirstCommit{Leader: true, Inherited: n}
}

// applyRequest applies a client's request (or the leader's lessor's
// revocation) through etcd's applier chain. A request the store refuses
// (a put with --ignore-value of a key that does not exist), or the capped
// applier while NOSPACE is raised, is refused here, after raft, as etcd
// refuses it: its entry is in the log all the same.
func (s *Member[T, R, K]) applyRequest(r *etcdserverpb.InternalRaftRequest, at ApplyAt, h ApplyHooks[T]) {
	s.KV.ApplyIndex = at.Index
	available := s.Backend.QuotaAvailable(r, at.Quota)
	a := s.KV.ApplyCapped(r, at.Now, *at.Alarms, &s.Backend, at.At, s.Watches.Watching())
	a, raise := ApplyQuota(a, available, *at.Alarms)
	if raise {
		h.NoSpace()
	}
	if a.Revoked != 0 {
		h.Revoked(RequestID(r), a)
	}
	s.answer(RequestID(r), a, h)
	s.Watches.Notify(a.Events)
}

// applyCluster applies a cluster request: a member's publication, the
// cluster version, an alarm request. A publication is the member's own
// from this life when it carries its member ID and a request ID it drew
// since it started.
func (s *Member[T, R, K]) applyCluster(r *etcdserverpb.InternalRaftRequest, at ApplyAt, h ApplyHooks[T]) {
	id := RequestID(r)
	switch {
	case r.ClusterMemberAttrSet != nil:
		h.Publish(r.ClusterMemberAttrSet, r.ClusterMemberAttrSet.Member_ID == at.Self && s.IDs.Mine(id))
	case r.ClusterVersionSet != nil:
		h.SetVersion(r.ClusterVersionSet.Ver)
	case r.DowngradeInfoSet != nil:
		target := ""
		if r.DowngradeInfoSet.Enabled {
			target = r.DowngradeInfoSet.Ver
		}
		h.SetDowngrade(target)
		s.answer(id, Applied{Rev: s.KV.Store.Rev()}, h)
	case r.Alarm != nil:
		alarms, changed := at.Alarms.Apply(r.Alarm)
		if changed {
			h.AlarmChanged(r.Alarm)
		}
		if r.Alarm.Action == etcdserverpb.AlarmRequest_DEACTIVATE {
			alarms = nil // a disarm answers with every alarm it disarmed, which its member gathered as it proposed it
		}
		s.answer(id, Applied{Rev: s.KV.Store.Rev(), Alarms: alarms}, h)
	}
}

// answer answers the client that waits on request ID id, if one does.
func (s *Member[T, R, K]) answer(id uint64, a Applied, h ApplyHooks[T]) {
	if t, ok := s.Wait.Trigger(id); ok {
		h.Answer(t, a)
	}
}
