package sim

import (
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/server"
)

// What a member answers to etcd's Maintenance calls that it serves at once
// from its own state, without consensus: Status, and the checks of
// MoveLeader (server/status.go). The console (etcdctl) and the wire
// (raftsim serve) both ask here.

// Status returns what the named member answers to a Status call now: its
// own view, read at once. ok is false when there is no such member or it
// is down.
func (w *World) Status(name string) (r *pb.StatusResponse, ok bool) {
	m := w.byName[name]
	if m == nil || !m.up {
		return nil, false
	}
	in := m.info()
	s := server.MemberStatus{Header: w.header(m, true), RaftIndex: in.Commit, RaftTerm: in.Term, RaftAppliedIndex: in.Applied,
		IsLearner: in.Learner, Quota: w.cfg.quota(name), Alarms: m.cluster.Alarms, ClusterVersion: m.cluster.Version,
		Downgrade: m.cluster.Downgrade}
	s.DBSize, s.DBSizeInUse = w.DBSize(name)
	if in.Lead != 0 && int(in.Lead) <= len(w.members) {
		s.Leader = w.members[in.Lead-1].memberID
	}
	return server.Status(&s), true
}

// Header returns the response header the named member puts on an answer
// now: the cluster, itself, its store's revision (if withRevision) and its
// raft term.
func (w *World) Header(name string, withRevision bool) *pb.ResponseHeader {
	m := w.byName[name]
	if m == nil {
		return &pb.ResponseHeader{ClusterId: w.clusterID}
	}
	return w.header(m, withRevision)
}

func (w *World) header(m *member, withRevision bool) *pb.ResponseHeader {
	h := &pb.ResponseHeader{ClusterId: m.clusterID(), MemberId: m.memberID, RaftTerm: m.info().Term}
	if withRevision && m.up && m.srv.KV != nil {
		h.Revision = m.srv.KV.Revision()
	}
	return h
}

// CheckTransferee returns etcd's error for a MoveLeader to the named member
// when it cannot lead (server.CheckTransferee: a learner, a removed member,
// no such member); "" when it can.
func (w *World) CheckTransferee(name string) string {
	in, ok := w.Info(name)
	return server.CheckTransferee(server.Transferee{Known: ok, Learner: in.Learner, Removed: in.Removed, Voter: in.Voter})
}
