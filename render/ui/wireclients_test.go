package ui

import (
	"testing"
	"time"

	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// TestWireClientsAreBoxes: with raftsim serve's hook set, a client
// outside the simulation that has sent a request is a client box named
// after its address, its chip on the member it sent to; an etcdctl long
// gone is not drawn any more, while a client with an open watch stays.
func TestWireClientsAreBoxes(t *testing.T) {
	s := newSandbox(t)
	a := NewAppFor(s, Screen{W: 1280, H: 800, Scale: 1})
	a.External = func(*Session) {}
	must(t, s.Seek(sec(1)))
	ext := func(kind sim.CommandKind, by, via, label string) {
		t.Helper()
		if _, err := s.Absorb(func(w *sim.World) error {
			req := server.Put("/k", "v")
			if kind == sim.CmdWatch {
				req = server.Watch("/k")
			}
			_, err := w.Do(sim.Command{Kind: kind, Via: via, By: by, External: true, Req: req, Label: label})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	ext(sim.CmdPut, "127.0.0.1:51000", "etcd-2", "x1")
	ext(sim.CmdWatch, "127.0.0.1:52000", "etcd-4", "x2")
	must(t, s.Seek(sec(1.2)))
	a.Update()
	boxes := func() map[string]ClientBox {
		out := map[string]ClientBox{}
		for _, c := range BuildFrame(a).Clients {
			out[c.Name] = c
		}
		return out
	}
	b := boxes()
	for name, member := range map[string]string{"127.0.0.1:51000": "etcd-2", "127.0.0.1:52000": "etcd-4"} {
		c, ok := b[name]
		if !ok {
			t.Fatalf("no client box for %s; boxes: %v", name, b)
		}
		if c.Member != member {
			t.Errorf("%s's box points at %s, want %s", name, c.Member, member)
		}
	}
	must(t, s.Seek(sec(1.2)+sim.Time(wireLinger)+sim.Time(time.Second)))
	a.Update()
	b = boxes()
	if _, ok := b["127.0.0.1:51000"]; ok {
		t.Error("a client whose put ended long ago is still drawn")
	}
	if _, ok := b["127.0.0.1:52000"]; !ok {
		t.Error("a client with an open watch is no longer drawn")
	}
}
