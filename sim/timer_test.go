package sim

import (
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.etcd.io/raft/v3"
)

// pinnedRaft is the raft version whose unexported fields electionElapsed
// reads, and whose crypto/rand draw entropy.go routes.
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
		t.Fatalf("raft is built from %s, but electionElapsed (status.go) and the entropy router (entropy.go) "+
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
