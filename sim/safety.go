package sim

import (
	"fmt"
	"math"
)

// Invariants are the names of what the world checks, as
// Violation.Invariant gives them: the five invariants of the Raft paper's
// Figure 3, and raft's own assertions (RaftAssertion).
var Invariants = []string{"Election Safety", "Leader Append-Only", "Log Matching", "Leader Completeness", "State Machine Safety", RaftAssertion}

// Violation is a broken safety invariant (Raft paper, Figure 3). It stops
// the world.
type Violation struct {
	Invariant string // "Election Safety", "Leader Append-Only", ...
	Detail    string
	At        Time
	Seed      uint64
}

func (v *Violation) Error() string {
	return fmt.Sprintf("safety violation: %s: %s (at %s, seed=%d; reproduce with --seed %d)",
		v.Invariant, v.Detail, v.At, v.Seed, v.Seed)
}

// safety checks the five invariants of Figure 3 incrementally, at the point
// where each could first break: a leader taking office, an entry persisted,
// an entry committed, an entry applied. That is the same as checking them
// after every event, at a cost that does not grow with the history.
type safety struct {
	w         *World
	violation *Violation
	// root is the first group's, which holds the world's violation: a
	// violation in any group stops the world (groups.go).
	root *safety
	g    int // its group's index in World.groups

	leaders   map[uint64]uint64      // term → the member that led it (Election Safety)
	chains    chunked[termChain]     // index → the first term and log hash persisted at it (Log Matching)
	more      map[uint64][]termChain // index → the other terms persisted at it, which are rare
	committed chunked[entryID]       // index → the entry committed there (Leader Completeness)
	commitIn  chunked[uint64]        // index → the term in which it was first known committed
	applied   chunked[entryID]       // index → the entry applied there (State Machine Safety)
	// low is the first index the tables still hold, and base the index
	// of their item 0 (see forgetBelow).
	low, base uint64
}

// at returns the item of tab for index i (at or above base).
func at[T any](s *safety, tab *chunked[T], i uint64) *T { return tab.at(int(i - s.base)) }

// end returns the index after the last that tab holds.
func end[T any](s *safety, tab *chunked[T]) uint64 { return s.base + uint64(tab.n) }

// grow makes tab hold index i.
func grow[T any](s *safety, tab *chunked[T], i uint64) {
	for end(s, tab) <= i {
		tab.add()
	}
}

type termChain struct{ term, chain uint64 }

func newSafety(w *World) *safety {
	return &safety{w: w, leaders: map[uint64]uint64{}, more: map[uint64][]termChain{}}
}

func (s *safety) fail(invariant, detail string) {
	if s.root != nil {
		s.root.fail(invariant, detail)
		return
	}
	if s.violation != nil {
		return
	}
	s.violation = &Violation{Invariant: invariant, Detail: detail, At: s.w.now, Seed: s.w.cfg.Seed}
	s.w.record(Event{Kind: EvViolation, Text: invariant + ": " + detail})
}

// leader: at most one leader per term.
func (s *safety) leader(id, term uint64) {
	if prev, ok := s.leaders[term]; ok && prev != id {
		s.fail("Election Safety", fmt.Sprintf(bothLeadText, s.w.fmtNode(prev), s.w.fmtNode(id), term))
		return
	}
	s.leaders[term] = id
}

// logMatching: two logs with an entry of the same index and term are
// identical up to it. Each persisted entry carries a hash of its whole log
// prefix, so it is enough that one (index, term) never has two hashes.
func (s *safety) logMatching(m *member, index, term, chain uint64) {
	if index < s.low {
		return // no log can hold it (forgetBelow)
	}
	if tc, ok := s.chainAt(index, term); ok {
		if tc.chain != chain {
			s.fail("Log Matching", fmt.Sprintf(logDiffersText,
				s.w.fmtNode(m.id), index, term))
		}
		return
	}
	grow(s, &s.chains, index)
	if tc := at(s, &s.chains, index); tc.term == 0 {
		*tc = termChain{term, chain}
	} else {
		s.more[index] = append(s.more[index], termChain{term, chain})
	}
}

// chainAt returns the log hash persisted at (index, term), if any.
func (s *safety) chainAt(index, term uint64) (termChain, bool) {
	if index < s.low || index >= end(s, &s.chains) || at(s, &s.chains, index).term == 0 {
		return termChain{}, false
	}
	if tc := *at(s, &s.chains, index); tc.term == term {
		return tc, true
	}
	for _, tc := range s.more[index] {
		if tc.term == term {
			return tc, true
		}
	}
	return termChain{}, false
}

// snapshotID returns the identity of the entry a snapshot ends at, so that
// a log continuing from a snapshot chains on from the same hash.
func (s *safety) snapshotID(index, term uint64) entryID {
	if tc, ok := s.chainAt(index, term); ok {
		return entryID{Index: index, Term: term, Chain: tc.chain}
	}
	return entryID{Index: index, Term: term, Chain: chain(0, term, 0, []byte(itoa(index)))}
}

