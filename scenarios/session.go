package scenarios

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/raftsim/raftsim/sim"
)

// A recorded session is the scenario that raftsim serve writes as the
// session goes (docs/scenarios.md, "Recorded sessions"): a head, the lines
// before steps:, that says session: true; the line steps:; then one step
// per command, each an item of its own that starts with "- " in the first
// column, appended as the command is logged. Nothing marshals the whole
// session, and a file cut short after any whole item (the process was
// killed) is still a scenario that replays up to its last command.
//
// Such a file may be of any length: the 1 MiB of MaxFileBytes and the
// MaxSteps steps bound hand-written scenarios, whose parse costs about a
// hundred times their size. A session is read as a stream, one item at a
// time, and only its steps are kept.

// SessionWriter writes a recorded session as it grows.
type SessionWriter struct {
	w    *bufio.Writer
	n    int
	last sim.Time
	err  error
}

// NewSessionWriter writes the head of a session on cfg (Marshal's, with
// session: true) to w, and returns the writer of its steps. Nothing is
// flushed until Flush.
func NewSessionWriter(w io.Writer, opts MarshalOptions, cfg sim.Config) (*SessionWriter, error) {
	name := opts.Name
	if name == "" {
		name = SessionName
	}
	for _, m := range cfg.Members {
		if !nameRE.MatchString(m) {
			return nil, fmt.Errorf("member name %q cannot be written in a scenario: want lower-case letters, digits and dashes", m)
		}
	}
	head, err := MarshalScenario(&Scenario{Name: name, Title: Text{En: opts.Title}, Seed: cfg.Seed, SeedSet: true, Config: cfg, Session: true})
	if err != nil {
		return nil, err
	}
	const empty = "steps: []\n"
	if !bytes.HasSuffix(head, []byte(empty)) {
		return nil, fmt.Errorf("the head of a session does not end in %q", empty)
	}
	sw := &SessionWriter{w: bufio.NewWriterSize(w, 64<<10)}
	sw.w.Write(head[:len(head)-len(empty)])
	sw.w.WriteString("steps:\n")
	return sw, nil
}

// Add appends the step that replays c.
func (sw *SessionWriter) Add(c sim.Command) error {
	if sw.err != nil {
		return sw.err
	}
	if c.At < sw.last {
		return fmt.Errorf("command %d (%s) at %s is earlier than the one before it at %s", sw.n+1, c.Kind, c.At, sw.last)
	}
	st, err := stepOf(c)
	if err != nil {
		return fmt.Errorf("command %d (%s at %s): %w", sw.n+1, c.Kind, c.At, err)
	}
	if err := sw.addStep(&st); err != nil {
		return fmt.Errorf("command %d (%s at %s): %w", sw.n+1, c.Kind, c.At, err)
	}
	sw.last = c.At
	sw.n++
	return nil
}

func (sw *SessionWriter) addStep(st *Step) error {
	n, err := scenarioStepNode(st)
	if err != nil {
		return err
	}
	item, err := yaml.Marshal(&yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{n}})
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(item, []byte("- ")) {
		return fmt.Errorf("a step written as %.40q, not as an item", item)
	}
	_, sw.err = sw.w.Write(item)
	return sw.err
}

// Count is how many commands were added.
func (sw *SessionWriter) Count() int { return sw.n }

// End appends the final wait that takes a replay to end, the moment the
// session ended, when that is later than the last command.
func (sw *SessionWriter) End(end sim.Time) error {
	if sw.err != nil || end <= sw.last {
		return sw.err
	}
	st := Step{Kind: StepWait, Wait: time.Duration(end - sw.last)}
	if err := sw.addStep(&st); err != nil {
		return err
	}
	sw.last = end
	return nil
}

// Flush writes what is buffered to the underlying writer.
func (sw *SessionWriter) Flush() error {
	if sw.err != nil {
		return sw.err
	}
	sw.err = sw.w.Flush()
	return sw.err
}

// sessionHead reports whether data starts as a recorded session does: a
// line session: true before the line steps:.
func sessionHead(data []byte) bool {
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		switch string(line) {
		case "session: true":
			return true
		case "steps:", "steps: []":
			return false
		}
	}
	return false
}

