package sim

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/server"
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
	// BugAckBeforePersist: every member sends its messages before its
	// disk write, as only a leader may: a follower acknowledges entries
	// that a crash during the write then loses.
	BugAckBeforePersist
	// BugLoseUnsynced: the disk loses the last write it completed when its
	// member crashes, entries and HardState alike, as a disk that acks
	// writes still in its volatile cache.
	BugLoseUnsynced
	// BugApplyUncommitted: a member applies entries to its state machine as
	// soon as they are in its log, before they commit. A leader answers
	// writes that a new leader may then overwrite.
	BugApplyUncommitted
	// BugStaleLocalRead: a linearizable get is answered from the member's
	// own state at once, like a serializable one, without ReadIndex.
	BugStaleLocalRead
	numBugs
)

var bugNames = [...]string{"", "forget-vote", "ack-before-persist", "lose-unsynced", "apply-uncommitted", "stale-local-read"}

var bugSummaries = [...]string{"",
	i18n.N("the HardState's term and vote are not persisted: a restart forgets them"),
	i18n.N("messages are sent before the entries are durable, and a crash loses them"),
	i18n.N("the disk drops its last write on a crash"),
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

// bugHooks is where a member's injected bugs act: each hook does nothing
// unless its bug is on. It keeps what BugLoseUnsynced needs: the write it
// may undo.
type bugHooks struct {
	m        *member
	unsynced *diskWrite // the last write, which BugLoseUnsynced may undo
}

// durableHardState is what the disk keeps of a HardState raft asks to
// persist. With BugForgetVote it keeps the commit index and leaves the
// term and vote as they were.
func (b *bugHooks) durableHardState(hs *pb.HardState) *pb.HardState {
	m := b.m
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
func (b *bugHooks) applyUncommitted(ents []*pb.Entry) {
	m := b.m
	if !m.w.bug(BugApplyUncommitted) || len(ents) == 0 || ents[0].GetIndex() > m.applied+1 {
		return
	}
	n := slices.IndexFunc(ents, func(e *pb.Entry) bool {
		return e.GetType() != pb.EntryNormal || len(e.GetData()) == 0 || server.IsClusterEntry(e.GetData())
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
func (b *bugHooks) appliedAhead() bool {
	m := b.m
	return m.w.bug(BugApplyUncommitted) && m.applied > m.hard.GetCommit()
}

// ackBeforePersist sends, with BugAckBeforePersist, a follower's (or a
// candidate's) messages before its disk write, as only a leader may: its
// acknowledgements and votes go out for entries and a HardState that a
// crash during the write then loses.
func (b *bugHooks) ackBeforePersist(rd *raft.Ready) {
	m := b.m
	if !m.w.bug(BugAckBeforePersist) {
		return
	}
	for _, msg := range rd.Messages {
		m.w.send(m, msg)
	}
	rd.Messages = nil
}

// diskWrite is what the disk had before its last write, so that
// BugLoseUnsynced can undo that write at a crash.
type diskWrite struct {
	hard        pb.HardState
	last        uint64      // the last index before the write
	overwritten []*pb.Entry // the entries the write replaced
	first       uint64      // the first index the write touched (0: no entries)
}

// noteWrite remembers, with BugLoseUnsynced, what the write of rd is
// about to change; the write before it counts as synced. A write that
// installs a snapshot is synced at once (it is rare, and undoing it would
// also undo the state machine).
func (b *bugHooks) noteWrite(rd *raft.Ready) {
	m := b.m
	if !m.w.bug(BugLoseUnsynced) {
		return
	}
	b.unsynced = nil
	if !raft.IsEmptySnap(rd.Snapshot) || len(rd.Entries) == 0 && rd.HardState == nil {
		return
	}
	hs, _, _ := m.disk.InitialState()
	u := &diskWrite{hard: pb.HardState{Term: new(hs.GetTerm()), Vote: new(hs.GetVote()), Commit: new(hs.GetCommit())}, last: m.lastIndex()}
	if len(rd.Entries) > 0 {
		u.first = rd.Entries[0].GetIndex()
		if u.first <= u.last {
			old, err := m.disk.Entries(u.first, u.last+1, math.MaxUint64)
			if err != nil {
				panic("sim: lose-unsynced: " + err.Error())
			}
			u.overwritten = old
		}
	}
	b.unsynced = u
}

// loseUnsynced undoes, with BugLoseUnsynced, the last write the member's
// disk completed: its entries go (the ones they replaced come back) and
// its HardState is the one before, and so does the mirror of the log the
// safety checks read. A snapshot taken since the write covers it: then
// nothing is lost.
func (b *bugHooks) loseUnsynced() {
	m := b.m
	u := b.unsynced
	b.unsynced = nil
	if u == nil || !m.w.bug(BugLoseUnsynced) {
		return
	}
	snap, err := m.disk.Snapshot()
	if err != nil {
		panic("sim: lose-unsynced: " + err.Error())
	}
	si := snap.GetMetadata().GetIndex()
	keep := u.last // the last index the disk keeps
	if u.first != 0 {
		keep = min(u.last, u.first-1)
	}
	if si > keep || keep+1 < m.log.first {
		return
	}
	first, _ := m.disk.FirstIndex()
	switch {
	case len(u.overwritten) > 0:
		// Appending the replaced entries again drops what came after.
		err = m.disk.Append(u.overwritten)
	case u.first != 0 && keep >= first:
		var ents []*pb.Entry
		if ents, err = m.disk.Entries(keep, keep+1, math.MaxUint64); err == nil {
			err = m.disk.Append(ents) // the same entry again: what came after it goes
		}
	case u.first != 0:
		// The disk holds no entry up to keep: only the snapshot stays.
		disk := raft.NewMemoryStorage()
		err = disk.ApplySnapshot(snap)
		m.disk = disk
	}
	if err != nil {
		panic("sim: lose-unsynced: " + err.Error())
	}
	// raft refuses a commit index below the snapshot's, which is durable.
	hard := pb.HardState{Term: new(u.hard.GetTerm()), Vote: new(u.hard.GetVote()), Commit: new(max(u.hard.GetCommit(), si))}
	if err := m.disk.SetHardState(&hard); err != nil {
		panic("sim: lose-unsynced: " + err.Error())
	}
	m.log.truncate(keep + 1)
	for _, e := range u.overwritten {
		prev, _ := m.entryAt(e.GetIndex() - 1)
		m.log.append(logEntry{Term: e.GetTerm(), Chain: chain(prev.Chain, e.GetTerm(), e.GetType(), e.GetData()), Type: e.GetType()})
	}
	m.w.record(Event{Kind: EvFault, Node: m.id, Index: m.lastIndex(), Term: hard.GetTerm(),
		Text: loseUnsyncedText})
}
