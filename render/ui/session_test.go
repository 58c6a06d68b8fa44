package ui

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

func sec(f float64) sim.Time { return sim.Time(f * float64(time.Second)) }

func newSandbox(t *testing.T) *Session {
	t.Helper()
	s, err := NewSession(sim.SandboxConfig())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fingerprint is what the picture shows of a world: its view.
func fingerprint(s *Session) string {
	return fmt.Sprintf("%+v", s.World().View())
}

// Going back and playing forward again shows exactly what was shown the
// first time, commands included.
func TestSeekBackAndForwardIsTheSame(t *testing.T) {
	s := newSandbox(t)
	must(t, s.Seek(sec(2)))
	mustDo(t, s, sim.Command{Kind: sim.CmdPut, Via: "apiserver-2", Req: server.Put("/a", "1")})
	must(t, s.Seek(sec(2.5)))
	mustDo(t, s, sim.Command{Kind: sim.CmdCrash, Node: "etcd-1"})
	must(t, s.Seek(sec(4)))
	at4 := fingerprint(s)
	at3 := ""
	{
		ref := newSandbox(t)
		must(t, ref.Seek(sec(2)))
		mustDo(t, ref, sim.Command{Kind: sim.CmdPut, Via: "apiserver-2", Req: server.Put("/a", "1")})
		must(t, ref.Seek(sec(2.5)))
		mustDo(t, ref, sim.Command{Kind: sim.CmdCrash, Node: "etcd-1"})
		must(t, ref.Seek(sec(3)))
		at3 = fingerprint(ref)
	}
	must(t, s.Seek(sec(1)))
	if s.Now() != sec(1) || len(s.World().Commands()) != 0 {
		t.Fatalf("after seeking to 1s: now %s with %d commands applied", s.Now(), len(s.World().Commands()))
	}
	if s.Head() != sec(4) || len(s.Commands()) != 2 {
		t.Fatalf("the branch lost its future: head %s, %d commands", s.Head(), len(s.Commands()))
	}
	must(t, s.Seek(sec(3)))
	if got := fingerprint(s); got != at3 {
		t.Errorf("at 3s after a seek back differs from a straight run")
	}
	must(t, s.Seek(sec(4)))
	if got := fingerprint(s); got != at4 {
		t.Errorf("at 4s after a seek back and forth differs from the first time")
	}
	must(t, s.Seek(sec(3))) // straight back, over both commands
	if got := fingerprint(s); got != at3 {
		t.Errorf("at 3s after seeking back from 4s differs from a straight run")
	}
}

// Acting in the past forks: the later commands are cut off, and undo
// brings the whole branch back.
func TestForkAndUndo(t *testing.T) {
	s := newSandbox(t)
	must(t, s.Seek(sec(3)))
	mustDo(t, s, sim.Command{Kind: sim.CmdCrash, Node: "etcd-3"})
	must(t, s.Seek(sec(5)))
	before := fingerprint(s)
	marksBefore := len(s.Marks())
	must(t, s.Seek(sec(2)))
	if len(s.Marks()) != marksBefore {
		t.Errorf("after seeking back the timeline shows %d marks, want the branch's %d", len(s.Marks()), marksBefore)
	}
	mustDo(t, s, sim.Command{Kind: sim.CmdStall, Node: "etcd-1", For: time.Second})
	if len(s.Commands()) != 1 || s.Commands()[0].Kind != sim.CmdStall {
		t.Fatalf("after the fork the log is %+v, want only the stall", s.Commands())
	}
	if s.Head() != sec(2) {
		t.Errorf("after the fork the head is %s, want 2s", s.Head())
	}
	must(t, s.Undo())
	if len(s.Commands()) != 1 || s.Commands()[0].Kind != sim.CmdCrash || s.Now() != sec(2) {
		t.Fatalf("undo gave log %+v at %s, want the crash back, at 2s", s.Commands(), s.Now())
	}
	must(t, s.Seek(sec(5)))
	if fingerprint(s) != before {
		t.Error("the branch brought back by undo does not replay as it was")
	}
	must(t, s.Undo()) // the crash itself
	if len(s.Commands()) != 0 {
		t.Errorf("second undo left %+v", s.Commands())
	}
	if err := s.Undo(); err != ErrNothingToUndo {
		t.Errorf("undo with nothing to undo: %v", err)
	}
}

// In the sandbox, m (the window's next delivery) stops at the first
// message delivered or dropped, and n at the next instant anything
// happens.
func TestStepDeliveryStopsAtADelivery(t *testing.T) {
	a := NewApp(newSandbox(t), 1280, 800, 1)
	must(t, a.Seek(sec(3)))
	w := a.S.World()
	next, _ := a.S.NextAt()
	a.Handle(Key("n", false))
	if a.S.Now() != next || a.Playing {
		t.Errorf("n: at %s (playing %v), want the next instant %s, paused", a.S.Now(), a.Playing, next)
	}
	n := w.HistoryLen()
	a.Handle(Key("m", false))
	delivered := 0
	for i := n; i < w.HistoryLen(); i++ {
		if k := w.EventAt(i).Kind; k == sim.EvDeliver || k == sim.EvDrop {
			delivered++
		}
	}
	if delivered == 0 || a.S.Now() <= next {
		t.Errorf("m stepped to %s with no delivery", a.S.Now())
	}
	// It stops at the first instant with one: nothing is delivered
	// before that instant.
	for i := n; i < w.HistoryLen(); i++ {
		if e := w.EventAt(i); (e.Kind == sim.EvDeliver || e.Kind == sim.EvDrop) && e.At != a.S.Now() {
			t.Errorf("m went past a delivery at %s to %s", e.At, a.S.Now())
		}
	}
}

func TestTimeline(t *testing.T) {
	tr := Rect{X: 100, Y: 0, W: 1000, H: 10}
	span := sec(10)
	for _, tt := range []struct {
		x    float64
		want sim.Time
	}{{100, 0}, {600, sec(5)}, {1100, sec(10)}, {50, 0}, {5000, sec(10)}, {350, sec(2.5)}} {
		if got := TimeAtX(tr, span, tt.x); got != tt.want {
			t.Errorf("TimeAtX(%g) = %s, want %s", tt.x, got, tt.want)
		}
		if tt.x >= 100 && tt.x <= 1100 {
			if x := XAtTime(tr, span, tt.want); abs(x-tt.x) > 1e-6 {
				t.Errorf("XAtTime(%s) = %g, want %g", tt.want, x, tt.x)
			}
		}
	}
	if Span(sec(1)) != sec(5) || Span(sec(100)) != sec(105) {
		t.Errorf("Span: %s %s", Span(sec(1)), Span(sec(100)))
	}
	for _, tt := range []struct {
		span sim.Time
		n    float64
		want sim.Time
	}{{sec(5), 12, sec(0.5)}, {sec(5), 5, sec(1)}, {sec(60), 10, sec(10)}, {sec(0.1), 10, sec(0.01)}} {
		if got := TickStep(tt.span, tt.n); got != tt.want {
			t.Errorf("TickStep(%s, %g) = %s, want %s", tt.span, tt.n, got, tt.want)
		}
	}
}

// Dragging the scrubber back shows the cluster as it was: the App seeks
// through its session and the world's clock follows the pointer.
func TestScrubbingSeeksBack(t *testing.T) {
	s := newSandbox(t)
	a := NewApp(s, 1280, 800, 1)
	must(t, s.Seek(sec(8)))
	tr := Track(a.L)
	x := XAtTime(tr, Span(s.Head()), sec(2))
	a.Handle(Input{Kind: MouseDown, At: Point{x, tr.Center().Y}})
	a.Handle(Input{Kind: MouseUp, At: Point{x, tr.Center().Y}})
	a.Update()
	if got := s.Now(); got < sec(1.9) || got > sec(2.1) {
		t.Errorf("after clicking the timeline at 2s the world is at %s", got)
	}
	if s.Head() != sec(8) {
		t.Errorf("the head moved to %s", s.Head())
	}
}

// Clicks and drags on the ring become the commands they say they are.
func TestMouseToCommands(t *testing.T) {
	s := newSandbox(t)
	must(t, s.Seek(sec(3)))
	a := NewApp(s, 1280, 800, 1)
	f := BuildFrame(a)
	p1, p2, p3 := f.Ring.Pos[0], f.Ring.Pos[1], f.Ring.Pos[2]
	for _, in := range Drag(p1, p2, false) {
		a.Handle(in)
	}
	for _, in := range Drag(p1, p3, true) {
		a.Handle(in)
	}
	cmds := s.Commands()
	want := []sim.Command{
		{At: sec(3), Kind: sim.CmdCut, From: "etcd-1", To: "etcd-2"},
		{At: sec(3), Kind: sim.CmdCut, From: "etcd-1", To: "etcd-3", OneWay: true},
	}
	if !reflect.DeepEqual(cmds, want) {
		t.Fatalf("drags gave %+v, want %+v", cmds, want)
	}
	f = BuildFrame(a)
	if len(f.Cuts) != 2 {
		t.Fatalf("%d cuts drawn, want 2: %+v", len(f.Cuts), f.Cuts)
	}
	for _, c := range f.Cuts {
		h := HitTest(f, c.P, false)
		if h.Kind != HitCut || h.Cut.From != c.From || h.Cut.To != c.To {
			t.Errorf("the mark of cut %s→%s hits %+v", c.From, c.To, h)
		}
		if c.Both != (c.To == "etcd-2") {
			t.Errorf("cut %s→%s both ways = %v", c.From, c.To, c.Both)
		}
	}
	// Clicking the two-way cut restores it.
	for _, c := range f.Cuts {
		if c.Both {
			for _, in := range Click(c.P, false) {
				a.Handle(in)
			}
		}
	}
	if v := s.World().View(); len(v.Cuts) != 1 || v.Cuts[0] != (sim.LinkView{From: "etcd-1", To: "etcd-3"}) {
		t.Errorf("after restoring, cuts are %+v", v.Cuts)
	}
	// A click on a member opens its menu; its crash entry crashes it.
	for _, in := range Click(p2, false) {
		a.Handle(in)
	}
	f = BuildFrame(a)
	if f.Menu == nil || f.Menu.Target != "etcd-2" {
		t.Fatalf("no menu for etcd-2: %+v", f.Menu)
	}
	for _, it := range f.Menu.Items {
		if it.Action == ActCrash {
			for _, in := range Click(it.R.Center(), false) {
				a.Handle(in)
			}
		}
	}
	if in, _ := s.World().Info("etcd-2"); in.Up {
		t.Errorf("etcd-2 is up after choosing crash from its menu (status %q)", a.Status)
	}
	// Keys: select etcd-4 with 4, put through its client with p.
	a.Handle(Key("4", false))
	a.Handle(Key("p", false))
	last := s.Commands()[len(s.Commands())-1]
	if last.Kind != sim.CmdPut || last.Via != "etcd-4" {
		t.Errorf("4 then p gave %+v", last)
	}
}

// The hit test finds the member under the pointer and nothing in empty space.
func TestHitTest(t *testing.T) {
	s := newSandbox(t)
	a := NewApp(s, 1920, 1080, 1)
	f := BuildFrame(a)
	for i, m := range f.View.Members {
		p := f.Ring.Pos[i].Add(Point{f.Ring.NodeR * 0.7, 0})
		if h := HitTest(f, p, false); h.Kind != HitMember || h.Name != m.Name {
			t.Errorf("near %s: %+v", m.Name, h)
		}
	}
	if h := HitTest(f, f.Ring.Center, false); h.Kind != HitNone {
		t.Errorf("the ring's empty centre hits %+v", h)
	}
	for _, b := range a.L.Buttons {
		if h := HitTest(f, b.Rect.Center(), false); h.Kind != HitButton || h.Action != b.Action {
			t.Errorf("button %q: %+v", b.Label, h)
		}
	}
	if h := HitTest(f, f.Ring.Pos[0], true); h.Kind != HitHelp {
		t.Errorf("with help open a click hits %+v, want the help overlay", h)
	}
}

// The monkey: 5,000 random clicks, drags and keys, with the world playing.
// Nothing may panic and no safety invariant may break.
func TestMonkey(t *testing.T) {
	n := 5000
	if testing.Short() {
		n = 500
	}
	s := newSandbox(t)
	a := NewApp(s, 1280, 800, 1)
	a.Playing = true
	a.Save = func(*Session) (string, error) { return "nowhere", nil }
	withFakeConsole(a)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		a.Handle(RandomInput(rng, a))
		if i%5 == 0 {
			a.Update()
		}
		if v := s.World().Violation(); v != nil {
			t.Fatalf("after %d events: %v", i, v)
		}
		_ = BuildFrame(a)
	}
	t.Logf("%d events: virtual time %s, %d commands, undo depth %d, status %q", n, s.Now(), len(s.Commands()), s.UndoDepth(), a.Status)
	if len(s.Commands()) == 0 {
		t.Error("the monkey issued no command at all: it is not reaching the controls")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mustDo(t *testing.T, s *Session, c sim.Command) {
	t.Helper()
	if _, err := s.Do(c); err != nil {
		t.Fatal(err)
	}
}
