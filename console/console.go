package console

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/raftsim/raftsim/interrupt"
	"github.com/raftsim/raftsim/outfile"
	"github.com/raftsim/raftsim/sim"
)

// Mode says who moves virtual time.
type Mode uint8

const (
	// Blocking is the terminal's mode: a command that waits for an answer
	// advances virtual time itself until the answer arrives (or its client
	// gives up), as a real etcdctl call waits, and Exec returns then.
	Blocking Mode = iota
	// Async is the GUI's mode: Exec applies the command at the current
	// virtual time and returns at once; the host advances the world and
	// calls Poll, which prints answers and watch events as they arrive.
	Async
)

// Options configure a Console.
type Options struct {
	// Out receives everything the console prints. Required.
	Out io.Writer
	// Program names the command in the banner Start prints ("" is
	// "raftsim shell"; raftsim serve gives its own).
	Program string
	// Mode is Blocking (the default) or Async.
	Mode Mode
	// Dir is where relative file names (save, snapshot save) are read and
	// written; "" is the process's working directory.
	Dir string
	// Files, when set, stands for the disk: save writes there (the web
	// page, which has no disk, makes it a download).
	Files Files
	// Interactive says a person is typing at a terminal: a foreground watch
	// then streams until it is interrupted (Ctrl-C). Without it, a
	// foreground watch must be bounded with --for, so that a script cannot
	// hang.
	Interactive bool
	// Interrupt is the host's catcher of SIGINT and SIGTERM (nil: never
	// interrupted). A command that lets time pass (wait, tick, a request
	// waiting for its answer, a watch) asks it between instants, and stops
	// when it reports a signal; RunScript then stops reading commands
	// (ErrInterrupted), and a terminal goes on with the next one.
	Interrupt *interrupt.Catcher
	// Progress, if set, is told how a long wait or tick is going, between
	// instants; a terminal shows it once a wait has taken a few seconds of
	// wall time. It never affects what the simulation does.
	Progress Progress
	// Trace, if set, receives every event as a line of the JSON Lines
	// trace as the session goes (the header is the caller's to write), so
	// that the session need not keep its history to write the trace at its
	// end.
	Trace io.Writer
	// Pace is called after each slice of virtual time that a streaming
	// command lets pass, with the slice's length; a terminal sleeps that
	// long so that a watch runs at the pace of a clock on the wall. Nil
	// means no pacing. It never affects what the simulation does.
	Pace func(time.Duration)
	// Heartbeats makes `trace on` include heartbeats, as `trace all` does.
	Heartbeats bool
	// Advance is, in Async mode, how wait and tick let virtual time pass:
	// the host owns the clock, so the console asks it to move on by d (the
	// GUI plays its session forward, with a scenario's steps and the
	// commands of the branch on screen) rather than run the world itself,
	// which would leave the host's command log and script behind. It is
	// called from inside Exec; the host may do the advancing after Exec
	// returns. Nil: the console runs the world itself.
	Advance func(d time.Duration) error
	// ForgetHistory gives back the history once trace has printed it,
	// for a session whose trace is not written out at its end (see
	// sim.World.ForgetHistory): a long load then runs in bounded memory.
	// The GUI leaves it off.
	ForgetHistory bool
}

// Progress is told how a command that lets virtual time pass is going.
type Progress interface {
	// Start: the command what is about to let total pass.
	Start(what string, total time.Duration)
	// Update: done of it has passed.
	Update(done time.Duration)
	// End: it has ended, or was interrupted.
	End()
}

// progressEvery is how many instants pass between calls of
// Progress.Update.
const progressEvery = 256

// forgetEvery is how many events a session that forgets its history lets
// gather before giving them back.
const forgetEvery = 1 << 16

// ErrQuit is returned by Exec for exit and quit.
var ErrQuit = errors.New("quit")

// ErrInterrupted is returned by RunScript when a signal stopped it; it
// wraps interrupt.ErrInterrupted.
var ErrInterrupted = interrupt.ErrInterrupted

// streamSlice is how much virtual time a streaming watch lets pass between
// looks at the user's interrupt.
const streamSlice = 50 * time.Millisecond

