package sim

import (
	"fmt"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
)

// TimerRule says what a member's election timer does when a vote request
// of a higher term raises the member's term and the member does not grant
// the vote. It is for experiments only, and no scenario key sets it.
type TimerRule int

const (
	// TimerRuleRaft is etcd's raft as it is: a term rise makes the member
	// a follower, and becomeFollower resets the timer (raft.go v3.7.0:
	// Step calls becomeFollower at line 1129, becomeFollower calls reset
	// at line 893, and reset zeroes electionElapsed and draws a new
	// timeout at lines 788-790). The timer restarts whether or not the
	// vote is granted.
	TimerRuleRaft TimerRule = iota
	// TimerRuleLogCabin is the Raft paper's implementation: a vote
	// request of a higher term makes the member a follower in that term,
	// but its timer runs on unless it grants the vote (LogCabin's
	// handleRequestVote and stepDown, Server/RaftConsensus.cc). The
	// simulator gets it from etcd's raft by putting back the election
	// timer (electionElapsed and randomizedElectionTimeout, read and
	// written by reflection: status.go) after such a Step, when the
	// member was not the leader and did not vote for the candidate.
	TimerRuleLogCabin
)

// String returns the rule's name on the command line.
func (r TimerRule) String() string {
	switch r {
	case TimerRuleRaft:
		return "raft"
	case TimerRuleLogCabin:
		return "logcabin"
	}
	return fmt.Sprintf("TimerRule(%d)", int(r))
}

// ParseTimerRule reads "raft" or "logcabin".
func ParseTimerRule(s string) (TimerRule, error) {
	switch s {
	case "raft", "etcd":
		return TimerRuleRaft, nil
	case "logcabin":
		return TimerRuleLogCabin, nil
	}
	return 0, fmt.Errorf("unknown timer rule %q (want raft or logcabin)", s)
}

// checkTimers says what is wrong with c's election-timer settings.
func (c *Config) checkTimers() error {
	switch c.TimerRule {
	case TimerRuleRaft:
	case TimerRuleLogCabin:
		if !raftTimerWritable() {
			return fmt.Errorf("the logcabin timer rule needs raft's electionElapsed and randomizedElectionTimeout, which this raft version does not have (see TestRaftVersionPinned)")
		}
	default:
		return fmt.Errorf("unknown timer rule %d", int(c.TimerRule))
	}
	if m := c.MaxElectionTicks; m != 0 && (m < c.ElectionTicks || m > 2*c.ElectionTicks) {
		return fmt.Errorf("max election ticks %d outside [%d, %d]: raft's timeout is election ticks plus a draw below election ticks", m, c.ElectionTicks, 2*c.ElectionTicks)
	}
	return nil
}

// keptTimer is a member's election timer put aside while it steps a vote
// request, under TimerRuleLogCabin.
type keptTimer struct {
	keep              bool
	elapsed, timeout  int
	timeoutTicks      int
	candidate, toTerm uint64
}

// keepTimer puts m's election timer aside if msg is a vote request that
// TimerRuleLogCabin concerns: one of a higher term, to a member that does
// not lead. m.rn must be between enter and leave.
func (m *member) keepTimer(msg *pb.Message) keptTimer {
	if m.w.cfg.TimerRule != TimerRuleLogCabin || msg.GetType() != pb.MsgVote {
		return keptTimer{}
	}
	st := m.rn.BasicStatus()
	if msg.GetTerm() <= st.GetTerm() || st.RaftState == raft.StateLeader {
		return keptTimer{}
	}
	elapsed, timeout := raftTimer(m.rn)
	return keptTimer{keep: true, elapsed: elapsed, timeout: timeout, timeoutTicks: m.timeoutTicks,
		candidate: msg.GetFrom(), toTerm: msg.GetTerm()}
}

// restore puts the timer back after the Step, unless the member granted
// the vote (then raft's reset is LogCabin's too: a granted vote restarts
// the timer with a new timeout).
func (k keptTimer) restore(m *member) {
	if !k.keep {
		return
	}
	st := m.rn.BasicStatus()
	if st.GetTerm() != k.toTerm || st.RaftState != raft.StateFollower {
		return // the term did not rise after all (a lease ignored the request)
	}
	if st.GetVote() == k.candidate {
		return
	}
	setRaftTimer(m.rn, k.elapsed, k.timeout)
	m.timeoutTicks = k.timeoutTicks
}
