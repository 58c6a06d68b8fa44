package sim

import (
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
)

// pinnedRaft is the raft version whose unexported fields electionElapsed
// reads and setRaftTimer writes (status.go), and whose crypto/rand draw
// entropy.go routes.
const pinnedRaft = "v3.7.0"

// raftField reads an int field of raft's unexported *raft inside rn.
func raftField(t *testing.T, rn *raft.RawNode, name string) int {
	t.Helper()
	r := reflect.ValueOf(rn).Elem().FieldByName("raft")
	if !r.IsValid() || r.Kind() != reflect.Pointer || r.IsNil() {
		t.Fatalf("raft %s: RawNode has no *raft field named raft any more; re-check status.go's electionElapsed", pinnedRaft)
	}
	f := r.Elem().FieldByName(name)
	if !f.IsValid() || f.Kind() != reflect.Int {
		t.Fatalf("raft %s: raft.%s is gone or no longer an int; re-check status.go and entropy.go", pinnedRaft, name)
	}
	return int(f.Int())
}

// TestRaftVersionPinned fails loudly when go.etcd.io/raft/v3 is upgraded:
// the election timer display reads an unexported field by reflection, and
// the determinism of election timeouts rests on how v3.7.0 draws them
// (electionTimeout + crypto/rand.Int(reader, electionTimeout)). Both must
// be checked again on any other version before this pin is moved.
func TestRaftVersionPinned(t *testing.T) {
	// Test binaries carry no module list in their build info, but the
	// compiled code knows its source file, and a module's files live (and
	// are named, even under -trimpath) at module@version.
	file, _ := runtime.FuncForPC(reflect.ValueOf(raft.NewRawNode).Pointer()).FileLine(0)
	if !strings.Contains(file, "go.etcd.io/raft/v3@"+pinnedRaft+"/") {
		t.Fatalf("raft is built from %s, but electionElapsed and setRaftTimer (status.go) and the entropy router (entropy.go) "+
			"were verified against go.etcd.io/raft/v3@%s only: re-verify them, then update pinnedRaft", file, pinnedRaft)
	}
}

