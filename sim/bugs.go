package sim

import (
	"fmt"
	"slices"
	"strings"

	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/i18n"
)

// Bug is a fault injected on purpose into the simulator's own member and
// disk layer (raft itself is never modified). Each one breaks something
// raft relies on, so that the checkers can be seen to catch it: a swarm
// (`raftsim swarm --bug NAME`) finds the violation it causes, and a
// scenario that names it (bugs: [NAME]) replays it, in the window too.
type Bug uint8

// The bugs that can be injected.
const (
	// BugForgetVote: the HardState's term and vote are never written to the
	// disk (the commit index is), so a restarted member has forgotten the
	// term it was in and whom it voted for, and may vote twice in a term.
	BugForgetVote Bug = iota + 1
	// BugApplyUncommitted: a member applies entries to its state machine as
	// soon as they are in its log, before they commit. A leader answers
	// writes that a new leader may then overwrite.
	BugApplyUncommitted
	// BugStaleLocalRead: a linearizable get is answered from the member's
	// own state at once, like a serializable one, without ReadIndex.
	BugStaleLocalRead
	numBugs
)

var bugNames = [...]string{"", "forget-vote", "apply-uncommitted", "stale-local-read"}

var bugSummaries = [...]string{"",
	i18n.N("the HardState's term and vote are not persisted: a restart forgets them"),
	i18n.N("entries are applied before they commit"),
	i18n.N("a linearizable get is served from local state"),
}

func (b Bug) String() string {
	if b > 0 && b < numBugs {
		return bugNames[b]
	}
	return fmt.Sprintf("bug(%d)", uint8(b))
}

// Summary says what the bug breaks, in a line (in English; the i18n
// catalog translates it).
func (b Bug) Summary() string {
	if b > 0 && b < numBugs {
		return bugSummaries[b]
	}
	return ""
}

// AllBugs returns every bug, in order.
func AllBugs() []Bug {
	out := make([]Bug, 0, numBugs-1)
	for b := Bug(1); b < numBugs; b++ {
		out = append(out, b)
	}
	return out
}

// ParseBug reads a bug's name.
func ParseBug(name string) (Bug, error) {
	if i := slices.Index(bugNames[:], name); i > 0 {
		return Bug(i), nil
	}
	return 0, fmt.Errorf("unknown bug %q: want one of %s", name, strings.Join(bugNames[1:], ", "))
}

// bug reports whether the world runs with bug b injected.
func (w *World) bug(b Bug) bool {
	return len(w.cfg.Bugs) > 0 && slices.Contains(w.cfg.Bugs, b)
}

// durableHardState is what the disk keeps of a HardState raft asks to
// persist. With BugForgetVote it keeps the commit index and leaves the
// term and vote as they were.
func (m *member) durableHardState(hs *pb.HardState) *pb.HardState {
	if !m.w.bug(BugForgetVote) {
		return hs
	}
	old, _, _ := m.disk.InitialState()
	return &pb.HardState{Term: new(old.GetTerm()), Vote: new(old.GetVote()), Commit: new(hs.GetCommit())}
}

// applyUncommitted applies, with BugApplyUncommitted, the client requests
// just appended to the log as if they had committed: the entries that
// carry one, from the next to apply on, up to the first that does not (a
// configuration change, a new leader's empty entry, a member's
// publication). So the bug shows where it hurts: a write answered before a
// quorum has it.
func (m *member) applyUncommitted(ents []*pb.Entry) {
	if !m.w.bug(BugApplyUncommitted) || len(ents) == 0 || ents[0].GetIndex() > m.applied+1 {
		return
	}
	n := slices.IndexFunc(ents, func(e *pb.Entry) bool {
		return e.GetType() != pb.EntryNormal || len(e.GetData()) == 0 || isClusterRequest(e.GetData())
	})
	if n < 0 {
		n = len(ents)
	}
	if n > 0 {
		m.apply(ents[:n])
	}
}

// appliedAhead reports whether, with BugApplyUncommitted, m has applied
// entries raft has not yet handed out as committed. A snapshot then waits:
// compacting them away would take entries raft still has to hand out, and
// raft would panic instead of the checkers catching the bug.
func (m *member) appliedAhead() bool {
	return m.w.bug(BugApplyUncommitted) && m.applied > m.hard.GetCommit()
}

// readsLocally reports whether a read is answered from local state at
// once: a serializable one, or any with BugStaleLocalRead.
func (m *member) readsLocally(op *Op) bool {
	return op.Serializable || m.w.bug(BugStaleLocalRead)
}
