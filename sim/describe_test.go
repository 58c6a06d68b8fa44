package sim_test

import (
	"testing"
	"time"

	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// TestDescribeIsStable checks that an event's transcript line does not
// depend on when it is described: a live transcript (each event described
// as it happens) and one written after the run must be the same.
func TestDescribeIsStable(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Members = []string{"n1", "n2", "n3"}
	cfg.Clients = []sim.ClientConfig{{Name: "ext", Endpoints: []string{"n1", "n2", "n3"}, Timeout: 3 * time.Second}}
	w, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var live []string
	describeNew := func() {
		for i := len(live); i < w.HistoryLen(); i++ {
			live = append(live, w.Describe(w.EventAt(i)))
		}
	}
	steps := []struct {
		at time.Duration
		c  sim.Command
	}{
		{2 * time.Second, sim.Command{Kind: sim.CmdCrash, Node: "n1"}},
		{2 * time.Second, sim.Command{Kind: sim.CmdPut, Via: "ext", Req: server.Put("k", "v")}},
		{2 * time.Second, sim.Command{Kind: sim.CmdWatch, Via: "n2", Req: server.Watch("k"), RequireLeader: true}},
		{3 * time.Second, sim.Command{Kind: sim.CmdIsolate, Node: "n2"}},
		{3 * time.Second, sim.Command{Kind: sim.CmdGet, Via: "n2", Req: server.Get("k", false)}},
	}
	for _, s := range steps {
		for w.Now() < sim.Time(s.at) {
			next, ok := w.NextEventAt()
			if !ok || next > sim.Time(s.at) {
				next = sim.Time(s.at)
			}
			if err := w.RunUntil(next); err != nil {
				t.Fatal(err)
			}
			describeNew()
		}
		if _, err := w.Do(s.c); err != nil {
			t.Fatal(err)
		}
		describeNew()
	}
	for w.Now() < sim.Time(10*time.Second) {
		if err := w.StepInstant(); err != nil {
			t.Fatal(err)
		}
		describeNew()
	}
	for i, e := range w.History() {
		if got := w.Describe(e); got != live[i] {
			t.Errorf("event %d described differently after the run:\nlive:  %s\nafter: %s", i, live[i], got)
		}
	}
}