// Console is an etcdctl-like interpreter over one world.
type Console struct {
	w    *sim.World
	opts Options
	out  io.Writer
	// polling is set while Poll polls the jobs: a job whose poll sends a
	// request (c.do polls) must not be polled again from inside itself.
	polling bool

	trace      bool
	heartbeats bool
	traced     int    // history events already considered for trace on
	written    int    // history events already written to Options.Trace
	line       []byte // a trace line being written (Options.Trace)

	jobs    []*job // background commands, in the order they started
	nextJob int

	removed map[string]bool // members a member remove command was issued for

	txn *txnReader // the transaction whose lines are being read, if any

	// maxRunTime, if set, replaces scenarios.MaxRunTime: a fuzz test keeps
	// each input's virtual time short.
	maxRunTime time.Duration
	// epLabels: how the last --endpoints named each member, for output;
	// firstEndpoint: the first of them, which names etcdctl's gRPC target.
	epLabels      map[string]string
	firstEndpoint string
	// user is etcdctl's global --user NAME:PASSWORD of the command being
	// run ("" for none).
	user string
	// readLine, when set, takes the next line as the input of the
	// command before it.
	readLine func(line string) error
}

// job is a command that waits for something as virtual time passes. poll
// prints whatever is new and reports whether the command has finished.
type job struct {
	id         int
	background bool
	poll       func() bool
	deadline   sim.Time // 0: none
	onDeadline func()   // called once if the deadline passes first
	// wake: poll wants to be called at this time (0: only when something
	// happens), as when it waits for a request's own deadline.
	wake    sim.Time
	stopped bool   // unwatch: stop printing it
	watch   string // a watch job: its op's label
}

// New returns a console over w.
func New(w *sim.World, opts Options) *Console {
	if opts.Out == nil {
		opts.Out = io.Discard
	}
	return &Console{w: w, opts: opts, out: opts.Out, traced: w.HistoryLen(), written: w.HistoryStart(), heartbeats: opts.Heartbeats,
		removed: map[string]bool{}, epLabels: map[string]string{}}
}

// World returns the world the console acts on.
func (c *Console) World() *sim.World { return c.w }

// Prompt returns the prompt to show before the next command: the virtual
// time, so that the reader always knows when "now" is.
func (c *Console) Prompt() string {
	if c.txn != nil || c.readLine != nil {
		return "" // etcdctl reads a transaction's lines, or a password, without a prompt
	}
	return fmt.Sprintf("raftsim %s> ", c.w.Now())
}

// Exec runs one line. Errors in the command itself (an unknown verb, a bad
// flag, an unknown member, a request that failed) are printed as etcdctl
// prints them, "Error: ...", and Exec returns nil; it returns ErrQuit for
// exit, and a *sim.Violation when a safety invariant broke (the world has
// stopped; the caller should report it and end the session).
func (c *Console) Exec(line string) error {
	if v := c.w.Violation(); v != nil {
		return v
	}
	if c.txn != nil {
		// The lines after txn are the transaction's, blank ones included.
		return c.report(c.txnLine(line))
	}
	if r := c.readLine; r != nil {
		// A line a command reads from its input (user passwd
		// --interactive=false), unechoed.
		c.readLine = nil
		return c.report(r(line))
	}
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return nil
	}
	args, err := split(line)
	if err != nil {
		c.errorf("%v", err)
		return nil
	}
	bg := false
	if n := len(args); n > 0 && args[n-1] == "&" {
		bg, args = true, args[:n-1]
	} else if n > 0 && strings.HasSuffix(args[n-1], "&") && len(args[n-1]) > 1 && !strings.HasSuffix(args[n-1], "\\&") {
		bg, args[n-1] = true, strings.TrimSuffix(args[n-1], "&")
	}
	if len(args) == 0 {
		return nil
	}
	return c.report(c.dispatch(args, bg))
}

// report prints a command's error as etcdctl does and returns what Exec
// returns for it: ErrQuit, a violation, or nil.
func (c *Console) report(err error) error {
	var v *sim.Violation
	switch {
	case errors.Is(err, ErrQuit):
		return ErrQuit
	case errors.As(err, &v):
		c.printViolation(v)
		return v
	case err != nil:
		c.errorf("%v", err)
	}
	return nil
}

