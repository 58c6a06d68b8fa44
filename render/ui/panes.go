package ui

import (
	"bytes"
	"slices"

	"github.com/raftsim/raftsim/i18n"

	"github.com/raftsim/raftsim/render/present"
	"github.com/raftsim/raftsim/sim"
	"github.com/raftsim/raftsim/trace"
)

// Panes are the window's side-by-side worlds of a comparison (play
// --compare, or a lesson with compare:): one App a pane, each the
// single-world window laid out at its pane's size, in lockstep. The first
// pane leads: its presenter and pace move virtual time, and every other
// pane is brought to the leader's instant after each frame and each input
// (forward through its own lesson's steps, shown as they run; back by
// remaking its lesson to the instant, as the timeline does). Input that
// acts on the cluster (the mouse, the command box, heal, undo) goes to
// every pane, each at the same place in its own pane, so that a fault the
// teacher injects by hand lands at the same instant in every world.
type Panes struct {
	Apps   []*App
	Labels []string // each pane's caption: "pre_vote: true"
	W, H   float64  // the window
	Scale  float64

	// Diverged[i] is the first event at which pane i's trace differs
	// from the first pane's, once it has (nil before; Diverged[0] is
	// always nil). The traces are compared as the worlds run, event by
	// event, byte for byte (the lines of `raftsim run --trace`).
	Diverged []*trace.Divergence

	compared []int        // each pane's events compared equal so far
	worlds   []*sim.World // the worlds compared, to start again when one changes
	la, lb   []byte
}

// NewPanes makes the panes of a w×h window, one a lesson, labelled.
func NewPanes(lessons []*present.Lesson, labels []string, sc Screen) (*Panes, error) {
	p := &Panes{Labels: labels, W: float64(sc.W), H: float64(sc.H), Scale: sc.Scale}
	if p.Scale <= 0 {
		p.Scale = 1
	}
	for i, l := range lessons {
		s, err := NewSession(sim.SandboxConfig())
		if err != nil {
			return nil, err
		}
		psc := sc
		psc.W, psc.H = p.appSize(i, len(lessons))
		a := NewAppFor(s, psc)
		if err := a.OpenLesson(l); err != nil {
			return nil, err
		}
		a.SetTitle(labels[i])
		p.Apps = append(p.Apps, a)
	}
	return p, nil
}

// Lead is the pane that moves time.
func (p *Panes) Lead() *App { return p.Apps[0] }

// The label band's font sizes, at scale 1: the pane's setting, and the
// line under it that says what the pane's run does where it first
// differs.
const (
	LabelSize    = 28
	LabelSubSize = 14
)

// LabelH is the height of the band over each pane that holds its label.
func (p *Panes) LabelH() float64 { return (LabelSize + LabelSubSize + 16) * p.Scale }

// LabelRects are where pane i's label and the line under it go.
func (p *Panes) LabelRects(i int) (label, sub Rect) {
	c := p.Cell(i, len(p.Apps))
	s := p.Scale
	label = Rect{X: c.X + 4*s, Y: c.Y + 2*s, W: c.W - 8*s, H: (LabelSize + 8) * s}
	sub = Rect{X: c.X + 4*s, Y: label.Bottom(), W: c.W - 8*s, H: (LabelSubSize + 4) * s}
	return label, sub
}

// DivergedLine says what pane i's run does where it first differs from
// the first pane's: "from 0.128586s: etcd-3 is candidate in term 2"
// ("" before it does).
func (p *Panes) DivergedLine(i int) string {
	d, own := p.DivergedAt(i)
	if d == nil {
		return ""
	}
	what := p.Lang().T("its run has ended")
	if own != nil {
		what = trace.DescribeIn(p.Lang(), *own)
	}
	return p.Lang().F("from %s: %s", trace.Seconds(d.T), what)
}

// Lang is the window's language.
func (p *Panes) Lang() i18n.Lang { return p.Lead().Lang }

