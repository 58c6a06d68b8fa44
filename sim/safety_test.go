package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/server"
)

// These tests feed the safety checker histories by hand: a fresh world
// (never run; its members have applied the bootstrap entries 1..3), whose
// members' mirrors are written directly, as handleReady would write them. Each invariant gets a broken history it must report
// and a healthy one it must not.

func safetyWorld(t *testing.T) *World {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Members = []string{"n1", "n2", "n3"}
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func ent(index, term uint64, data string) *pb.Entry {
	return &pb.Entry{Index: new(index), Term: new(term), Type: pb.EntryNormal.Enum(), Data: []byte(data)}
}

// persistAs mirrors entries persisted by m while it is in role at term.
func persistAs(m *member, role raft.StateType, term uint64, ents ...*pb.Entry) {
	m.hard = pb.HardState{Term: new(term), Vote: new(uint64(0)), Commit: new(m.hard.GetCommit())}
	m.soft = raft.SoftState{RaftState: role}
	if role == raft.StateLeader && m.leaderTerm != term {
		m.leaderTerm, m.leaderHigh = term, 0
		m.w.safety.leader(m.id, term)
	}
	m.persist(ents, nil)
}

func commitTo(m *member, index uint64) {
	prev := m.hard.GetCommit()
	m.hard.Commit = new(index)
	m.w.safety.commit(m, prev, index)
}

func wantViolation(t *testing.T, w *World, invariant string) {
	t.Helper()
	v := w.Violation()
	if v == nil {
		t.Fatalf("want a %s violation, got none", invariant)
	}
	if v.Invariant != invariant {
		t.Fatalf("want a %s violation, got %v", invariant, v)
	}
	if !strings.Contains(v.Error(), "seed=") {
		t.Errorf("a violation must print the seed: %v", v)
	}
	t.Log(v)
}

func wantNoViolation(t *testing.T, w *World) {
	t.Helper()
	if v := w.Violation(); v != nil {
		t.Fatalf("healthy history reported as broken: %v", v)
	}
}

func TestSafetyElectionSafety(t *testing.T) {
	t.Run("broken", func(t *testing.T) {
		w := safetyWorld(t)
		w.safety.leader(1, 2)
		w.safety.leader(2, 2)
		wantViolation(t, w, "Election Safety")
	})
	t.Run("healthy", func(t *testing.T) {
		w := safetyWorld(t)
		w.safety.leader(1, 2)
		w.safety.leader(1, 2) // the same leader seen again
		w.safety.leader(2, 3) // two leaders, in different terms
		wantNoViolation(t, w)
	})
}

func TestSafetyLeaderAppendOnly(t *testing.T) {
	t.Run("broken", func(t *testing.T) {
		w := safetyWorld(t)
		m := w.members[0]
		persistAs(m, raft.StateLeader, 2, ent(4, 2, ""), ent(5, 2, "a"))
		persistAs(m, raft.StateLeader, 2, ent(5, 2, "b")) // overwrites its own index 5
		wantViolation(t, w, "Leader Append-Only")
	})
	t.Run("healthy", func(t *testing.T) {
		w := safetyWorld(t)
		m := w.members[0]
		persistAs(m, raft.StateLeader, 2, ent(4, 2, ""), ent(5, 2, "a"))
		persistAs(m, raft.StateLeader, 2, ent(6, 2, "b"))
		// As a follower in a later term it may lose its uncommitted tail.
		persistAs(m, raft.StateFollower, 3, ent(5, 3, ""))
		wantNoViolation(t, w)
	})
}

func TestSafetyLogMatching(t *testing.T) {
	t.Run("broken", func(t *testing.T) {
		w := safetyWorld(t)
		n1, n2 := w.members[0], w.members[1]
		persistAs(n1, raft.StateFollower, 4, ent(4, 2, ""), ent(5, 4, "a"))
		// Same index and term at 5, but a different log behind it: the
		// entries at 4 differ in term, so only the chain can tell.
		persistAs(n2, raft.StateFollower, 4, ent(4, 3, ""), ent(5, 4, "a"))
		wantViolation(t, w, "Log Matching")
	})
	t.Run("broken at the entry itself", func(t *testing.T) {
		w := safetyWorld(t)
		n1, n2 := w.members[0], w.members[1]
		persistAs(n1, raft.StateFollower, 2, ent(4, 2, "a"))
		persistAs(n2, raft.StateFollower, 2, ent(4, 2, "b"))
		wantViolation(t, w, "Log Matching")
	})
	t.Run("healthy", func(t *testing.T) {
		w := safetyWorld(t)
		n1, n2, n3 := w.members[0], w.members[1], w.members[2]
		persistAs(n1, raft.StateFollower, 2, ent(4, 2, ""), ent(5, 2, "a"))
		persistAs(n2, raft.StateFollower, 2, ent(4, 2, ""), ent(5, 2, "a"))
		// A different entry at index 5 in another term is fine.
		persistAs(n3, raft.StateFollower, 3, ent(4, 2, ""), ent(5, 3, "z"))
		wantNoViolation(t, w)
	})
}

func TestSafetyLeaderCompleteness(t *testing.T) {
	t.Run("broken", func(t *testing.T) {
		w := safetyWorld(t)
		n1, n2 := w.members[0], w.members[1]
		persistAs(n1, raft.StateLeader, 2, ent(4, 2, ""), ent(5, 2, "a"))
		commitTo(n1, 5)
		// n2 never got index 5 and yet leads term 3.
		persistAs(n2, raft.StateLeader, 3, ent(4, 2, ""), ent(5, 3, ""))
		w.safety.completeness(n2)
		wantViolation(t, w, "Leader Completeness")
	})
	t.Run("healthy", func(t *testing.T) {
		w := safetyWorld(t)
		n1, n2 := w.members[0], w.members[1]
		persistAs(n1, raft.StateLeader, 2, ent(4, 2, ""), ent(5, 2, "a"))
		commitTo(n1, 5)
		persistAs(n2, raft.StateLeader, 3, ent(4, 2, ""), ent(5, 2, "a"), ent(6, 3, ""))
		w.safety.completeness(n2)
		wantNoViolation(t, w)
	})
}

func TestSafetyStateMachineSafety(t *testing.T) {
	t.Run("broken", func(t *testing.T) {
		w := safetyWorld(t)
		n1, n2 := w.members[0], w.members[1]
		// Log Matching cannot see this one: the two entries have different
		// terms. Only the applies disagree.
		persistAs(n1, raft.StateFollower, 2, ent(4, 2, "a"))
		persistAs(n2, raft.StateFollower, 3, ent(4, 3, "b"))
		id1, _ := n1.entryAt(4)
		id2, _ := n2.entryAt(4)
		w.safety.apply(n1, id1)
		w.safety.apply(n2, id2)
		wantViolation(t, w, "State Machine Safety")
	})
	t.Run("broken commit", func(t *testing.T) {
		w := safetyWorld(t)
		n1, n2 := w.members[0], w.members[1]
		persistAs(n1, raft.StateFollower, 2, ent(4, 2, "a"))
		persistAs(n2, raft.StateFollower, 3, ent(4, 3, "b"))
		commitTo(n1, 4)
		commitTo(n2, 4)
		wantViolation(t, w, "State Machine Safety")
	})
	t.Run("healthy", func(t *testing.T) {
		w := safetyWorld(t)
		n1, n2 := w.members[0], w.members[1]
		persistAs(n1, raft.StateFollower, 2, ent(4, 2, "a"))
		persistAs(n2, raft.StateFollower, 2, ent(4, 2, "a"))
		commitTo(n1, 4)
		commitTo(n2, 4)
		id1, _ := n1.entryAt(4)
		id2, _ := n2.entryAt(4)
		w.safety.apply(n1, id1)
		w.safety.apply(n2, id2)
		w.safety.apply(n1, id1) // applied again after a restart
		wantNoViolation(t, w)
	})
}

// TestSafetyViolationStopsTheWorld: once an invariant breaks, the world
// refuses to run or take commands, and says why.
func TestSafetyViolationStopsTheWorld(t *testing.T) {
	w := safetyWorld(t)
	w.safety.leader(1, 2)
	w.safety.leader(2, 2)
	if err := w.Advance(1e9); err == nil || !strings.Contains(err.Error(), "Election Safety") {
		t.Fatalf("Advance after a violation: got %v", err)
	}
	if _, err := w.Do(Command{Kind: CmdCrash, Node: "n1"}); err == nil {
		t.Fatal("Do after a violation must fail")
	}
	if w.Now() != 0 {
		t.Fatalf("the clock moved to %s after a violation", w.Now())
	}
}

// TestSafetyForgetsBelowEveryLog: the safety tables give back what they
// hold of entries no member's log holds any more (a write's 72 bytes grew
// a long run's memory), through crashes and restarts, with no violation
// on the unmodified simulator; and an injected bug is still caught once
// they have.
func TestSafetyForgetsBelowEveryLog(t *testing.T) {
	defer func(b int) { chunkBytes = b }(chunkBytes)
	chunkBytes = 16 << 10
	run := func(bugs []Bug) *World {
		cfg := DefaultConfig()
		cfg.SnapshotEvery = 50
		cfg.Bugs = bugs
		w, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 12000 {
			switch {
			case i%700 == 300:
				_, _ = w.Do(Command{Kind: CmdCrash, Node: fmt.Sprint("n", 1+i/700%5)})
			case i%700 == 500:
				_, _ = w.Do(Command{Kind: CmdRestart, Node: fmt.Sprint("n", 1+i/700%5)})
			default:
				_, _ = w.Do(Command{Kind: CmdPut, Via: fmt.Sprint("n", 1+i%5), Req: server.Put(fmt.Sprint("k", i%10), fmt.Sprint("v", i))})
			}
			if err := w.Advance(5 * time.Millisecond); err != nil {
				break // a violation stops the world
			}
		}
		return w
	}
	w := run(nil)
	if v := w.Violation(); v != nil {
		t.Fatal(v)
	}
	s := w.safety
	last := end(s, &s.committed)
	if s.low < 1000 || s.committed.n > int(last-s.low)*2+4096 || s.applied.n > s.committed.n || s.chains.n > s.committed.n+100 || s.commitIn.n > s.committed.n {
		t.Fatalf("the tables hold from index %d to %d: %d, %d, %d and %d items, want about %d",
			s.low, last, s.committed.n, s.applied.n, s.chains.n, s.commitIn.n, last-s.low)
	}
	t.Logf("tables from index %d to %d hold %d items", s.low, last, s.committed.n)
	if w := run([]Bug{BugApplyUncommitted}); w.Violation() == nil || w.safety.low == 0 {
		t.Fatalf("with a member applying what is not committed: violation %v, tables from %d", w.Violation(), w.safety.low)
	}
}
