package sim_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// settledWorld is a five-member cluster that has elected a leader and
// committed a write, with heartbeats in flight and no disk write in
// progress.
func settledWorld(t *testing.T) *sim.World {
	t.Helper()
	cfg := sim.DefaultConfig()
	cfg.DiskLatency = time.Millisecond
	w, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.RunUntil(sim.Time(3 * time.Second)); err != nil {
		t.Fatal(err)
	}
	op, err := w.Do(sim.Command{Kind: sim.CmdPut, Via: "n2", Req: server.Put("k", "v")})
	if err != nil {
		t.Fatal(err)
	}
	for op.Status == sim.OpPending {
		if err := w.StepInstant(); err != nil {
			t.Fatal(err)
		}
	}
	// The answer may come before every member has written the new commit
	// index (a leader applies while it writes): let the writes end.
	for busy := true; busy; {
		busy = false
		for _, in := range w.Infos() {
			busy = busy || in.DiskBusy
		}
		if busy {
			if err := w.StepInstant(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return w
}

func trace(t *testing.T, w *sim.World) string {
	t.Helper()
	var b bytes.Buffer
	if err := w.WriteTrace(&b, "fork"); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestForkKeepsTheHistoryAndGoesOn: a fork's history begins with the
// original's, its members restart from their disks (the leader loses its
// leadership), a new leader is elected, and the original is unchanged.
func TestForkKeepsTheHistoryAndGoesOn(t *testing.T) {
	w := settledWorld(t)
	before := trace(t, w)
	cfg := w.Config()
	cfg.Seed = 7
	f, err := w.Fork(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := trace(t, w); got != before {
		t.Fatal("forking changed the original's history")
	}
	for i := range w.HistoryLen() {
		if a, b := w.EventAt(i), f.EventAt(i); a != b {
			t.Fatalf("event %d: the fork has %+v, the original %+v", i, b, a)
		}
	}
	if f.Now() != w.Now() {
		t.Fatalf("the fork is at %s, the original at %s", f.Now(), w.Now())
	}
	if _, ok := f.Leader(); ok {
		t.Fatal("a member leads in the fork right after every member restarted")
	}
	lead, _ := w.Leader()
	term := info(t, w, lead).Term
	if err := f.Advance(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	name, newTerm, ok := f.FollowedLeader()
	if !ok || newTerm <= term {
		t.Fatalf("after 5s the fork has no leader every member follows in a term after %d (got %q, term %d)", term, name, newTerm)
	}
	if v, _ := f.KVGet(name, "k"); v != "v" {
		t.Errorf("the fork's leader lost the committed write: k=%q", v)
	}
	// The original goes on as if never forked: the same as a run rebuilt
	// from its config and commands.
	if err := w.Advance(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	r, err := sim.Replay(w.Config(), w.Commands(), w.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.RunUntil(w.Now()); err != nil {
		t.Fatal(err)
	}
	if trace(t, r) != trace(t, w) {
		t.Error("forking changed how the original runs on")
	}
}

// TestForkIsDeterministic: the same fork twice runs the same, and another
// seed runs differently.
func TestForkIsDeterministic(t *testing.T) {
	w := settledWorld(t)
	lead, _ := w.Leader()
	run := func(seed uint64) string {
		cfg := w.Config()
		cfg.Seed = seed
		f, err := w.Fork(cfg, lead)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Advance(3 * time.Second); err != nil {
			t.Fatal(err)
		}
		return trace(t, f)
	}
	a, b, c := run(11), run(11), run(12)
	if a != b {
		t.Error("two forks with one seed ran differently")
	}
	if a == c {
		t.Error("forks with seeds 11 and 12 ran the same")
	}
}

// TestForkCrashAndMessagesInFlight: the crashed member is down in the
// fork, the messages in flight at the fork arrive (or are dropped at the
// crashed member) at the times they were due, and the survivors elect a
// leader among themselves.
func TestForkCrashAndMessagesInFlight(t *testing.T) {
	w := settledWorld(t)
	lead, _ := w.Leader()
	inFlight := map[uint64]sim.Time{}
	for _, m := range w.View().InFlight {
		inFlight[m.ID] = m.ArriveAt
	}
	if len(inFlight) == 0 {
		t.Fatal("the test needs messages in flight at the fork")
	}
	cfg := w.Config()
	cfg.ElectionTicks = 20 // restarted with a longer election timeout
	f, err := w.Fork(cfg, lead)
	if err != nil {
		t.Fatal(err)
	}
	if in := info(t, f, lead); in.Up {
		t.Fatalf("%s is up in the fork", lead)
	}
	from := f.HistoryLen()
	if err := f.Advance(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	for i := from; i < f.HistoryLen(); i++ {
		e := f.EventAt(i)
		if at, ok := inFlight[e.Msg.ID]; ok && (e.Kind == sim.EvDeliver || e.Kind == sim.EvDrop) {
			if e.At != at {
				t.Errorf("message %d arrived at %s, due at %s", e.Msg.ID, e.At, at)
			}
			delete(inFlight, e.Msg.ID)
		}
	}
	if len(inFlight) > 0 {
		t.Errorf("%d messages in flight at the fork never arrived", len(inFlight))
	}
	name, _, ok := f.FollowedLeader()
	if !ok || name == lead {
		t.Errorf("the survivors have no leader they all follow (got %q)", name)
	}
	if in := info(t, f, name); in.ElectionTimeout < 20 {
		t.Errorf("the new leader drew a timeout of %d ticks; the fork's config says at least 20", in.ElectionTimeout)
	}
}

func TestForkRefuses(t *testing.T) {
	w := settledWorld(t)
	other := w.Config()
	other.Members = other.Members[:4]
	if _, err := w.Fork(other); err == nil || !strings.Contains(err.Error(), "members") {
		t.Errorf("a fork with other members: %v", err)
	}
	if _, err := w.Fork(w.Config(), "n9"); err == nil {
		t.Error("a fork that crashes a member that does not exist")
	}
	if _, err := w.Do(sim.Command{Kind: sim.CmdPut, Via: "n1", Req: server.Put("k", "w")}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Fork(w.Config()); err == nil || !strings.Contains(err.Error(), "pending") {
		t.Errorf("a fork with a request pending: %v", err)
	}
}

func info(t *testing.T, w *sim.World, name string) sim.MemberInfo {
	t.Helper()
	in, ok := w.Info(name)
	if !ok {
		t.Fatalf("no member %q", name)
	}
	return in
}
