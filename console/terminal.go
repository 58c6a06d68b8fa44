package console

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/raftsim/raftsim/interrupt"
)

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// Terminal runs an interactive session: line editing and history (up and
// down arrows) from golang.org/x/term. The terminal is in raw mode only
// while a line is being typed; while a command runs it is back in normal
// mode, so Ctrl-C sends SIGINT, which stops the command (a streaming watch,
// a long wait) and not the session. Ctrl-C at the prompt clears the line;
// Ctrl-D on an empty line ends the session, and so does SIGTERM, at once.
// A wait that takes more than a few seconds of wall time shows how far it
// has gone.
//
// The keys are read by a goroutine, which only passes them on, so that a
// signal that comes while the prompt waits for a key is seen at once.
type Terminal struct {
	in       *os.File
	out      *progressWriter
	stop     *interrupt.Catcher
	keys     chan keys
	progress terminalProgress
}

// keys is what one read of the terminal gave.
type keys struct {
	b   []byte
	err error
}

// NewTerminal prepares in (a terminal) for a session that writes to out,
// interrupted by what stop catches (nil: by nothing).
func NewTerminal(in *os.File, out io.Writer, stop *interrupt.Catcher) *Terminal {
	t := &Terminal{in: in, out: &progressWriter{w: out}, stop: stop}
	t.progress.out = t.out
	return t
}

// Options returns console options for this terminal: blocking mode,
// interactive, interrupted by Ctrl-C, paced by the wall clock and showing
// the progress of long waits. The wall clock only paces how fast a watch
// shows virtual time passing, and when progress is drawn; it never reaches
// the simulation.
func (t *Terminal) Options(base Options) Options {
	base.Out = t.out
	base.Mode = Blocking
	base.Interactive = true
	base.Interrupt = t.stop
	base.Pace = time.Sleep
	base.Progress = &t.progress
	return base
}

// errSignalled is what reading a key returns when a signal came instead.
var errSignalled = errors.New("signalled")

// Run reads and runs lines until exit, Ctrl-D, a safety violation or
// SIGTERM (an error wrapping ErrInterrupted).
func (t *Terminal) Run(c *Console) error {
	t.keys = make(chan keys)
	go func() {
		for {
			b := make([]byte, 256)
			n, err := t.in.Read(b)
			t.keys <- keys{b[:n], err}
			if err != nil {
				return
			}
		}
	}()
	fd := int(t.in.Fd())
	rw := &ctrlC{t: t}
	tt := term.NewTerminal(rw, "")
	for {
		if t.stop.Signal() == syscall.SIGTERM {
			return t.end(c)
		}
		// A Ctrl-C that came between commands is forgotten.
		t.stop.Rearm()
		if w, h, err := term.GetSize(fd); err == nil {
			_ = tt.SetSize(w, h)
		}
		tt.SetPrompt(c.Prompt())
		old, err := term.MakeRaw(fd)
		if err != nil {
			return fmt.Errorf("terminal: %w", err)
		}
		line, err := tt.ReadLine()
		_ = term.Restore(fd, old)
		switch {
		case errors.Is(err, errSignalled):
			fmt.Fprintln(t.out)
			continue // SIGTERM ends the session above; SIGINT clears the line
		case errors.Is(err, io.EOF):
			fmt.Fprintln(t.out)
			return c.Close()
		case err != nil && !errors.Is(err, term.ErrPasteIndicator):
			return err
		}
		if utf8.RuneCountInString(line) >= maxTerminalLine {
			// x/term stops taking keys at this length: the line was cut.
			c.errorf("a line typed at a terminal holds at most %d characters, and this one was cut there; "+
				"for a longer request, pipe the commands in (raftsim shell < commands.txt)", maxTerminalLine)
			continue
		}
		err = c.Exec(line)
		if errors.Is(err, ErrQuit) {
			return c.Close()
		}
		if err != nil {
			return err
		}
	}
}

// end ends a session that SIGTERM stopped.
func (t *Terminal) end(c *Console) error {
	if err := c.Close(); err != nil {
		return err
	}
	return fmt.Errorf("%w by %s at virtual time %s", ErrInterrupted, interrupt.Name(t.stop.Signal()), c.w.Now())
}

// maxTerminalLine is the longest line golang.org/x/term lets a user type
// (its maxLineLength); keys typed beyond it are dropped.
const maxTerminalLine = 4096

// ctrlC passes terminal input to x/term, which ends the session on Ctrl-C;
// here Ctrl-C clears the line instead (it becomes Ctrl-U), as in a shell.
// A signal while it waits for a key ends the read with errSignalled.
type ctrlC struct {
	t       *Terminal
	pending []byte
	err     error
}

func (c *ctrlC) Read(p []byte) (int, error) {
	if len(c.pending) == 0 && c.err == nil {
		select {
		case k := <-c.t.keys:
			c.pending, c.err = k.b, k.err
		case <-c.t.stop.Done():
			return 0, errSignalled
		}
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	for i := range p[:n] {
		if p[i] == 3 {
			p[i] = 0x15
		}
	}
	if n == 0 && c.err != nil {
		return 0, c.err
	}
	return n, nil
}

func (c *ctrlC) Write(p []byte) (int, error) { return c.t.out.Write(p) }

// progressAfter is how long a wait runs, in wall time, before its progress
// is shown; progressRedraw is how often it is redrawn then.
const (
	progressAfter  = 2 * time.Second
	progressRedraw = 250 * time.Millisecond
)

// terminalProgress draws the progress of a long wait on one line that it
// rewrites in place:
//
//	wait 999h: 3h12m5s of 999h (0.3%) in 12s, about 1h3m left; Ctrl-C stops it
type terminalProgress struct {
	out         *progressWriter
	what        string
	total       time.Duration
	start, last time.Time
}

func (p *terminalProgress) Start(what string, total time.Duration) {
	p.what, p.total, p.start, p.last = what, total, time.Now(), time.Time{}
}

func (p *terminalProgress) Update(done time.Duration) {
	now := time.Now()
	spent := now.Sub(p.start)
	if spent < progressAfter || now.Sub(p.last) < progressRedraw || done <= 0 {
		return
	}
	p.last = now
	left := time.Duration(float64(spent) * float64(p.total-done) / float64(done))
	p.out.show(fmt.Sprintf("%s: %s of %s (%.1f%%) in %s, about %s left; Ctrl-C stops it",
		p.what, readable(done), readable(p.total), 100*float64(done)/float64(p.total), readable(spent), readable(left)))
}

func (p *terminalProgress) End() { p.out.clear() }

// readable rounds d for a person to read: to the second from a minute
// up, to the millisecond below, without zero minutes and seconds (999h,
// not 999h0m0s).
func readable(d time.Duration) string {
	if d < time.Minute {
		return d.Round(time.Millisecond).String()
	}
	s := d.Round(time.Second).String()
	s = strings.TrimSuffix(s, "0s")
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// progressWriter is the terminal's output with a progress line that stays
// at the bottom: anything else written first clears it.
type progressWriter struct {
	w     io.Writer
	shown bool
}

func (p *progressWriter) Write(b []byte) (int, error) {
	p.clear()
	return p.w.Write(b)
}

// show draws line in place of the progress line.
func (p *progressWriter) show(line string) {
	fmt.Fprintf(p.w, "\r%s\033[K", line)
	p.shown = true
}

// clear erases the progress line, if one is shown.
func (p *progressWriter) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}
