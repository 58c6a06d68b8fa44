package sim

import (
	"fmt"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// What a member answers to etcd's Maintenance calls that it serves at once
// from its own state, without consensus: Status, and the checks of
// MoveLeader. The console (etcdctl) and the wire (raftsim serve) both ask
// here.

// DefaultQuota is etcd's default --quota-backend-bytes, 2 GiB.
const DefaultQuota = 2 << 30

// AlarmString is an alarm as etcd prints it (the proto's compact text):
// alarm list's lines and endpoint status's errors.
func AlarmString(a *pb.AlarmMember) string {
	return fmt.Sprintf("memberID:%d alarm:%s ", a.MemberID, a.Alarm)
}

// Status returns what the named member answers to a Status call now: its
// own view, read at once. ok is false when there is no such member or it
// is down.
func (w *World) Status(name string) (r *pb.StatusResponse, ok bool) {
	m := w.byName[name]
	if m == nil || !m.up {
		return nil, false
	}
	in := m.info()
	r = &pb.StatusResponse{Header: w.header(m, true), Version: ServerVersion}
	r.DbSize, r.DbSizeInUse = w.DBSize(name)
	if in.Lead != 0 && int(in.Lead) <= len(w.members) {
		r.Leader = w.members[in.Lead-1].memberID
	}
	r.RaftIndex, r.RaftTerm, r.RaftAppliedIndex = in.Commit, in.Term, in.Applied
	if in.Lead == 0 {
		r.Errors = []string{"etcdserver: no leader"}
	}
	for _, a := range m.cluster.alarmMembers() {
		r.Errors = append(r.Errors, AlarmString(a))
	}
	r.IsLearner = in.Learner
	// A new etcd's storage is at 3.5 until the cluster version reaches 3.6
	// (etcd's monitorStorageVersion moves it).
	r.StorageVersion = "3.5.0"
	if m.cluster.version == "3.6.0" {
		r.StorageVersion = "3.6.0"
	}
	r.DbSizeQuota = w.cfg.quota(name)
	r.DowngradeInfo = &pb.DowngradeInfo{}
	return r, true
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
	if withRevision && m.up && m.kv != nil {
		h.Revision = m.kv.Revision()
	}
	return h
}

// errBadLeaderTransferee is etcd's answer to a MoveLeader to a member that
// cannot lead.
const errBadLeaderTransferee = "etcdserver: bad leader transferee"

// CheckTransferee returns etcd's error for a MoveLeader to the named member
// when it cannot lead (a learner, a removed member, no such member), as
// etcd's MoveLeader checks it before it asks raft; "" when it can.
func (w *World) CheckTransferee(name string) string {
	in, ok := w.Info(name)
	if !ok || in.Learner || in.Removed || !in.Voter {
		return errBadLeaderTransferee
	}
	return ""
}
