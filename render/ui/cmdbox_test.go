package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// boxEvent is one step of a command box table test: typed text, or a key.
type boxEvent struct{ text, key string }

func typed(s string) boxEvent { return boxEvent{text: s} }
func key(k string) boxEvent   { return boxEvent{key: k} }

// The line editor: typing, the cursor keys, Enter and the history.
func TestCommandBoxEditing(t *testing.T) {
	for _, tc := range []struct {
		name     string
		events   []boxEvent
		line     string
		cursor   int
		ran      []string
		history  []string
		scrolled int
	}{
		{name: "typing", events: []boxEvent{typed("put foo bar")}, line: "put foo bar", cursor: 11},
		{name: "enter runs and clears", events: []boxEvent{typed("put foo bar"), key("enter")},
			ran: []string{"put foo bar"}, history: []string{"put foo bar"}},
		{name: "backspace and delete", events: []boxEvent{typed("putt"), key("backspace"), key("home"), key("delete"), typed("P")},
			line: "Put", cursor: 1},
		{name: "left right insert", events: []boxEvent{typed("ge foo"), key("left"), key("left"), key("left"), key("left"), typed("t"), key("end"), key("right")},
			line: "get foo", cursor: 7},
		{name: "control characters dropped, tab is a space", events: []boxEvent{typed("a\x01\tb\n")}, line: "a b", cursor: 3},
		{name: "unicode", events: []boxEvent{typed("put 键 值"), key("backspace")}, line: "put 键 ", cursor: 6},
		{name: "up recalls, down returns to the draft",
			events: []boxEvent{typed("one"), key("enter"), typed("two"), key("enter"), typed("dra"), key("up"), key("up"), key("up"), key("down")},
			line:   "two", cursor: 3, ran: []string{"one", "two"}, history: []string{"one", "two"}},
		{name: "down past the newest gives the draft back",
			events: []boxEvent{typed("one"), key("enter"), typed("dra"), key("up"), key("down")},
			line:   "dra", cursor: 3, ran: []string{"one"}, history: []string{"one"}},
		{name: "an empty line and a repeat stay out of the history",
			events: []boxEvent{typed("one"), key("enter"), key("enter"), typed("one"), key("enter")},
			ran:    []string{"one", "", "one"}, history: []string{"one"}},
		{name: "recalled line runs again", events: []boxEvent{typed("status"), key("enter"), key("up"), key("enter")},
			ran: []string{"status", "status"}, history: []string{"status"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b CommandBox
			var ran []string
			for _, e := range tc.events {
				if e.text != "" {
					b.Type(e.text)
					continue
				}
				if run, ok := b.Key(e.key, 5); ok {
					ran = append(ran, run)
				}
			}
			line, cur := b.Line()
			if line != tc.line || cur != tc.cursor {
				t.Errorf("line %q cursor %d, want %q cursor %d", line, cur, tc.line, tc.cursor)
			}
			if fmt.Sprint(ran) != fmt.Sprint(tc.ran) {
				t.Errorf("ran %q, want %q", ran, tc.ran)
			}
			if fmt.Sprint(b.History()) != fmt.Sprint(tc.history) {
				t.Errorf("history %q, want %q", b.History(), tc.history)
			}
		})
	}
}

// The scrollback takes the console's output a line at a time, marks errors,
// scrolls by pages and keeps what is being read in place as lines arrive.
func TestCommandBoxScrollback(t *testing.T) {
	var b CommandBox
	fmt.Fprint(&b, "OK\nError: etcdserver: request timed out\n[1] PUT\n[1] Error: x\npart")
	vis, _ := b.Visible(10)
	var got []string
	for _, l := range vis {
		got = append(got, fmt.Sprintf("%d:%s", l.Kind, l.Text))
	}
	want := []string{"0:OK", "2:Error: etcdserver: request timed out", "0:[1] PUT", "2:[1] Error: x", "0:part"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("scrollback %q, want %q", got, want)
	}
	for i := range 20 {
		fmt.Fprintf(&b, "\nline %d", i)
	}
	fmt.Fprint(&b, "\n")
	vis, _ = b.Visible(4)
	if vis[3].Text != "line 19" {
		t.Errorf("the newest line shown is %q", vis[3].Text)
	}
	b.Key("pageup", 4)
	vis, scroll := b.Visible(4)
	if scroll != 3 || vis[3].Text != "line 16" {
		t.Errorf("after pageup: scrolled %d, bottom %q", scroll, vis[3].Text)
	}
	fmt.Fprint(&b, "new\n")
	if vis2, _ := b.Visible(4); vis2[3].Text != "line 16" {
		t.Errorf("a new line moved the scrolled-back view to %q", vis2[3].Text)
	}
	b.Key("pagedown", 4)
	b.Key("pagedown", 4)
	if vis, scroll = b.Visible(4); scroll != 0 || vis[3].Text != "new" {
		t.Errorf("after pagedown: scrolled %d, bottom %q", scroll, vis[3].Text)
	}
	for range 100 {
		b.Key("pageup", 4)
	}
	if vis, _ = b.Visible(4); vis[0].Text != "OK" {
		t.Errorf("scrolled all the way back, the top line is %q", vis[0].Text)
	}
}