// Grid is how n panes sit: side by side (two), or two by two (three,
// four).
func Grid(n int) (cols, rows int) {
	if n <= 2 {
		return n, 1
	}
	return 2, 2
}

// Cell is pane i's whole cell, its label band included.
func (p *Panes) Cell(i, n int) Rect {
	cols, rows := Grid(n)
	w, h := p.W/float64(cols), p.H/float64(rows)
	return Rect{X: float64(i%cols) * w, Y: float64(i/cols) * h, W: w, H: h}
}

// Rect is where pane i's window is drawn: its cell under its label band.
func (p *Panes) Rect(i, n int) Rect {
	c := p.Cell(i, n)
	lh := p.LabelH()
	return Rect{X: c.X, Y: c.Y + lh, W: c.W, H: c.H - lh}
}

// MinPaneW is the narrowest a pane's window is laid out: a narrower pane
// (two side by side in 1024 pixels) is laid out this wide and drawn
// smaller, by Zoom, since the one-world layout has no room for the ring
// beside the logs under it.
const MinPaneW = 640

// Zoom is how much smaller than its layout a pane is drawn (1: as laid
// out).
func (p *Panes) Zoom(n int) float64 {
	return min(1, p.Rect(0, n).W/MinPaneW)
}

// appSize is the size pane i's App is laid out at.
func (p *Panes) appSize(i, n int) (w, h int) {
	r, z := p.Rect(i, n), p.Zoom(n)
	return int(r.W / z), int(r.H / z)
}

// Resize lays every pane out again for a new window size.
func (p *Panes) Resize(w, h int) {
	if float64(w) == p.W && float64(h) == p.H {
		return
	}
	p.W, p.H = float64(w), float64(h)
	for i, a := range p.Apps {
		a.Resize(p.appSize(i, len(p.Apps)))
	}
}

// Update runs one frame: the leader's, then every other pane brought to
// the leader's instant, then the traces compared.
func (p *Panes) Update() {
	lead := p.Lead()
	lead.Update()
	for _, a := range p.Apps[1:] {
		a.Playing = false // the leader's time is theirs
		a.Update()
	}
	p.Sync()
}

// Sync brings every pane to the leader's instant and compares the
// traces.
func (p *Panes) Sync() {
	t := p.Lead().S.Now()
	for _, a := range p.Apps[1:] {
		a.Follow(t)
	}
	p.compare()
}

// Follow brings a pane to t: forward, its lesson's steps shown as they
// run (a question is answered: the leader's presenter asks); back, the
// lesson made again to t, as the timeline does.
func (a *App) Follow(t sim.Time) {
	if a.S.Now() > t {
		a.seek(t)
	}
	errs := 0
	for i := 0; i < 100_000 && a.S.Now() < t && a.S.World().Violation() == nil; i++ {
		if a.Lesson != nil {
			a.Lesson.ByHand()
		}
		if d := a.S.Driver(); d != nil {
			d.Resume()
		}
		paused, err := a.S.AdvanceTo(t)
		if err != nil {
			// A lesson that stopped early (a pane whose setting makes its
			// expectation fail) says so once, and its cluster runs on
			// with the others.
			a.report(err)
			if errs++; errs > 2 {
				break
			}
			continue
		}
		if paused && a.Lesson != nil {
			a.Lesson.StoppedByHand()
		}
	}
	if a.Lesson != nil {
		for a.Lesson.Pending() {
			a.Lesson.StoppedByHand()
		}
	}
}

// broadcastKeys are the keys that act on every pane's cluster; any other
// key is the leader's (the presenter's keys, play and pause, the rate,
// stepping and seeking), which the other panes follow in time.
var broadcastKeys = map[string]bool{"h": true, "z": true, "escape": true, "?": true}

