package ui

import (
	"fmt"
	"testing"

	"github.com/raftsim/raftsim/sim"
)

var sizes = []struct {
	w, h  int
	scale float64
}{{1280, 800, 1}, {1920, 1080, 1}, {1920, 1080, 1.5}, {1366, 768, 1}}

func TestLayoutPanelsDoNotOverlap(t *testing.T) {
	for _, sz := range sizes {
		l := ComputeLayout(sz.w, sz.h, sz.scale)
		screen := Rect{0, 0, float64(sz.w), float64(sz.h)}
		named := l.Named()
		for a, ra := range named {
			if ra.W <= 0 || ra.H <= 0 {
				t.Errorf("%dx%d@%g: %s is empty: %+v", sz.w, sz.h, sz.scale, a, ra)
			}
			if !ra.Inside(screen) {
				t.Errorf("%dx%d@%g: %s %+v is off screen", sz.w, sz.h, sz.scale, a, ra)
			}
			for b, rb := range named {
				if a < b && ra.Overlaps(rb) {
					t.Errorf("%dx%d@%g: %s %+v overlaps %s %+v", sz.w, sz.h, sz.scale, a, ra, b, rb)
				}
			}
		}
		for i, b := range l.Buttons {
			if !b.Rect.Inside(l.Toolbar) {
				t.Errorf("%dx%d@%g: button %q %+v is outside the toolbar", sz.w, sz.h, sz.scale, b.Label, b.Rect)
			}
			for _, c := range l.Buttons[i+1:] {
				if b.Rect.Overlaps(c.Rect) {
					t.Errorf("%dx%d@%g: buttons %q and %q overlap", sz.w, sz.h, sz.scale, b.Label, c.Label)
				}
			}
		}
	}
}

// The members, their labels and their client boxes stay inside the ring
// panel and clear of one another, for the sizes of cluster people build.
func TestRingDoesNotOverlap(t *testing.T) {
	for _, sz := range sizes[:2] {
		for n := 3; n <= 7; n++ {
			cfg := sim.SandboxConfig()
			cfg.Members = nil
			cfg.Clients, cfg.Apiservers = nil, 0
			for i := range n {
				cfg.Members = append(cfg.Members, fmt.Sprintf("etcd-%d", i+1))
			}
			s, err := NewSession(cfg)
			if err != nil {
				t.Fatal(err)
			}
			a := NewApp(s, sz.w, sz.h, sz.scale)
			f := BuildFrame(a)
			where := fmt.Sprintf("%dx%d, %d members", sz.w, sz.h, n)
			var boxes []Rect
			var names []string
			for i, p := range f.Ring.Pos {
				r := f.Ring.NodeR + 7 // with its timer arc
				boxes = append(boxes, Rect{p.X - r, p.Y - r, 2 * r, 2 * r}, f.Labels[i])
				names = append(names, fmt.Sprintf("member %d", i), fmt.Sprintf("label %d", i))
			}
			for _, c := range f.Clients {
				boxes = append(boxes, c.R)
				names = append(names, c.Name)
			}
			if len(f.Clients) != n {
				t.Errorf("%s: %d client boxes, want %d", where, len(f.Clients), n)
			}
			for i, b := range boxes {
				if !b.Inside(a.L.Ring) {
					t.Errorf("%s: %s %+v is outside the ring panel %+v", where, names[i], b, a.L.Ring)
				}
				for j := i + 1; j < len(boxes); j++ {
					if b.Overlaps(boxes[j]) {
						t.Errorf("%s: %s %+v overlaps %s %+v", where, names[i], b, names[j], boxes[j])
					}
				}
			}
		}
	}
}

