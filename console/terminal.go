package console

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"
	"unicode/utf8"

	"golang.org/x/term"
)

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// Terminal runs an interactive session: line editing and history (up and
// down arrows) from golang.org/x/term, read with no goroutine. The terminal
// is in raw mode only while a line is being typed; while a command runs it
// is back in normal mode, so Ctrl-C sends SIGINT, which stops a streaming
// watch. Ctrl-C at the prompt clears the line; Ctrl-D on an empty line ends
// the session.
type Terminal struct {
	in  *os.File
	out io.Writer
	sig chan os.Signal
}

// NewTerminal prepares in (a terminal) for a session that writes to out.
func NewTerminal(in *os.File, out io.Writer) *Terminal {
	t := &Terminal{in: in, out: out, sig: make(chan os.Signal, 4)}
	return t
}

// Options returns console options for this terminal: blocking mode,
// interactive, interrupted by Ctrl-C and paced by the wall clock. The
// wall clock only paces how fast a watch shows virtual time passing; it
// never reaches the simulation.
func (t *Terminal) Options(base Options) Options {
	base.Out = t.out
	base.Mode = Blocking
	base.Interactive = true
	base.Interrupted = func() bool {
		select {
		case <-t.sig:
			return true
		default:
			return false
		}
	}
	base.Pace = time.Sleep
	return base
}

// Run reads and runs lines until exit, Ctrl-D or a safety violation.
func (t *Terminal) Run(c *Console) error {
	signal.Notify(t.sig, os.Interrupt)
	defer signal.Stop(t.sig)
	fd := int(t.in.Fd())
	rw := &ctrlC{r: t.in, w: t.out}
	tt := term.NewTerminal(rw, "")
	for {
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
		if errors.Is(err, io.EOF) {
			fmt.Fprintln(t.out)
			return c.Close()
		}
		if err != nil && !errors.Is(err, term.ErrPasteIndicator) {
			return err
		}
		t.drain()
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

// maxTerminalLine is the longest line golang.org/x/term lets a user type
// (its maxLineLength); keys typed beyond it are dropped.
const maxTerminalLine = 4096

// drain forgets a Ctrl-C pressed before a command started.
func (t *Terminal) drain() {
	for {
		select {
		case <-t.sig:
		default:
			return
		}
	}
}

// ctrlC passes terminal input to x/term, which ends the session on Ctrl-C;
// here Ctrl-C clears the line instead (it becomes Ctrl-U), as in a shell.
type ctrlC struct {
	r io.Reader
	w io.Writer
}

func (c *ctrlC) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i := range p[:n] {
		if p[i] == 3 {
			p[i] = 0x15
		}
	}
	return n, err
}

func (c *ctrlC) Write(p []byte) (int, error) { return c.w.Write(p) }