// fakeConsole is a console for the ui tests (the real one, package
// console, is injected by cmd/raftsim-gui): put, crash, wait,
// status and exit, acting on the world as the real one does.
type fakeConsole struct {
	h       ConsoleHost
	pending []*sim.Op
}

func (c *fakeConsole) Exec(line string) error {
	f := strings.Fields(line)
	if len(f) == 0 {
		return nil
	}
	w := c.h.World
	do := func(cmd sim.Command) (*sim.Op, error) {
		if err := w.RunUntil(w.Now()); err != nil {
			return nil, err
		}
		return w.Do(cmd)
	}
	switch {
	case f[0] == "put" && len(f) == 3:
		op, err := do(sim.Command{Kind: sim.CmdPut, Via: "apiserver-1", Req: server.Put(f[1], f[2])})
		if err != nil {
			fmt.Fprintf(c.h.Out, "Error: %v\n", err)
			return nil
		}
		c.pending = append(c.pending, op)
	case f[0] == "crash" && len(f) == 2:
		if _, err := do(sim.Command{Kind: sim.CmdCrash, Node: f[1]}); err != nil {
			fmt.Fprintf(c.h.Out, "Error: %v\n", err)
			return nil
		}
		fmt.Fprintf(c.h.Out, "%s crashed\n", f[1])
	case f[0] == "wait" && len(f) == 2:
		d, err := time.ParseDuration(f[1])
		if err != nil {
			fmt.Fprintf(c.h.Out, "Error: %v\n", err)
			return nil
		}
		return c.h.Advance(d)
	case f[0] == "status":
		fmt.Fprintf(c.h.Out, "%d members\n", len(w.MemberNames()))
	case f[0] == "exit":
		return ErrConsoleQuit
	default:
		fmt.Fprintf(c.h.Out, "Error: unknown command %q\n", f[0])
	}
	return nil
}

func (c *fakeConsole) Poll() {
	kept := c.pending[:0]
	for _, op := range c.pending {
		switch op.Status {
		case sim.OpPending:
			kept = append(kept, op)
		case sim.OpOK:
			fmt.Fprintln(c.h.Out, "OK")
		default:
			fmt.Fprintf(c.h.Out, "Error: %s\n", op.Err)
		}
	}
	c.pending = kept
}

// withFakeConsole gives an App a fake console and records each one made.
func withFakeConsole(a *App) *[]*fakeConsole {
	var made []*fakeConsole
	a.NewConsole = func(h ConsoleHost) Console {
		c := &fakeConsole{h: h}
		made = append(made, c)
		return c
	}
	return &made
}

func boxText(a *App) string {
	var b strings.Builder
	for _, l := range a.Box.Lines() {
		b.WriteString(l.Text + "\n")
	}
	return b.String()
}

// While the box is open, the keyboard is the box's: a shortcut key types
// its letter and does nothing else; Esc closes the box and the shortcuts
// work again. The box takes a strip of the layout while it is open.
func TestCommandBoxSuspendsShortcuts(t *testing.T) {
	s := newSandbox(t)
	must(t, s.Seek(sec(3)))
	a := NewApp(s, 1280, 800, 1)
	withFakeConsole(a)
	ringH := a.L.Ring.H
	a.Handle(Key("2", false)) // select etcd-2
	a.Handle(Type(":"))
	if !a.BoxOpen() {
		t.Fatal(": did not open the command box")
	}
	if a.L.BoxLines == 0 || a.L.Ring.H >= ringH {
		t.Errorf("the open box has no room: %d lines, ring height %g (was %g)", a.L.BoxLines, a.L.Ring.H, ringH)
	}
	playing := a.Playing
	for _, k := range []string{"x", "space", "h", "z", "s", "?", "1", "p", "left", "+"} {
		a.Handle(Key(k, false))
		if k != "left" && k != "space" {
			a.Handle(Type(k))
		}
	}
	if n := len(s.Commands()); n != 0 {
		t.Errorf("shortcuts pressed in the open box applied %d commands: %+v", n, s.Commands())
	}
	if in, _ := s.World().Info("etcd-2"); !in.Up || a.Playing != playing || a.Help || a.Selected != "etcd-2" {
		t.Errorf("a shortcut acted while the box was open: etcd-2 up=%v playing=%v help=%v selected=%q", in.Up, a.Playing, a.Help, a.Selected)
	}
	if line, _ := a.Box.Line(); line != "xhzs?1+p" {
		t.Errorf("the box holds %q, want the letters typed", line)
	}
	shots := 0
	a.Screenshot = func() (string, error) { shots++; return "shot.png", nil }
	a.Handle(Key("f12", false))
	if shots != 1 {
		t.Error("F12 does not take a screenshot while the box is open")
	}
	a.Handle(Key("escape", false))
	if a.BoxOpen() || a.L.BoxLines != 0 || a.L.Ring.H != ringH {
		t.Errorf("escape: open=%v, %d box lines, ring height %g", a.BoxOpen(), a.L.BoxLines, a.L.Ring.H)
	}
	a.Handle(Key("x", false))
	if in, _ := s.World().Info("etcd-2"); in.Up {
		t.Error("after the box closed, x did not crash the selected member")
	}
	// Reopened, the box still has its line, its history and its scrollback.
	a.Handle(Key(":", false))
	if line, _ := a.Box.Line(); !a.BoxOpen() || line != "xhzs?1+p" {
		t.Errorf("reopened: open=%v line %q", a.BoxOpen(), line)
	}
}