func TestRingLayoutStartsAtTheTopClockwise(t *testing.T) {
	g := RingLayout(4, Rect{0, 0, 400, 400}, 1)
	top, right := g.Pos[0], g.Pos[1]
	if !(top.Y < g.Center.Y && abs(top.X-g.Center.X) < 1e-9) {
		t.Errorf("member 0 at %+v, want straight above the centre %+v", top, g.Center)
	}
	if !(right.X > g.Center.X && abs(right.Y-g.Center.Y) < 1e-9) {
		t.Errorf("member 1 at %+v, want to the right of the centre (clockwise)", right)
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// With a topology, every machine is a box around what runs on it: for
// stacked, a member and its apiserver; for external, the members alone and
// the apiservers in their own boxes along the bottom with their endpoints.
// The boxes stay inside the ring panel and clear of one another. What runs on a host is inside it.
func TestHostsDoNotOverlap(t *testing.T) {
	for _, sz := range sizes {
		for _, topo := range []string{"stacked", "external"} {
			for n := 3; n <= 7; n++ {
				cfg := sim.SandboxConfig()
				cfg.Members = nil
				cfg.Topology, cfg.Apiservers = topo, 0
				for i := range n {
					cfg.Members = append(cfg.Members, fmt.Sprintf("etcd-%d", i+1))
				}
				s, err := NewSession(cfg)
				if err != nil {
					t.Fatal(err)
				}
				for _, box := range []bool{false, true} {
					// NB: the open command box leaves room for five
					// members, and scale 1.5 (a projector) for five.
					if (box || sz.scale > 1) && n > 5 || box && sz.scale > 1 {
						continue
					}
					a := NewApp(s, sz.w, sz.h, sz.scale)
					if box {
						a.OpenBox()
					}
					f := BuildFrame(a)
					where := fmt.Sprintf("%dx%d@%g, %s, %d members, box open %v", sz.w, sz.h, sz.scale, topo, n, box)
					wantHosts := n
					if topo == "external" {
						wantHosts = 2 * n
					}
					if len(f.Hosts) != wantHosts || len(f.Clients) != n {
						t.Fatalf("%s: %d hosts and %d clients, want %d and %d", where, len(f.Hosts), len(f.Clients), wantHosts, n)
					}
					for i, h := range f.Hosts {
						if !h.R.Inside(a.L.Ring) {
							t.Errorf("%s: host %d (%s%s) %+v is outside the ring panel %+v", where, i, h.Member, h.Client, h.R, a.L.Ring)
						}
						for j := i + 1; j < len(f.Hosts); j++ {
							if h.R.Overlaps(f.Hosts[j].R) {
								t.Errorf("%s: host %s%s %+v overlaps host %s%s %+v", where, h.Member, h.Client, h.R, f.Hosts[j].Member, f.Hosts[j].Client, f.Hosts[j].R)
							}
						}
						// What runs on a host is inside it.
						if k, ok := f.Names[h.Member]; ok {
							if !f.Labels[k].Inside(h.R) {
								t.Errorf("%s: the labels of %s stick out of its host", where, h.Member)
							}
						}
						for _, c := range f.Clients {
							if c.Name == h.Client && !c.R.Inside(h.R) {
								t.Errorf("%s: %s %+v sticks out of its host %+v", where, c.Name, c.R, h.R)
							}
						}
					}
					if topo == "external" {
						for _, c := range f.Clients {
							if len(c.Endpoints) != n || len(c.Chips) != n && (len(c.Chips) != 0 || n < 6) {
								t.Errorf("%s: %s has %d endpoints and %d chips, want %d", where, c.Name, len(c.Endpoints), len(c.Chips), n)
							}
							for _, ch := range c.Chips {
								if !ch.Inside(c.R) {
									t.Errorf("%s: an endpoint chip of %s %+v is outside its box %+v", where, c.Name, ch, c.R)
								}
							}
						}
					}
				}
			}
		}
	}
}

// A stacked apiserver is down with its member's host; an external one is
// not, and is pinned to the endpoint its last request went to.
func TestHostsFailTogether(t *testing.T) {
	for _, topo := range []string{"stacked", "external"} {
		cfg := sim.SandboxConfig()
		cfg.Members, cfg.Topology, cfg.Apiservers = []string{"etcd-1", "etcd-2", "etcd-3"}, topo, 0
		s, err := NewSession(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Seek(sec(3)); err != nil {
			t.Fatal(err)
		}
		mustDo(t, s, sim.Command{Kind: sim.CmdCrash, Node: "etcd-1"})
		mustDo(t, s, sim.Command{Kind: sim.CmdPut, Via: "apiserver-1", Key: "/a", Value: "1"})
		must(t, s.Seek(sec(3.5)))
		f := BuildFrame(NewApp(s, 1280, 800, 1))
		var c ClientBox
		for _, cb := range f.Clients {
			if cb.Name == "apiserver-1" {
				c = cb
			}
		}
		var host HostBox
		for _, h := range f.Hosts {
			if h.Member == "etcd-1" {
				host = h
			}
		}
		switch topo {
		case "stacked":
			if !c.Down || !host.Down || host.Client != "apiserver-1" {
				t.Errorf("stacked: etcd-1 crashed, but apiserver-1 down=%v, its host %+v", c.Down, host)
			}
		case "external":
			if c.Down || !host.Down || host.Client != "" || c.Member != "etcd-2" {
				t.Errorf("external: apiserver-1 down=%v pinned to %q (want up, on etcd-2), etcd-1's host %+v", c.Down, c.Member, host)
			}
		}
	}
}