// TestElectionTimerReflection checks what the reflection reads against
// what raft does: an isolated follower's electionElapsed grows by one a
// tick, the timeout the sim recorded from its crypto/rand draw is raft's
// randomizedElectionTimeout, and the follower campaigns (as a
// pre-candidate) on exactly the tick at which elapsed reaches it.
func TestElectionTimerReflection(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Members = []string{"n1", "n2", "n3"}
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range w.members {
		got := raftField(t, m.rn, "randomizedElectionTimeout")
		if got != m.timeoutTicks {
			t.Fatalf("%s: drawn timeout %d, raft's randomizedElectionTimeout %d", m.name, m.timeoutTicks, got)
		}
	}
	if err := w.Advance(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	lead, ok := w.Leader()
	if !ok {
		t.Fatal("no leader after 3s")
	}
	var f *member
	for _, m := range w.members {
		if m.name != lead {
			f = m
			break
		}
	}
	if _, err := w.Do(Command{Kind: CmdIsolate, Node: f.name}); err != nil {
		t.Fatal(err)
	}
	// Drive f tick by tick and watch its timer.
	prev, ticks := electionElapsed(f.rn), 0
	for ticks < 3*cfg.ElectionTicks {
		before := f.timeoutTicks
		if got := raftField(t, f.rn, "electionElapsed"); got != electionElapsed(f.rn) {
			t.Fatalf("electionElapsed reads %d, raft has %d", electionElapsed(f.rn), got)
		}
		if got := raftField(t, f.rn, "randomizedElectionTimeout"); got != f.timeoutTicks {
			t.Fatalf("tick %d: drawn timeout %d, raft's randomizedElectionTimeout %d", ticks, f.timeoutTicks, got)
		}
		if f.timeoutTicks < cfg.ElectionTicks || f.timeoutTicks >= 2*cfg.ElectionTicks {
			t.Fatalf("drawn timeout %d outside [%d, %d)", f.timeoutTicks, cfg.ElectionTicks, 2*cfg.ElectionTicks)
		}
		if err := w.Advance(cfg.Tick); err != nil {
			t.Fatal(err)
		}
		ticks++
		now := electionElapsed(f.rn)
		st := f.rn.BasicStatus().RaftState
		switch {
		case prev+1 == before:
			// This tick reached the timeout: raft resets the timer and
			// campaigns (a pre-candidate's term does not change).
			if now != 0 || st != raft.StatePreCandidate {
				t.Fatalf("tick %d reached timeout %d: elapsed %d, state %s; want 0, StatePreCandidate", ticks, before, now, st)
			}
		case now != prev+1:
			t.Fatalf("tick %d: electionElapsed went from %d to %d", ticks, prev, now)
		}
		prev = now
	}
	if UnroutedEntropyReads() != 0 {
		t.Fatalf("%d unrouted entropy reads", UnroutedEntropyReads())
	}
}

// TestVotesReflection pins the reflection read of raft's unexported vote
// tally (view.go): a pre-candidate isolated from everyone has only its own
// vote; once the others can answer, a leader's election had a majority of
// granted votes, seen while it was a candidate.
func TestVotesReflection(t *testing.T) {
	w, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	r := reflect.ValueOf(w.members[0].rn).Elem().FieldByName("raft").Elem().FieldByName("trk").FieldByName("Votes")
	if !r.IsValid() || r.Kind() != reflect.Map {
		t.Fatalf("raft %s: raft.trk.Votes is gone or no longer a map; re-check view.go", pinnedRaft)
	}
	// Step until some member is a candidate or pre-candidate, and check
	// what the view says against raft's own tally.
	seen := 0
	for i := 0; i < 20000 && seen < 3; i++ {
		if err := w.StepInstant(); err != nil {
			t.Fatal(err)
		}
		for _, mv := range w.View().Members {
			if mv.Raft != raft.StateCandidate && mv.Raft != raft.StatePreCandidate {
				continue
			}
			m := w.byName[mv.Name]
			want := votes(m.rn)
			if len(mv.Votes) != len(want) {
				t.Fatalf("%s: the view has %d votes, raft %d", mv.Name, len(mv.Votes), len(want))
			}
			self := false
			for _, v := range mv.Votes {
				if v.Name == mv.Name && v.Granted {
					self = true
				}
				if g := want[w.byName[v.Name].id]; g != v.Granted {
					t.Fatalf("%s: the view says %s granted=%v, raft %v", mv.Name, v.Name, v.Granted, g)
				}
			}
			if !self {
				t.Fatalf("%s is a candidate without its own vote: %+v", mv.Name, mv.Votes)
			}
			seen++
		}
	}
	if seen == 0 {
		t.Fatal("no candidate seen")
	}
}

// isolatedFollower returns a world with a leader and one follower cut off
// from everyone, so that only what a test hands it reaches it.
func isolatedFollower(t *testing.T, rule TimerRule) (*World, *member) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.PreVote, cfg.CheckQuorum = false, false // no lease to ignore a vote request
	cfg.TimerRule = rule
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Advance(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	lead, ok := w.Leader()
	if !ok {
		t.Fatal("no leader after 3s")
	}
	for _, m := range w.members {
		if m.name != lead {
			if _, err := w.Do(Command{Kind: CmdIsolate, Node: m.name}); err != nil {
				t.Fatal(err)
			}
			return w, m
		}
	}
	panic("unreachable")
}

// TestSetRaftTimer pins the reflective write of raft's election timer
// (status.go, used by TimerRuleLogCabin): what it writes is what raft's
// fields hold, and raft acts on it, campaigning on exactly the tick at
// which the written elapsed reaches the written timeout.
func TestSetRaftTimer(t *testing.T) {
	w, f := isolatedFollower(t, TimerRuleRaft)
	et := w.cfg.ElectionTicks
	f.enter()
	setRaftTimer(f.rn, 2*et-4, 2*et-1)
	f.leave()
	if e, to := raftField(t, f.rn, "electionElapsed"), raftField(t, f.rn, "randomizedElectionTimeout"); e != 2*et-4 || to != 2*et-1 {
		t.Fatalf("wrote elapsed %d, timeout %d; raft has %d, %d", 2*et-4, 2*et-1, e, to)
	}
	if e, to := raftTimer(f.rn); e != 2*et-4 || to != 2*et-1 {
		t.Fatalf("raftTimer reads %d, %d", e, to)
	}
	for i := 1; i <= 3; i++ {
		if err := w.Advance(w.cfg.Tick); err != nil {
			t.Fatal(err)
		}
		st := f.rn.BasicStatus().RaftState
		if (i == 3) != (st == raft.StateCandidate) {
			t.Fatalf("tick %d after the write: %s (want a candidate on the third tick only)", i, st)
		}
	}
}

// TestTimerRule: under etcd's raft, a vote request of a higher term that a
// follower rejects restarts its election timer; under TimerRuleLogCabin
// the timer runs on (same elapsed, same timeout) and the follower
// campaigns when it would have; a vote it grants restarts the timer under
// both.
func TestTimerRule(t *testing.T) {
	for _, rule := range []TimerRule{TimerRuleRaft, TimerRuleLogCabin} {
		t.Run(rule.String(), func(t *testing.T) {
			w, f := isolatedFollower(t, rule)
			if err := w.Advance(3 * w.cfg.Tick); err != nil {
				t.Fatal(err)
			}
			elapsed, timeout := raftField(t, f.rn, "electionElapsed"), raftField(t, f.rn, "randomizedElectionTimeout")
			if elapsed < 3 || timeout != f.timeoutTicks {
				t.Fatalf("before: elapsed %d, timeout %d (the sim has %d)", elapsed, timeout, f.timeoutTicks)
			}
			term := f.rn.BasicStatus().GetTerm()
			other := uint64(1 + f.id%uint64(len(w.members))) // any other member
			// A candidate whose log is empty: the follower rejects it.
			f.step(&pb.Message{Type: pb.MsgVote.Enum(), From: new(other), To: new(f.id), Term: new(term + 1),
				LogTerm: new(uint64(0)), Index: new(uint64(0))})
			st := f.rn.BasicStatus()
			if st.GetTerm() != term+1 || st.GetVote() != 0 || st.RaftState != raft.StateFollower {
				t.Fatalf("after the rejected request: term %d vote %d %s; want term %d, no vote, a follower", st.GetTerm(), st.GetVote(), st.RaftState, term+1)
			}
			e, to := raftField(t, f.rn, "electionElapsed"), raftField(t, f.rn, "randomizedElectionTimeout")
			switch rule {
			case TimerRuleRaft:
				if e != 0 {
					t.Fatalf("raft's rule: elapsed %d after the term rose, want 0", e)
				}
			case TimerRuleLogCabin:
				if e != elapsed || to != timeout || f.timeoutTicks != timeout {
					t.Fatalf("logcabin's rule: elapsed %d, timeout %d (sim: %d); want %d, %d as before", e, to, f.timeoutTicks, elapsed, timeout)
				}
				// It campaigns when its timer would have fired anyway.
				for i := elapsed + 1; i <= timeout; i++ {
					if err := w.Advance(w.cfg.Tick); err != nil {
						t.Fatal(err)
					}
					if c := f.rn.BasicStatus().RaftState == raft.StateCandidate; c != (i == timeout) {
						t.Fatalf("elapsed %d of %d: candidate %v", i, timeout, c)
					}
				}
				term = f.rn.BasicStatus().GetTerm()
			}
			// A candidate as up to date as can be: the member grants its vote
			// and its timer restarts, under either rule.
			if err := w.Advance(w.cfg.Tick); err != nil {
				t.Fatal(err)
			}
			f.step(&pb.Message{Type: pb.MsgVote.Enum(), From: new(other), To: new(f.id), Term: new(term + 1),
				LogTerm: new(term + 1), Index: new(uint64(1 << 40))})
			if st := f.rn.BasicStatus(); st.GetVote() != other || raftField(t, f.rn, "electionElapsed") != 0 {
				t.Fatalf("granted: vote %d, elapsed %d; want %d, 0", st.GetVote(), raftField(t, f.rn, "electionElapsed"), other)
			}
		})
	}
}
