package membership

import "time"

// etcd's strict reconfiguration checks (--strict-reconfig-check, on by
// default) and its learner rules, as etcd's server.go makes them before it
// proposes a change (mayAddMember, mayRemoveMember, mayPromoteMember) with
// RaftCluster's counts (IsReadyToAddVotingMember,
// IsReadyToRemoveVotingMember, IsReadyToPromoteMember). The world knows
// who is connected to whom and since when; these are the rules.

// HealthInterval is etcd's HealthInterval: a peer counts as connected for
// a reconfiguration only once it has been connected this long.
const HealthInterval = 5 * time.Second

// ReadyPercent is etcd's readyPercentThreshold: a learner may be promoted
// once its log matches at least this share of the leader's.
const ReadyPercent = 0.9

// The reasons the checks refuse a change, as etcd's gRPC layer words them.
const (
	ErrNotEnoughStarted = "etcdserver: re-configuration failed due to not enough started members"
	ErrUnhealthy        = "etcdserver: unhealthy cluster"
	ErrLearnerNotReady  = "etcdserver: can only promote a learner member which is in sync with leader"
)

// MayAdd is etcd's strict check before a member add: a voter needs a
// quorum of the voters to have started, and the serving member must have
// been connected, for HealthInterval, to a quorum of the voters the
// cluster will have (the new member counted as unavailable). connected
// says whether the serving member counts the voter with that raft ID as
// connected (itself included).
func (c *Cluster) MayAdd(learner bool, connected func(id uint64) bool) string {
	if !learner {
		started, all := c.StartedVoters(0)
		n := all + 1
		if !(started == 1 && n == 2) && started < n/2+1 {
			return ErrNotEnoughStarted
		}
	}
	voters := c.Voters()
	if len(voters) == 1 {
		return "" // a single member may always grow
	}
	if countConnected(voters, connected) < (len(voters)+1)/2+1 {
		return ErrUnhealthy
	}
	return ""
}

// MayRemove is etcd's strict check before the member with raft ID id is
// removed: the voters left must have a quorum of started members, and,
// unless the member removed is a learner or already disconnected from the
// serving member (gone), the serving member must stay connected to a
// quorum of them.
func (c *Cluster) MayRemove(id uint64, gone bool, connected func(id uint64) bool) string {
	if cm := c.Find(id); cm != nil && cm.Learner {
		return ""
	}
	started, all := c.StartedVoters(id)
	if started < all/2+1 {
		return ErrNotEnoughStarted
	}
	if gone {
		return "" // a member that is down is safe to remove
	}
	voters := c.Voters()
	if countConnected(voters, connected)-1 < 1+(len(voters)-1)/2 {
		return ErrUnhealthy
	}
	return ""
}

// MayPromote is etcd's check at the leader before a learner is promoted:
// the learner is in the leader's progress (found), its log matches
// ReadyPercent of the leader's, and the voters it joins have a started
// quorum.
func (c *Cluster) MayPromote(found bool, learnerMatch, leaderMatch uint64) string {
	started, all := c.StartedVoters(0)
	switch {
	case !found:
		return ErrMemberNotFound
	case float64(learnerMatch)/float64(max(leaderMatch, 1)) < ReadyPercent:
		return ErrLearnerNotReady
	case started+1 < (all+1)/2+1:
		return ErrNotEnoughStarted
	}
	return ""
}

// countConnected counts the members connected says are connected.
func countConnected(members []Member, connected func(id uint64) bool) int {
	n := 0
	for _, cm := range members {
		if connected(cm.ID) {
			n++
		}
	}
	return n
}

// The cluster version the leader sets (etcd keeps major.minor of
// server.ServerVersion) once every member runs it, and the one it sets
// while some member's version cannot be learnt (etcd's
// MinClusterVersion).
const (
	Version    = "3.6.0"
	MinVersion = "3.0.0"
)

// WantVersion is the leader's cluster version monitor's decision
// (monitorClusterVersions): the version to propose, or "" for none. all
// says whether the leader could ask every member. While a downgrade is
// in progress the version is its target (decideClusterVersion); once it
// is cancelled, every member still running Version, the cluster version
// goes back up.
func (c *Cluster) WantVersion(all bool) string {
	switch cur := c.Version; {
	case all && c.Downgrade != "" && cur != "":
		if cur != c.Downgrade {
			return c.Downgrade
		}
		return ""
	case all && cur != Version:
		return Version
	case !all && cur == "":
		return MinVersion
	}
	return ""
}