// Handle feeds an input event: the mouse at its place in whichever pane it
// is in goes to every pane at that place in its own; typing into the
// command box and the keys that act on the cluster go to every pane;
// other keys to the leader. Then every pane is brought to the leader's
// instant.
func (p *Panes) Handle(in Input) {
	defer p.Sync()
	switch in.Kind {
	case MouseDown, MouseMove, MouseUp:
		n := len(p.Apps)
		for i := range p.Apps {
			c := p.Rect(i, n)
			if !c.Contains(in.At) {
				continue
			}
			local := in
			z := p.Zoom(n)
			local.At = Point{X: (in.At.X - c.X) / z, Y: (in.At.Y - c.Y) / z}
			for _, a := range p.Apps {
				a.Handle(local)
			}
			return
		}
	case TextInput:
		for _, a := range p.Apps {
			a.Handle(in)
		}
	case KeyPress:
		if p.Lead().Box.Open || broadcastKeys[in.Key] || isOpenKey(in.Key) {
			for _, a := range p.Apps {
				a.Handle(in)
			}
			return
		}
		p.Lead().Handle(in)
	}
}

// compare compares each pane's trace with the first pane's, from the
// first event not yet compared, and notes the first event at which it
// differs. A pane whose world was replaced (a seek, an undo) is compared
// again from the start.
func (p *Panes) compare() {
	n := len(p.Apps)
	if len(p.worlds) != n {
		p.worlds = make([]*sim.World, n)
		p.compared = make([]int, n)
		p.Diverged = make([]*trace.Divergence, n)
	}
	for i, a := range p.Apps {
		if w := a.S.World(); w != p.worlds[i] {
			p.worlds[i] = w
			if i == 0 {
				clear(p.compared)
				clear(p.Diverged)
			}
			p.compared[i], p.Diverged[i] = 0, nil
		}
	}
	base := p.worlds[0]
	for i := 1; i < n; i++ {
		w := p.worlds[i]
		for p.Diverged[i] == nil {
			k := p.compared[i]
			if k >= base.HistoryLen() || k >= w.HistoryLen() || k < base.HistoryStart() || k < w.HistoryStart() {
				break // not there yet (or forgotten)
			}
			p.la = base.AppendTraceLine(p.la[:0], base.EventAt(k))
			p.lb = w.AppendTraceLine(p.lb[:0], w.EventAt(k))
			if bytes.Equal(p.la, p.lb) {
				p.compared[i]++
				continue
			}
			d, err := trace.FirstDivergence(bytes.NewReader(p.la), bytes.NewReader(p.lb))
			if err != nil || d == nil {
				break
			}
			d.Index = k
			p.Diverged[i] = d
		}
	}
}

// First is the first divergence of any pane from the first pane, and
// that pane (nil, 0 before any).
func (p *Panes) First() (*trace.Divergence, int) {
	var first *trace.Divergence
	pane := 0
	for i, d := range p.Diverged {
		if d != nil && (first == nil || d.Index < first.Index) {
			first, pane = d, i
		}
	}
	return first, pane
}

// DivergedAt is pane i's own divergence: for a pane after the first, where
// its trace first differs from the first pane's, and the event there in
// its own trace; for the first, the earliest of those, and its own event.
func (p *Panes) DivergedAt(i int) (d *trace.Divergence, own *trace.Event) {
	if i > 0 && i < len(p.Diverged) {
		if d = p.Diverged[i]; d != nil {
			return d, d.B
		}
		return nil, nil
	}
	d, _ = p.First()
	if d == nil {
		return nil, nil
	}
	return d, d.A
}

// DivergedNodes are the members named by the events where pane i's trace
// first differs (the member whose role, term or entry differs), for the
// pane to highlight.
func (p *Panes) DivergedNodes(i int) []string {
	d, _ := p.DivergedAt(i)
	if d == nil {
		return nil
	}
	var out []string
	for _, e := range []*trace.Event{d.A, d.B} {
		if e != nil && e.Node != "" && !slices.Contains(out, e.Node) {
			out = append(out, e.Node)
		}
	}
	return out
}
