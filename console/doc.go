// Package console is the etcdctl-like interpreter of raftsim: the verbs of
// `raftsim shell`, and the command box of the GUI. It reads a line such as
// `put foo bar`, `get "" --prefix --keys-only` or `endpoint status -w table`,
// turns it into sim.Commands applied to a *sim.World, and prints what
// etcdctl would print, plus simulator verbs (crash, partition, wait, status,
// trace, save) that etcdctl does not have.
//
// # API
//
//	c := console.New(w, console.Options{Out: out, Mode: console.Blocking})
//	c.Start("sandbox")    // banner with the seed; waits for the first leader
//	err := c.Exec("put foo bar")
//	c.Prompt()            // "raftsim 1.234s> "
//	c.Close()             // flush this instant, before writing a trace
//
// Exec prints command errors itself (as "Error: ...") and returns nil for
// them; it returns ErrQuit for exit, and a *sim.Violation when a safety
// invariant broke and the world has stopped.
//
// # Who moves virtual time
//
// In Blocking mode (the terminal, and scripts read from standard input) a
// command that waits for an answer advances virtual time itself, instant by
// instant, and Exec returns once the answer has arrived or the client gave
// up, so time has moved on: a put takes a few milliseconds of virtual
// time, a put without quorum the client's 7s timeout. A foreground watch
// streams in slices of 50ms of virtual time until Options.Interrupt
// reports a signal (Ctrl-C in a terminal) or its --for passes; Options.Pace
// is called after each slice so that a terminal can run it at wall-clock
// pace. Every command that lets time pass stops at a signal, between two
// instants, and a long wait or tick tells Options.Progress how far it has
// gone.
//
// In Async mode (the GUI) Exec applies the command at the current virtual
// time and returns at once. The host owns the clock: after each advance of
// the world it calls Poll, which prints trace lines, answers and watch
// events as they arrive. `wait` and `tick` ask the host to move its clock on
// (Options.Advance), or without one advance the world at once. Every watch
// is a numbered job there, as if it ended in &, so that `unwatch N` stops
// it; its --for, when it passes, closes the stream as in Blocking mode.
//
// A line ending in & runs a key verb (put, get, del, watch) in the
// background in Blocking mode too: its output lines are prefixed with [N]
// and appear while later commands let time pass.
//
// # Determinism
//
// The console never reads the wall clock or sleeps, and its one goroutine
// (RunScript's reader of the next line, so that a script waiting for input
// can still be interrupted) never touches the world; Options.Pace,
// Options.Progress and Options.Interrupt are the host's business and only
// decide how much virtual time passes before a command stops, which, like
// any command, is logged with its virtual time. Before each command it
// processes whatever is scheduled for the current instant, as the scenario
// runner does before each step, so that `save` writes a scenario
// (scenarios.MarshalWith) that `raftsim run` replays to the same trace.
//
// Terminal runs an interactive session over golang.org/x/term, and
// RunScript one read from an io.Reader.
package console
