package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/server"
)

// TestForgetHistory: a world that gives back its history as it goes reads
// back every event it kept exactly as a world that keeps everything, and
// gives back events, messages, bodies and texts. Messages in flight, even
// queued at a stalled member, arrive with their words intact.
func TestForgetHistory(t *testing.T) {
	defer func(b int) { chunkBytes = b }(chunkBytes)
	chunkBytes = 16 << 10
	cfg := DefaultConfig()
	cfg.Network.Duplicate = netmodel.Ratio{Num: 1, Den: 20}
	cfg.Network.Loss = netmodel.Ratio{Num: 1, Den: 50}
	slow := netmodel.Latency{Min: time.Second, Max: 3 * time.Second}
	cfg.Links = []LinkOverride{{From: "n1", To: "n3", Latency: &slow}} // messages long in flight
	keep, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	forget, _ := New(cfg)
	step := func(w *World, i int) {
		switch {
		case i%500 == 250:
			_, _ = w.Do(Command{Kind: CmdStall, Node: "n2", For: 5 * time.Second})
		case i%3 == 0:
			_, _ = w.Do(Command{Kind: CmdPut, Via: fmt.Sprint("n", 1+i%5), Req: server.Put(fmt.Sprint("k", i%7), fmt.Sprint("v", i))})
		case i%3 == 1:
			_, _ = w.Do(Command{Kind: CmdGet, Via: fmt.Sprint("n", 1+i%5), Req: server.Get(fmt.Sprint("k", i%7), i%2 == 0)})
		case i%50 == 1:
			_, _ = w.Do(Command{Kind: CmdCaption, Caption: "say", Text: fmt.Sprint("caption ", i)})
		}
		if err := w.Advance(20 * time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	checked := 0
	for i := range 3000 {
		step(keep, i)
		step(forget, i)
		switch {
		case i%37 == 0:
			forget.ForgetHistory(forget.HistoryLen()) // all that it can
		case i%11 == 0:
			forget.ForgetHistory(forget.HistoryLen() - i%600)
		}
		if keep.HistoryLen() != forget.HistoryLen() {
			t.Fatalf("step %d: %d events against %d", i, forget.HistoryLen(), keep.HistoryLen())
		}
		for j := max(forget.HistoryStart(), checked); j < forget.HistoryLen(); j++ {
			if a, b := keep.EventAt(j), forget.EventAt(j); a != b {
				t.Fatalf("event %d: kept %+v, after forgetting %+v", j, a, b)
			}
		}
		checked = forget.HistoryLen()
	}
	h := &forget.history
	t.Logf("%d events, first kept %d; chunks given back: events %d of %d, msgs %d of %d, bodies %d of %d; texts from %d",
		h.n, h.first, h.events.dropped, len(h.events.chunks), h.msgs.dropped, len(h.msgs.chunks), h.bodies.dropped, len(h.bodies.chunks), h.textBase)
	if h.first == 0 || h.events.dropped == 0 || h.msgs.dropped == 0 || h.bodies.dropped == 0 || h.textBase == 0 {
		t.Fatal("nothing was given back")
	}
	// The operations no event kept refers to were given back, checked as
	// the run went, and the check says the same of both.
	given := 0
	for _, op := range forget.Ops() {
		if op == nil {
			given++
		}
	}
	if given == 0 || forget.groups[0].check == nil {
		t.Fatal("no operation was given back to the check")
	}
	a, b := keep.CheckLinearizability(), forget.CheckLinearizability()
	if a.Result != b.Result || a.Checked != b.Checked || a.Skipped != b.Skipped {
		t.Fatalf("the check of a world that keeps everything: %+v; of one that forgets: %+v", a, b)
	}
	t.Logf("%d operations given back; check: %s, %d checked", given, b.Result, b.Checked)
	// Reading back events of a forked world works the same (a fork needs
	// every request answered).
	if err := forget.Advance(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	f, err := forget.Fork(forget.Config())
	if err != nil {
		t.Fatal(err)
	}
	for j := forget.HistoryStart(); j < forget.HistoryLen(); j++ {
		if a, b := forget.EventAt(j), f.EventAt(j); a != b {
			t.Fatalf("fork: event %d: %+v against %+v", j, b, a)
		}
	}
}

// TestForgetHistoryCheckFindsViolations: a run that forgets its history
// and checks it as it goes finds what a run that keeps it finds, with
// writes that time out through an isolated member, with (even seeds) and
// without a bug that serves linearizable reads from a member's own state.
func TestForgetHistoryCheckFindsViolations(t *testing.T) {
	counts := map[string]int{}
	for seed := uint64(1); seed <= 12; seed++ {
		cfg := DefaultConfig()
		cfg.Seed = seed
		if seed%2 == 0 {
			cfg.Bugs = []Bug{BugStaleLocalRead}
		}
		keep, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		forget, _ := New(cfg)
		for i := range 1500 {
			for _, w := range []*World{keep, forget} {
				switch {
				case i%400 == 100:
					_, _ = w.Do(Command{Kind: CmdIsolate, Node: fmt.Sprint("n", 1+i%5)})
				case i%400 == 300:
					_, _ = w.Do(Command{Kind: CmdHeal})
				case i%2 == 0:
					_, _ = w.Do(Command{Kind: CmdPut, Via: fmt.Sprint("n", 1+i%5), Req: server.Put(fmt.Sprint("k", i%4), fmt.Sprint("v", i))})
				default:
					_, _ = w.Do(Command{Kind: CmdGet, Via: fmt.Sprint("n", 1+(i/2)%5), Req: server.Get(fmt.Sprint("k", (i/2)%4), false)})
				}
				if err := w.Advance(10 * time.Millisecond); err != nil {
					t.Fatal(err)
				}
			}
			if i%50 == 0 {
				forget.ForgetHistory(forget.HistoryLen())
			}
		}
		a, b := keep.CheckLinearizability(), forget.CheckLinearizability()
		if a.Result != b.Result || a.Checked != b.Checked || a.Skipped != b.Skipped {
			t.Fatalf("seed %d: the check of a world that keeps everything: %s (%d checked, %d skipped); of one that forgets: %s (%d, %d): %s",
				seed, a.Result, a.Checked, a.Skipped, b.Result, b.Checked, b.Skipped, b.Detail)
		}
		counts[a.Result]++
	}
	t.Logf("%v", counts)
	if counts["linearizable"] == 0 || counts["NOT linearizable"] == 0 {
		t.Fatalf("want both answers among the seeds: %v", counts)
	}
}
