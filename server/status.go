package server

import (
	"cmp"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// What a member answers to etcd's Maintenance calls that it serves at once
// from its own state, without consensus: Status, and the check of
// MoveLeader. The member gathers what it knows (MemberStatus); the answer
// is etcd's.

// ServerVersion is the etcd version the simulated members claim to run.
const ServerVersion = "3.6.16"

// ErrBadLeaderTransferee is etcd's answer to a MoveLeader to a member
// that cannot lead.
const ErrBadLeaderTransferee = "etcdserver: bad leader transferee"

// Transferee is what a member knows of the member a MoveLeader names.
type Transferee struct {
	Known   bool // a member of the world by that name
	Learner bool // a learner in the member's configuration
	Removed bool // removed from the cluster
	Voter   bool // a voter in the member's configuration
}

// CheckTransferee is etcd's MoveLeader check before it asks raft: only a
// voting member can be made leader; ErrBadLeaderTransferee for any other,
// "" for a voter.
func CheckTransferee(t Transferee) string {
	if !t.Known || t.Learner || t.Removed || !t.Voter {
		return ErrBadLeaderTransferee
	}
	return ""
}

// StorageVersion is the storage version a member's backend holds at
// clusterVersion: 3.6 once the cluster version has reached it (etcd's
// monitorStorageVersion moves it), and none before, which etcd reads as
// 3.5 (schema.DetectSchemaVersion).
func StorageVersion(clusterVersion string) string {
	if clusterVersion == "3.6.0" {
		return "3.6.0"
	}
	return ""
}

// MemberStatus is what a member knows that a Status call answers with.
type MemberStatus struct {
	Header *pb.ResponseHeader
	// Leader is the leader's member ID; 0: the member knows no leader.
	Leader                                uint64
	RaftIndex, RaftTerm, RaftAppliedIndex uint64
	IsLearner                             bool
	// DBSize and DBSizeInUse are its backend's (Backend.Size); Quota its
	// --quota-backend-bytes.
	DBSize, DBSizeInUse, Quota int64
	Alarms                     Alarms
	ClusterVersion             string
	// Downgrade is the target version of the downgrade in progress; "":
	// none.
	Downgrade string
}

// Status is etcd's answer to a Status call from a member that knows s.
func Status(s *MemberStatus) *pb.StatusResponse {
	r := &pb.StatusResponse{Header: s.Header, Version: ServerVersion, DbSize: s.DBSize, DbSizeInUse: s.DBSizeInUse,
		Leader: s.Leader, RaftIndex: s.RaftIndex, RaftTerm: s.RaftTerm, RaftAppliedIndex: s.RaftAppliedIndex}
	if s.Leader == 0 {
		r.Errors = []string{ErrNoLeader}
	}
	for _, a := range s.Alarms.Members() {
		r.Errors = append(r.Errors, AlarmString(a))
	}
	r.IsLearner = s.IsLearner
	r.StorageVersion = cmp.Or(StorageVersion(s.ClusterVersion), "3.5.0")
	r.DbSizeQuota = s.Quota
	r.DowngradeInfo = &pb.DowngradeInfo{TargetVersion: s.Downgrade, Enabled: s.Downgrade != ""}
	return r
}
