package ui

import (
	"errors"
	"io"
	"strings"
	"time"
	"unicode"

	"github.com/raftsim/raftsim/sim"
)

// Console is the interpreter behind the command box: the etcdctl-like
// console of `raftsim shell` (package console) in its Async mode.
// The host injects it through App.NewConsole, so that render/ does not
// depend on the console and its tests can use a small fake.
type Console interface {
	// Exec runs one line at the current virtual time and returns at once;
	// answers print later, from Poll. It returns ErrConsoleQuit for exit
	// and a *sim.Violation when the world has stopped.
	Exec(line string) error
	// Poll prints what arrived since the last call: answers, watch events,
	// trace lines.
	Poll()
}

// ErrConsoleQuit is what a Console returns for exit or quit; in the window
// it closes the command box.
var ErrConsoleQuit = errors.New("quit")

// ConsoleHost is what the App gives a console it makes: the world on
// screen, where to print, and how to ask for virtual time to pass.
type ConsoleHost struct {
	World *sim.World
	Out   io.Writer
	// Advance asks the window to let d of virtual time pass (wait, tick).
	// The window does it after Exec returns, through its session, so that
	// the branch's commands and a scenario's steps apply on the way.
	Advance func(d time.Duration) error
}

// ConsoleFactory makes a console over a world. The App calls it again
// whenever the world on screen is replaced (a seek back, an undo), so the
// console always acts on what is shown.
type ConsoleFactory func(h ConsoleHost) Console

// LineKind says how a scrollback line is drawn.
type LineKind uint8

// The kinds of scrollback lines.
const (
	LineOut   LineKind = iota // what the console printed
	LineEcho                  // a command, after its prompt
	LineError                 // Error: ..., a safety violation
	LineNote                  // the window's own remarks
)

// BoxLine is one line of the command box's scrollback.
type BoxLine struct {
	Text string
	Kind LineKind
}

// maxScrollback bounds the scrollback; older lines are dropped.
const maxScrollback = 2000

// CommandBox is the command box's editing state: the line being typed,
// the history of lines run, and the scrollback of what the console
// printed. It is an io.Writer, the console's Out. It knows nothing of the
// console or the world, so it is tested by itself.
type CommandBox struct {
	Open bool

	line    []rune
	cursor  int
	history []string
	hist    int    // the history entry shown; len(history) while typing anew
	draft   []rune // the new line, kept while the history is browsed

	lines   []BoxLine
	partial string // printed output not yet ended by a newline
	scroll  int    // lines scrolled back from the newest
}

// Line returns the line being typed and the cursor's position in runes.
func (b *CommandBox) Line() (string, int) { return string(b.line), b.cursor }

// History returns the lines run, oldest first.
func (b *CommandBox) History() []string { return b.history }

// Lines returns the whole scrollback, oldest first.
func (b *CommandBox) Lines() []BoxLine { return b.lines }

// Visible returns the n scrollback lines to show, oldest first, and how
// far the view is scrolled back.
func (b *CommandBox) Visible(n int) ([]BoxLine, int) {
	all := b.lines
	if b.partial != "" {
		all = append(all[:len(all):len(all)], BoxLine{Text: b.partial})
	}
	scroll := min(b.scroll, max(0, len(all)-n))
	end := len(all) - scroll
	return all[max(0, end-n):end], scroll
}

// Write appends console output to the scrollback, a line at a time.
func (b *CommandBox) Write(p []byte) (int, error) {
	s := b.partial + string(p)
	parts := strings.Split(s, "\n")
	for _, l := range parts[:len(parts)-1] {
		b.add(BoxLine{Text: strings.TrimRight(l, "\r"), Kind: kindOf(l)})
	}
	b.partial = parts[len(parts)-1]
	return len(p), nil
}

func kindOf(l string) LineKind {
	if strings.HasPrefix(l, "Error:") || strings.HasPrefix(l, "SAFETY VIOLATION") || strings.Contains(l, "] Error:") {
		return LineError
	}
	return LineOut
}

// Note adds a remark of the window's own to the scrollback.
func (b *CommandBox) Note(s string) { b.flushPartial(); b.add(BoxLine{Text: s, Kind: LineNote}) }

// echo adds a command line, after its prompt.
func (b *CommandBox) echo(s string) { b.flushPartial(); b.add(BoxLine{Text: s, Kind: LineEcho}) }

func (b *CommandBox) flushPartial() {
	if b.partial != "" {
		b.add(BoxLine{Text: b.partial, Kind: kindOf(b.partial)})
		b.partial = ""
	}
}

func (b *CommandBox) add(l BoxLine) {
	b.lines = append(b.lines, l)
	if b.scroll > 0 {
		b.scroll++ // keep the lines being read where they are
	}
	if n := len(b.lines); n > maxScrollback {
		b.lines = append(b.lines[:0:0], b.lines[n-maxScrollback:]...)
	}
}

// Type inserts typed text at the cursor. Control characters are dropped
// and a tab becomes a space.
func (b *CommandBox) Type(s string) {
	for _, r := range s {
		if r == '\t' {
			r = ' '
		}
		if unicode.IsControl(r) {
			continue
		}
		b.line = append(b.line[:b.cursor], append([]rune{r}, b.line[b.cursor:]...)...)
		b.cursor++
	}
}

// Key applies an editing key: enter, backspace, delete, left, right, home,
// end, up and down (history), pageup and pagedown (scrollback, by page
// lines). For enter it returns the line to run and true; the line joins
// the history.
func (b *CommandBox) Key(k string, page int) (run string, ok bool) {
	switch k {
	case "enter":
		run = string(b.line)
		if t := strings.TrimSpace(run); t != "" && (len(b.history) == 0 || b.history[len(b.history)-1] != run) {
			b.history = append(b.history, run)
		}
		b.line, b.cursor, b.draft, b.hist, b.scroll = nil, 0, nil, len(b.history), 0
		return run, true
	case "backspace":
		if b.cursor > 0 {
			b.line = append(b.line[:b.cursor-1], b.line[b.cursor:]...)
			b.cursor--
		}
	case "delete":
		if b.cursor < len(b.line) {
			b.line = append(b.line[:b.cursor], b.line[b.cursor+1:]...)
		}
	case "left":
		b.cursor = max(0, b.cursor-1)
	case "right":
		b.cursor = min(len(b.line), b.cursor+1)
	case "home":
		b.cursor = 0
	case "end":
		b.cursor = len(b.line)
	case "up":
		if b.hist > 0 {
			if b.hist == len(b.history) {
				b.draft = append([]rune(nil), b.line...)
			}
			b.hist--
			b.setLine([]rune(b.history[b.hist]))
		}
	case "down":
		if b.hist < len(b.history) {
			b.hist++
			if b.hist == len(b.history) {
				b.setLine(b.draft)
			} else {
				b.setLine([]rune(b.history[b.hist]))
			}
		}
	case "pageup":
		b.scroll = min(b.scroll+max(1, page-1), max(0, len(b.lines)-page+1))
	case "pagedown":
		b.scroll = max(0, b.scroll-max(1, page-1))
	}
	return "", false
}

// ScrollBy scrolls the scrollback by n lines (positive: back in time).
func (b *CommandBox) ScrollBy(n, page int) {
	b.scroll = max(0, min(b.scroll+n, len(b.lines)-page+1))
}

func (b *CommandBox) setLine(r []rune) {
	b.line = append([]rune(nil), r...)
	b.cursor = len(b.line)
}

// isOpenKey reports whether a key or typed text opens the command box.
func isOpenKey(s string) bool { return s == ":" || s == "`" }
