package sim

import "fmt"

// countCommit is the test-only hook of Config.CountReplicasCommit: once a
// majority of the voters' logs hold the entry at index i that member m has
// just persisted, the safety checks count it (and, by Log Matching, the
// entries before it) as committed, whatever its term. raft's own commit
// index is unchanged; what changes is what the checks hold it to, so a
// later leader whose log lacks that entry breaks Leader Completeness. That
// is the danger Figure 8 of the Raft paper shows. The count reads the
// members' logs rather than a leader's acknowledgements: in the figure's
// panel (c) the leader of term 4 could not yet have heard that S2 holds
// index 2, because etcd's raft sends that follower its term-4 entry with
// the same message.
func (s *safety) countCommit(m *member, i uint64) {
	e, ok := m.entryAt(i)
	if !ok || i < s.low || (i < end(s, &s.committed) && at(s, &s.committed, i).Term != 0) {
		return
	}
	voters := m.conf.GetVoters()
	held := 0
	for _, id := range voters {
		if o, have := s.w.members[id-1].entryAt(i); have && o.Chain == e.Chain {
			held++
		}
	}
	if 2*held <= len(voters) {
		return
	}
	for j := max(m.snap.Index, 1); j <= i; j++ {
		if c, have := m.entryAt(j); have && !s.noteCommitted(m, c) {
			s.fail("State Machine Safety", fmt.Sprintf(countedDiffersText, s.w.fmtNode(m.id), j, c.Term))
			return
		}
	}
	s.w.fault(m.id, fmt.Sprintf(countsCommittedText, i, e.Term, held, len(voters)))
}