// ParseSession reads a recorded session from r as a stream: its head is
// parsed as a scenario's, then each step item on its own, and the steps
// are validated as a scenario's are. filename is used in positions.
func ParseSession(filename string, r io.Reader) (*Scenario, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var head bytes.Buffer
	line := 0
	readLine := func() ([]byte, error) {
		l, err := br.ReadBytes('\n')
		if len(l) > 0 {
			line++
			return l, nil
		}
		return nil, err
	}
	for {
		l, err := readLine()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, ErrorList{{Pos: Pos{File: filename, Line: line + 1, Col: 1}, Msg: "a recorded session (session: true) without its steps: line"}}
			}
			return nil, fmt.Errorf("reading %s: %w", filename, err)
		}
		if string(bytes.TrimRight(l, "\r\n")) == "steps:" {
			break
		}
		head.Write(l)
		if head.Len() > MaxFileBytes {
			return nil, ErrorList{{Pos: Pos{File: filename, Line: line, Col: 1}, Msg: fmt.Sprintf("the head of a recorded session (the lines before steps:) is more than %s", FormatBytes(MaxFileBytes))}}
		}
	}
	stepsLine := line
	head.WriteString("steps: []\n")
	p := &parser{file: filename, data: head.Bytes()}
	s := p.head()
	if len(p.errs) > 0 || s == nil {
		return nil, p.errs.sort()
	}
	if !s.Session {
		return nil, ErrorList{{Pos: Pos{File: filename, Line: 1, Col: 1}, Msg: "not a recorded session: its head has no session: true"}}
	}
	p.data = nil
	s.Steps = []Step{}
	var item []byte
	itemLine := 0
	const maxErrors = 100
	flush := func(last bool) {
		if len(item) == 0 || len(p.errs) >= maxErrors {
			item = item[:0]
			return
		}
		var doc yaml.Node
		if err := p.safeDecode(yaml.NewDecoder(bytes.NewReader(item)), &doc); err != nil {
			if last && item[len(item)-1] != '\n' {
				// The last item, cut short: serve was killed while
				// writing it. The session replays up to the one before.
				item = item[:0]
				return
			}
			e := syntaxError(filename, item, err)
			e.Pos.Line += itemLine - 1
			p.errs = append(p.errs, e)
			item = item[:0]
			return
		}
		// The last item cut short (serve was killed while writing it) is
		// left out, whatever it reads as: the session replays up to the
		// one before.
		cut := last && item[len(item)-1] != '\n'
		errs, steps := len(p.errs), len(s.Steps)
		defer func() {
			if cut && len(p.errs) > errs {
				p.errs, s.Steps = p.errs[:errs], s.Steps[:steps]
			}
		}()
		shiftLines(&doc, itemLine-1)
		if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.SequenceNode {
			for _, it := range doc.Content[0].Content {
				if st, ok := p.step(it); ok {
					s.Steps = append(s.Steps, st)
				}
			}
		} else {
			p.errorf(Pos{File: filename, Line: itemLine, Col: 1}, "a step of a recorded session: want an item starting with - ")
		}
		item = item[:0]
	}
	for {
		l, err := readLine()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("reading %s: %w", filename, err)
			}
			break
		}
		switch {
		case bytes.HasPrefix(l, []byte("- ")) || l[0] == '-' && l[len(l)-1] != '\n':
			flush(false)
			item, itemLine = append(item, l...), line
		case l[len(l)-1] != '\n':
			// The last line, cut short: part of the last item.
			item = append(item, l...)
		case len(item) > 0 && (l[0] == ' ' || l[0] == '\t' || l[0] == '\n' || l[0] == '\r' || l[0] == '#'):
			item = append(item, l...) // a step written over several lines
		case len(bytes.TrimSpace(l)) == 0 || l[0] == '#':
		default:
			p.errorf(Pos{File: filename, Line: line, Col: 1}, "a recorded session holds nothing after its steps (line %d) but steps, each starting with - in the first column", stepsLine)
		}
	}
	flush(true)
	if len(p.errs) > 0 {
		return nil, p.errs.sort()
	}
	p.validate(s)
	if len(p.errs) > 0 {
		return nil, p.errs.sort()
	}
	return s, nil
}

// shiftLines adds d to the line of every node under n.
func shiftLines(n *yaml.Node, d int) {
	n.Line += d
	for _, c := range n.Content {
		shiftLines(c, d)
	}
}

// loadSession reads the file at path as a recorded session, of any
// length, if it is one (ok); otherwise it reads nothing more.
func loadSession(path string) (s *Scenario, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false, nil
	}
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, head)
	if !sessionHead(head[:n]) {
		if n < len(head) || !bytes.Contains(head[:n], []byte("\nsession: true")) {
			return nil, false, nil
		}
		// A head longer than what was read (many clients): read it all.
		big, _ := io.ReadAll(io.LimitReader(io.MultiReader(bytes.NewReader(head[:n]), f), MaxFileBytes))
		if !sessionHead(big) {
			return nil, false, nil
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, true, err
	}
	s, err = ParseSession(path, f)
	return s, true, err
}

// WriteSession writes a whole recorded session, cfg and cmds up to end,
// to w one step at a time, as serve writes its session as it goes: no
// step waits for the others to be marshalled, and nothing holds the whole
// session's text at once. Its name is opts.Name (SessionName if empty).
func WriteSession(w io.Writer, opts MarshalOptions, cfg sim.Config, cmds []sim.Command, end sim.Time) error {
	sw, err := NewSessionWriter(w, opts, cfg)
	if err != nil {
		return err
	}
	for _, c := range cmds {
		if err := sw.Add(c); err != nil {
			return err
		}
	}
	if err := sw.End(end); err != nil {
		return err
	}
	return sw.Flush()
}
