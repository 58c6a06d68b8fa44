// Package guiconsole puts raftsim's console (package console, the
// etcdctl of `raftsim shell`) behind the window's command box (ui.Console).
// It keeps render/ free of the console (the window knows only ui.Console),
// and it lives apart from package main because package main links
// ebiten, which cannot start without a display: here the console and the
// App are tested together with plain `go test`.
package guiconsole

import (
	"errors"
	"io"
	"strings"

	"github.com/raftsim/raftsim/console"
	"github.com/raftsim/raftsim/render/ui"
)

// Factory returns what the App calls to make its console over the world on
// screen: the console in Async mode, with the window's clock for wait and
// tick, writing files (save, snapshot save) in dir. The App makes a new
// console each time it replaces its world; the trace setting carries over.
func Factory(dir string) ui.ConsoleFactory { return factory(dir, nil) }

// FactoryFiles is Factory for a window without a disk (the web page): the
// console's files go to files.
func FactoryFiles(files console.Files) ui.ConsoleFactory { return factory("", files) }

func factory(dir string, files console.Files) ui.ConsoleFactory {
	trace := "off"
	return func(h ui.ConsoleHost) ui.Console {
		out := &muted{w: h.Out}
		c := console.New(h.World, console.Options{Out: out, Mode: console.Async, Dir: dir, Files: files, Advance: h.Advance})
		if trace != "off" {
			out.mute = true
			_ = c.Exec("trace " + trace) // valid: it was accepted before
			out.mute = false
		}
		return &boxConsole{c: c, trace: &trace}
	}
}

// boxConsole adapts a *console.Console to ui.Console.
type boxConsole struct {
	c     *console.Console
	trace *string
}

func (b *boxConsole) Exec(line string) error {
	err := b.c.Exec(line)
	if f := strings.Fields(line); len(f) == 2 && f[0] == "trace" {
		switch f[1] {
		case "on", "off", "all":
			*b.trace = f[1]
		}
	}
	if errors.Is(err, console.ErrQuit) {
		return ui.ErrConsoleQuit
	}
	return err
}

func (b *boxConsole) Poll() { b.c.Poll() }

// muted is a writer that can be silenced, to set up a new console quietly.
type muted struct {
	w    io.Writer
	mute bool
}

func (m *muted) Write(p []byte) (int, error) {
	if m.mute {
		return len(p), nil
	}
	return m.w.Write(p)
}