// A line runs on the world on screen through the session: its commands
// are in the log like clicks, its answer prints as the window's clock
// reaches it, and wait moves that clock.
func TestCommandBoxRunsOnTheSession(t *testing.T) {
	s := newSandbox(t)
	must(t, s.Seek(sec(3)))
	a := NewApp(s, 1280, 800, 1)
	made := withFakeConsole(a)
	a.Handle(Type(":put foo bar"))
	a.Handle(Key("enter", false))
	if cmds := s.Commands(); len(cmds) != 1 || cmds[0].Kind != sim.CmdPut || string(cmds[0].Req.Put.GetKey()) != "foo" || cmds[0].At != sec(3) {
		t.Fatalf("the session's log after put foo bar: %+v", cmds)
	}
	if strings.Contains(boxText(a), "\nOK\n") {
		t.Error("the answer printed before any virtual time passed")
	}
	if !strings.Contains(boxText(a), "raftsim 3.000s> put foo bar") {
		t.Errorf("the command is not echoed after its prompt:\n%s", boxText(a))
	}
	a.Playing = true
	a.SetSpeed(1)
	for range 20 {
		a.Update()
	}
	if !strings.Contains(boxText(a), "\nOK\n") {
		t.Errorf("no OK after %s of playing:\n%s", s.Now()-sec(3), boxText(a))
	}
	a.Playing = false
	before := s.Now()
	a.RunLine("wait 500ms")
	if s.Now() != before+sec(0.5) {
		t.Errorf("wait 500ms moved the clock from %s to %s", before, s.Now())
	}
	if s.UndoDepth() != 1 {
		t.Errorf("undo depth %d after one command and a wait, want 1", s.UndoDepth())
	}
	a.RunLine("status")
	if len(s.Commands()) != 1 || s.UndoDepth() != 1 {
		t.Errorf("a read changed the log or the undo list: %d commands, undo %d", len(s.Commands()), s.UndoDepth())
	}
	a.RunLine("exit")
	if a.BoxOpen() {
		t.Error("exit did not close the box")
	}
	if len(*made) != 1 {
		t.Errorf("%d consoles made for one world", len(*made))
	}
}

// When the window replaces its world (seek back, undo), the console is
// made again over the new one, the scrollback stays, and a line run in
// the past forks the future off as a click there does.
func TestConsoleFollowsTheWorld(t *testing.T) {
	s := newSandbox(t)
	must(t, s.Seek(sec(3)))
	a := NewApp(s, 1280, 800, 1)
	made := withFakeConsole(a)
	a.OpenBox()
	a.RunLine("put a 1")
	must(t, s.Seek(sec(5)))
	a.RunLine("crash etcd-4")
	if n := len(s.Commands()); n != 2 {
		t.Fatalf("%d commands, want 2", n)
	}
	must(t, s.Seek(sec(4))) // back: a new world, replayed
	a.Update()
	if len(*made) != 2 || (*made)[1].h.World != s.World() {
		t.Fatalf("after a seek back: %d consoles, the last over the world on screen: %v", len(*made), len(*made) == 2 && (*made)[1].h.World == s.World())
	}
	if !strings.Contains(boxText(a), "raftsim 3.000s> put a 1") || !strings.Contains(boxText(a), "now the one at 4.000s") {
		t.Errorf("the scrollback was lost or not told of the seek:\n%s", boxText(a))
	}
	a.RunLine("crash etcd-5") // in the past: the crash of etcd-4 at 5s is cut off
	cmds := s.Commands()
	if len(cmds) != 2 || cmds[1].Node != "etcd-5" || cmds[1].At != sec(4) {
		t.Fatalf("after a line in the past the log is %+v, want put a 1 and crash etcd-5 at 4s", cmds)
	}
	if in, _ := s.World().Info("etcd-5"); in.Up {
		t.Error("crash etcd-5 did not act on the world on screen")
	}
	if !strings.Contains(boxText(a), "forked the future off") {
		t.Errorf("the fork is not told:\n%s", boxText(a))
	}
	must(t, s.Undo()) // back to the branch with the crash of etcd-4
	a.Update()
	if len(*made) != 3 || (*made)[2].h.World != s.World() {
		t.Errorf("after undo: %d consoles, want 3, over the world on screen", len(*made))
	}
	if cmds := s.Commands(); len(cmds) != 2 || cmds[1].Node != "etcd-4" {
		t.Errorf("undo brought back %+v", cmds)
	}
	// Playing forward through the branch keeps the same world: no new console.
	must(t, s.Seek(sec(6)))
	a.Update()
	if len(*made) != 3 {
		t.Errorf("seeking forward made a new console (%d)", len(*made))
	}
}