// commit records the entries m's commit index just moved over.
func (s *safety) commit(m *member, prev, commit uint64) {
	for i := prev + 1; i <= commit; i++ {
		e, ok := m.entryAt(i)
		if !ok {
			continue
		}
		if !s.noteCommitted(m, e) {
			s.fail("State Machine Safety", fmt.Sprintf(commitDiffersText,
				s.w.fmtNode(m.id), i, e.Term, at(s, &s.committed, i).Term))
			return
		}
	}
}

// apply: no two members apply different entries at one index.
func (s *safety) apply(m *member, e entryID) {
	if !s.agree(&s.applied, e) {
		s.fail("State Machine Safety", fmt.Sprintf(applyDiffersText,
			s.w.fmtNode(m.id), e.Index, e.Term, at(s, &s.applied, e.Index).Term))
		return
	}
	// An entry is applied only once it is committed: that is what makes
	// the first check above hold. So one applied above the commit index
	// its member has learnt is caught here, the moment it happens.
	if known := max(m.commitSeen, m.hard.GetCommit()); e.Index > known {
		s.fail("State Machine Safety", fmt.Sprintf(appliedUncommittedText, s.w.fmtNode(m.id), e.Index, e.Term, known))
		return
	}
	if !s.noteCommitted(m, e) {
		s.fail("State Machine Safety", fmt.Sprintf(applyNotCommittedText, s.w.fmtNode(m.id), e.Index))
	}
}

// noteCommitted records that m knows e committed, in the term m is in now
// (raft's own term: a commit index may be known before its HardState is
// written), or reports whether e matches the entry recorded there.
func (s *safety) noteCommitted(m *member, e entryID) bool {
	if e.Index < s.low {
		return true
	}
	fresh := e.Index >= end(s, &s.committed) || at(s, &s.committed, e.Index).Term == 0
	if !s.agree(&s.committed, e) {
		return false
	}
	if fresh {
		term := m.hard.GetTerm()
		if m.rn != nil {
			term = max(term, m.status().term)
		}
		grow(s, &s.commitIn, e.Index)
		*at(s, &s.commitIn, e.Index) = term
	}
	return true
}

// agree records e in tab, or reports whether it matches what is there.
func (s *safety) agree(tab *chunked[entryID], e entryID) bool {
	if e.Index < s.low {
		return true
	}
	grow(s, tab, e.Index)
	t := at(s, tab, e.Index)
	if t.Term == 0 {
		*t = e
		return true
	}
	return t.Chain == e.Chain
}

// completeness: a leader's log holds every entry committed in a term
// before its own (Figure 3: "committed in a given term ... present in the
// logs of the leaders for all higher-numbered terms"). It is checked once
// the Ready that made m leader is durable.
// NB: what counts is the term in which an entry was committed, not the
// term it was written in. A leader of term 3 elected with votes granted
// before an entry of term 2 was committed in term 4 need not hold it, and
// may take office late: a member stalled with its votes in its queue does
// (found by raftsim swarm, seed 5882).
func (s *safety) completeness(m *member) {
	for i := max(m.snap.Index+1, s.low); i < end(s, &s.committed); i++ {
		c := *at(s, &s.committed, i)
		if c.Term == 0 || i >= end(s, &s.commitIn) || *at(s, &s.commitIn, i) >= m.leaderTerm {
			continue
		}
		e, ok := m.entryAt(i)
		if !ok || e.Chain != c.Chain {
			s.fail("Leader Completeness", fmt.Sprintf(leaderLacksText,
				s.w.fmtNode(m.id), m.leaderTerm, i, c.Term, *at(s, &s.commitIn, i)))
			return
		}
	}
}

// forgetBelow gives back what the tables hold of the entries before the
// first that any member's log still holds: no member can persist, commit
// or apply one of those again one by one (a member behind gets a
// snapshot), so they can break nothing. Once those are most of what the
// tables hold, the rest moves to new chunks, so that the tables hold about
// what the logs do. Without it a long run's tables grew by 72 bytes a
// write. A member removed from the cluster does not count; one that is
// down does (its log is on its disk).
func (s *safety) forgetBelow() {
	low := uint64(math.MaxUint64)
	for _, m := range s.w.members {
		if !m.removed && m.group == s.g {
			low = min(low, m.log.first-1) // the snapshot's index is kept: snapshotID reads it
		}
	}
	if low == math.MaxUint64 || low <= s.low {
		return
	}
	s.low = low
	for i := range s.more {
		if i < low {
			delete(s.more, i)
		}
	}
	if held := end(s, &s.committed) - s.base; low-s.base < 4096 || 2*(low-s.base) < held {
		return
	}
	for _, tab := range []*chunked[entryID]{&s.committed, &s.applied} {
		keepFrom(s, tab, low)
	}
	keepFrom(s, &s.chains, low)
	keepFrom(s, &s.commitIn, low)
	s.base = low
}

// keepFrom keeps what tab holds from index low on (but for s.base, which
// the caller moves).
func keepFrom[T any](s *safety, tab *chunked[T], low uint64) {
	if i := int(low - s.base); i < tab.n {
		tab.keepFrom(i)
	} else {
		tab.keepFrom(tab.n)
	}
}
