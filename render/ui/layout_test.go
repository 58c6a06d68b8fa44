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