// Poll prints what arrived since the last call: trace lines, answers to
// background (and, in Async mode, all) requests, and watch events. The
// host calls it after each advance of the world.
func (c *Console) Poll() {
	c.flushTrace()
	if c.opts.ForgetHistory && c.w.HistoryLen()-c.w.HistoryStart() >= forgetEvery {
		c.w.ForgetHistory(c.traced) // traced: what trace on has printed, and Options.Trace has
	}
	if c.polling {
		// A job's poll sent a request (auth enable's next step, --user's
		// request once Authenticate answered): the outer Poll goes on
		// with the jobs. Polled again from inside itself, auth enable took
		// a step twice and ran off the end of its steps, --user sent its
		// request again and again, and the job list, compacted in place
		// under the outer loop, had jobs polled twice.
		return
	}
	c.polling = true
	kept := c.jobs[:0]
	var expired []*job
	for _, j := range c.jobs {
		if j.stopped {
			continue
		}
		done := j.poll()
		if !done && j.deadline != 0 && c.w.Now() >= j.deadline {
			if j.onDeadline != nil {
				j.onDeadline()
			}
			done = true
			expired = append(expired, j)
		}
		if !done {
			kept = append(kept, j)
		}
	}
	c.jobs = kept
	c.polling = false
	// A watch whose --for has passed closes its stream in the simulation,
	// as a foreground one does. NB: only now, with the job list settled,
	// since cancelling applies a command, which polls again.
	for _, j := range expired {
		if j.watch != "" {
			_ = c.cancel(j) // an error here is a violation, which Violation reports
		}
	}
}

// letPass lets d of virtual time pass for the command what: in Async mode
// with a host that owns the clock, by asking it to.
func (c *Console) letPass(what string, d time.Duration) error {
	if err := c.checkRunTime(what, d); err != nil {
		return err
	}
	if c.opts.Mode == Async && c.opts.Advance != nil {
		return c.opts.Advance(d)
	}
	return c.advanceShowing(what+" "+readable(d), d)
}

// Close flushes what the world did up to now (events scheduled for this
// very instant included) and prints it, so that a trace written after it
// ends at a clean instant.
func (c *Console) Close() error {
	if c.txn != nil {
		c.txn = nil
		c.errorf("EOF") // the input ended inside a transaction, as etcdctl's reader reports it
	}
	if err := c.w.RunUntil(c.w.Now()); err != nil {
		return err
	}
	c.Poll()
	return nil
}

// do applies a command as a scenario step would: first everything already
// scheduled for this instant, then the command. The runner does the same
// before each step, so a saved session replays to the same run.
func (c *Console) do(cmd sim.Command) (*sim.Op, error) {
	if err := c.w.RunUntil(c.w.Now()); err != nil {
		return nil, err
	}
	c.Poll()
	return c.w.Do(cmd)
}

// start runs j: in Blocking mode, foreground jobs advance time until they
// finish; background jobs and every job in Async mode are left to Poll.
func (c *Console) start(j *job, background bool) error {
	if background {
		c.nextJob++
		j.id = c.nextJob
	}
	j.background = background
	if background || c.opts.Mode == Async {
		if j.poll() {
			return nil
		}
		c.jobs = append(c.jobs, j)
		return nil
	}
	return c.wait(j)
}

// wait advances virtual time, instant by instant, until j is done.
func (c *Console) wait(j *job) error {
	for {
		if j.poll() {
			return nil
		}
		if j.deadline != 0 && c.w.Now() >= j.deadline {
			if j.onDeadline != nil {
				j.onDeadline()
			}
			return nil
		}
		next, ok := c.w.NextEventAt()
		if !ok || (j.deadline != 0 && next > j.deadline) {
			next = j.deadline
		}
		if j.wake > c.w.Now() && (next == 0 || next > j.wake) {
			next = j.wake
		}
		if next == 0 {
			return fmt.Errorf("nothing is scheduled and the command has no deadline: it would never finish")
		}
		if err := c.w.RunUntil(next); err != nil {
			return err
		}
		c.Poll()
		if c.interrupted() {
			c.printf("interrupted at %s\n", c.w.Now())
			return nil
		}
	}
}

// interrupted reports whether a signal asks the command running to stop.
func (c *Console) interrupted() bool { return c.opts.Interrupt.Interrupted() }

// advance lets d of virtual time pass, printing as it goes. At a terminal,
// Ctrl-C stops it early.
func (c *Console) advance(d time.Duration) error {
	return c.advanceShowing("", d)
}

