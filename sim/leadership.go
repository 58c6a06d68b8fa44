package sim

import "go.etcd.io/raft/v3"

// FollowedLeader returns the member that every up member follows, with its
// term: the leader that all of them have heard from. It reads what the
// members have persisted and recorded, so it costs no more than a look at
// each member.
func (w *World) FollowedLeader() (name string, term uint64, ok bool) {
	var lead *member
	for _, m := range w.members {
		if m.up && !m.removed && m.soft.RaftState == raft.StateLeader {
			lead = m
			break
		}
	}
	if lead == nil {
		return "", 0, false
	}
	term = lead.hard.GetTerm()
	for _, m := range w.members {
		if m.up && !m.removed && (m.soft.Lead != lead.id || m.hard.GetTerm() != term) {
			return "", 0, false
		}
	}
	return lead.name, term, true
}
