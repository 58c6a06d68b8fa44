package server

// maxNoLeaderPolls is etcd's maxNoLeaderCnt: a member cancels its
// require-leader watches only after this many polls in a row, one election
// timeout apart, found no leader.
const maxNoLeaderPolls = 3

// LeaderMonitor is etcd's monitorLeader (api/v3rpc): once per election
// timeout the member polls whether it knows a leader, and after
// maxNoLeaderPolls polls in a row without one, the watches opened with
// require-leader are cancelled with "etcdserver: no leader". The member
// polls it and cancels.
type LeaderMonitor struct {
	polls int // polls in a row that found no leader
}

// Poll takes one poll: whether the member knows a leader. It reports
// whether the require-leader watches are to be cancelled now.
func (lm *LeaderMonitor) Poll(leader bool) (cancel bool) {
	if leader {
		lm.polls = 0
		return false
	}
	lm.polls++
	return lm.polls >= maxNoLeaderPolls
}