// advanceShowing is advance for the command what, whose progress
// Options.Progress is shown (what "": a slice of a longer command, not
// shown).
func (c *Console) advanceShowing(what string, d time.Duration) error {
	start := c.w.Now()
	end := start.Add(d)
	p := c.opts.Progress
	if what == "" {
		p = nil
	}
	if p != nil {
		p.Start(what, d)
		defer p.End()
	}
	for n := 1; ; n++ {
		next, ok := c.w.NextEventAt()
		if !ok || next > end {
			next = end
		}
		if err := c.w.RunUntil(next); err != nil {
			return err
		}
		c.Poll()
		if c.w.Now() >= end {
			return nil
		}
		if c.interrupted() {
			if p != nil {
				p.End()
				p = nil
			}
			c.printf("interrupted at %s\n", c.w.Now())
			return nil
		}
		if p != nil && n%progressEvery == 0 {
			p.Update(time.Duration(c.w.Now() - start))
		}
	}
}

// flushTrace prints the history events since the last look, when tracing.
func (c *Console) flushTrace() {
	n := c.w.HistoryLen()
	if c.opts.Trace != nil {
		for c.written = max(c.written, c.w.HistoryStart()); c.written < n; c.written++ {
			c.line = c.w.AppendTraceLine(c.line[:0], c.w.EventAt(c.written))
			_, _ = c.opts.Trace.Write(c.line) // the host's writer keeps the error
		}
	}
	if c.trace {
		// The window's world forgets what it no longer draws
		// (ui.Session): what went meanwhile is not printed.
		for i := max(c.traced, c.w.HistoryStart()); i < n; i++ {
			if e := c.w.EventAt(i); !e.IsHeartbeat() || c.heartbeats {
				fmt.Fprintln(c.out, "  "+c.w.Describe(e))
			}
		}
	}
	c.traced = n
}

func (c *Console) printf(format string, args ...any) { fmt.Fprintf(c.out, format, args...) }

func (c *Console) println(s string) { fmt.Fprintln(c.out, s) }

// errorf prints an error the way etcdctl does.
func (c *Console) errorf(format string, args ...any) {
	fmt.Fprintf(c.out, "Error: "+format+"\n", args...)
}

func (c *Console) printViolation(v *sim.Violation) {
	fmt.Fprintf(c.out, "SAFETY VIOLATION: %v\n", v)
}

// path resolves a file name against Options.Dir.
func (c *Console) path(name string) string {
	if filepath.IsAbs(name) || c.opts.Dir == "" {
		return name
	}
	return filepath.Join(c.opts.Dir, name)
}

// writeFile writes data to name whole or not at all (package outfile):
// into a file beside it, renamed over it once written, so that a save
// that fails (a full disk) leaves an earlier save of the same name as it
// was. A name that is not a regular file (a device, a FIFO, a directory,
// a symlink to one) is refused before anything is opened: a FIFO with no
// reader would block the console.
func (c *Console) writeFile(name string, data []byte) error {
	if c.opts.Files != nil {
		return c.opts.Files.WriteFile(name, data)
	}
	if err := outfile.WriteFile(c.path(name), data); err != nil {
		var oe *outfile.Error
		if errors.As(err, &oe) && oe.Err != nil {
			return fmt.Errorf("cannot write %s: %v", name, oe.Err)
		}
		if oe != nil {
			return fmt.Errorf("cannot write %s: %s", name, oe.Why)
		}
		return fmt.Errorf("cannot write %s: %v", name, outfile.Reason(err))
	}
	return nil
}

// writeWith writes name by the rules of writeFile, its bytes given by
// write as it goes rather than held whole (on the disk; Files takes them
// whole).
func (c *Console) writeWith(name string, write func(io.Writer) error) error {
	if c.opts.Files != nil {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			return err
		}
		return c.opts.Files.WriteFile(name, b.Bytes())
	}
	f, err := outfile.Create(c.path(name))
	if err == nil {
		if err = write(f); err != nil {
			f.Abort()
			return fmt.Errorf("cannot write %s: %v", name, outfile.Reason(err))
		}
		err = f.Commit()
	}
	if err != nil {
		var oe *outfile.Error
		if errors.As(err, &oe) && oe.Err != nil {
			return fmt.Errorf("cannot write %s: %v", name, oe.Err)
		}
		if oe != nil {
			return fmt.Errorf("cannot write %s: %s", name, oe.Why)
		}
		return fmt.Errorf("cannot write %s: %v", name, outfile.Reason(err))
	}
	return nil
}

// Files is where the console's files go when not on the disk.
type Files interface {
	WriteFile(name string, data []byte) error
}
