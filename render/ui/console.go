package ui

import (
	"errors"
	"fmt"
	"time"

	"github.com/raftsim/raftsim/sim"
)

// The command box in the App: the console of `raftsim shell` over the
// cluster on screen. A line runs through the session (Session.Act), so
// its commands are in the same log as clicks, and seeking, forking, undo
// and saving treat them alike. Virtual time is the window's: an answer
// prints when the window's clock reaches it, and wait/tick move that clock.

// Prompt is the command box's prompt: the virtual time, as the shell shows.
func (a *App) Prompt() string { return fmt.Sprintf("raftsim %s> ", a.S.Now()) }

// BoxOpen reports whether the command box is open (and has the keyboard).
func (a *App) BoxOpen() bool { return a.Box.Open }

// OpenBox opens the command box, making its console if need be.
func (a *App) OpenBox() {
	if a.Box.Open {
		return
	}
	a.Box.Open = true
	a.menu, a.Help = nil, false
	if len(a.Box.Lines()) == 0 {
		if a.NewConsole == nil {
			a.Box.Note(a.Lang.T("# this window has no console"))
		} else {
			a.Box.Note(a.Lang.T("# etcdctl on the cluster on screen: put foo bar · get \"\" --prefix · endpoint status -w table · crash etcd-2 · help"))
			a.Box.Note(a.Lang.T("# Enter runs a line · ↑ ↓ history · PgUp PgDn scroll · Esc closes (the other shortcuts wait until then)"))
		}
	}
	a.relayout()
}

// CloseBox closes the command box; its scrollback and history stay.
func (a *App) CloseBox() {
	if !a.Box.Open {
		return
	}
	a.Box.Open = false
	a.relayout()
}

// boxInput feeds the open command box one event; it reports whether the
// box took it. Every key but F12 goes to the box while it is open.
func (a *App) boxInput(in Input) bool {
	switch in.Kind {
	case TextInput:
		a.Box.Type(in.Text)
		return true
	case Wheel:
		if a.L.Box.Contains(in.At) {
			a.Box.ScrollBy(int(in.DY*3), a.L.BoxLines)
			return true
		}
		return false
	case KeyPress:
	default:
		return false
	}
	switch in.Key {
	case "f12":
		return false
	case "escape":
		a.CloseBox()
	case "enter":
		if line, ok := a.Box.Key("enter", a.L.BoxLines); ok {
			a.RunLine(line)
		}
	default:
		// Printable keys arrive as TextInput too; only editing keys act.
		a.Box.Key(in.Key, a.L.BoxLines)
	}
	return true
}

// RunLine runs one console line on the cluster on screen, as Enter in the
// command box does.
func (a *App) RunLine(line string) {
	a.Box.echo(a.Prompt() + line)
	if a.NewConsole == nil {
		a.Box.Note(a.Lang.T("# this window has no console"))
		return
	}
	a.syncConsole()
	inPast := a.S.InPast()
	a.advance = 0
	applied, err := a.S.Act(func(*sim.World) error { return a.console.Exec(line) })
	if applied {
		// A line that acted on the cluster is the teacher taking over.
		a.takeOver()
	}
	var v *sim.Violation
	switch {
	case errors.Is(err, ErrConsoleQuit):
		a.CloseBox()
		return
	case errors.As(err, &v):
		a.Playing = false
		a.Status = a.Lang.T("safety violation: ") + v.Error()
	case err != nil:
		a.Box.Note("# " + err.Error())
	}
	if applied {
		a.Status = a.Lang.F("%s at %s (command box)", line, a.S.Now())
		if inPast {
			a.Box.Note(a.Lang.T("# acting in the past forked the future off; z (after Esc) brings it back"))
			a.Status += a.Lang.T(" — the future was forked off (z brings it back)")
		}
	}
	if d := a.advance; d > 0 {
		// wait and tick move the window's clock; in a lesson they stop
		// at its next narrative step, as playing does.
		a.advance = 0
		if !a.holdsTime() {
			a.advanceTo(a.S.Now().Add(d))
		}
	}
	a.pollConsole()
}

// syncConsole makes the console, or makes it again over the world on
// screen if the session has replaced it (a seek back, an undo, a fork's
// replay, catching up with a scenario's world). The console's jobs (its
// pending answers and watches) belonged to the old world and end; the
// scrollback stays.
func (a *App) syncConsole() {
	w := a.S.World()
	if a.NewConsole == nil || a.consoleW == w {
		return
	}
	if a.console != nil && w.Now() != a.consoleW.Now() {
		a.Box.Note(a.Lang.F("# the cluster on screen is now the one at %s (seek or undo): the console follows it; its pending answers and watches ended", w.Now()))
	}
	a.console = a.NewConsole(ConsoleHost{World: w, Out: &a.Box, Advance: func(d time.Duration) error {
		a.advance += d
		return nil
	}})
	a.consoleW = w
}

// pollConsole prints what the console's requests got since the last look.
// Commands the console applies on its own (closing a watch whose --for is
// over) join the log without an undo entry.
func (a *App) pollConsole() {
	if a.console == nil {
		return
	}
	a.syncConsole()
	_, err := a.S.Absorb(func(*sim.World) error { a.console.Poll(); return nil })
	a.report(err)
}
