// Package trace reads the JSON Lines traces that raftsim run --trace
// writes (see docs/scenarios.md, "Exit codes and the trace"): a header
// line, then one event per line in virtual-time order. Tests read traces
// with it to check what a run did, and it is fuzzed: a trace is input like
// any other, and a damaged or hostile one gets an error with its line, in
// bounded time and memory.
package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Header is a trace's first line.
type Header struct {
	Schema   int      `json:"schema"`
	Seed     uint64   `json:"seed"`
	Scenario string   `json:"scenario,omitempty"`
	Members  []string `json:"members"`
	Clients  []string `json:"clients,omitempty"`
}

// Msg is what a trace says of a raft message.
type Msg struct {
	ID        uint64 `json:"id"`
	Type      string `json:"type"`
	Term      uint64 `json:"term"`
	LogTerm   uint64 `json:"logterm"`
	Index     uint64 `json:"index"`
	Commit    uint64 `json:"commit"`
	Entries   uint64 `json:"entries"`
	Reject    bool   `json:"reject"`
	Forwarded bool   `json:"forwarded"`
	Arrive    int64  `json:"arrive"` // a send: when it arrives, or vanishes if lost
}

// Event is one line after the header. Fields a kind of event does not
// have are zero.
type Event struct {
	T      int64  `json:"t"` // virtual time, in nanoseconds
	Ev     string `json:"ev"`
	Node   string `json:"node"`
	Peer   string `json:"peer"`
	Msg    *Msg   `json:"msg"`
	Reason string `json:"reason"`
	Role   string `json:"role"`
	Term   uint64 `json:"term"`
	Lead   string `json:"lead"`
	Vote   string `json:"vote"`
	Index  uint64 `json:"index"`
	N      uint64 `json:"n"`
	Op     uint64 `json:"op"`
	Text   string `json:"text"`
}

// Kinds are the event kinds of schema 1.
var Kinds = []string{"send", "deliver", "drop", "role", "persist", "commit", "apply", "snapshot",
	"conf", "request", "reply", "watch", "fault", "caption", "violation"}

// MaxLineBytes bounds one line of a trace: an event's text holds at most a
// request's key and value (etcd takes 1.5 MiB), quoted.
const MaxLineBytes = 8 << 20

// Reader reads a trace one event at a time.
type Reader struct {
	r      *bufio.Reader
	header Header
	line   int
	last   int64
	buf    []byte
}

// NewReader reads the header of the trace in r.
func NewReader(r io.Reader) (*Reader, error) {
	tr := &Reader{r: bufio.NewReaderSize(r, 64<<10)}
	line, err := tr.next()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("line 1: an empty trace: want a header line like {\"schema\":1,...}")
	}
	if err != nil {
		return nil, err
	}
	if err := decode(line, &tr.header); err != nil {
		return nil, fmt.Errorf("line 1: a bad header: %v", err)
	}
	if tr.header.Schema != 1 {
		return nil, fmt.Errorf("line 1: schema %d: this reader knows schema 1", tr.header.Schema)
	}
	return tr, nil
}

// Header returns the trace's header.
func (tr *Reader) Header() Header { return tr.header }

// Next returns the next event, or io.EOF after the last.
func (tr *Reader) Next() (Event, error) {
	line, err := tr.next()
	if err != nil {
		return Event{}, err
	}
	var e Event
	if err := decode(line, &e); err != nil {
		return Event{}, fmt.Errorf("line %d: %v", tr.line, err)
	}
	switch {
	case !slices.Contains(Kinds, e.Ev):
		return Event{}, fmt.Errorf("line %d: unknown event kind %q", tr.line, e.Ev)
	case e.T < tr.last:
		return Event{}, fmt.Errorf("line %d: time goes backwards, from %d to %d", tr.line, tr.last, e.T)
	case (e.Ev == "send" || e.Ev == "deliver" || e.Ev == "drop") && e.Msg == nil:
		return Event{}, fmt.Errorf("line %d: a %s event without its msg", tr.line, e.Ev)
	}
	tr.last = e.T
	return e, nil
}

// next returns the next line, without its newline. A line longer than
// MaxLineBytes is an error, read to its end but not kept.
func (tr *Reader) next() ([]byte, error) {
	tr.buf = tr.buf[:0]
	for {
		frag, err := tr.r.ReadSlice('\n')
		if len(tr.buf)+len(frag) > MaxLineBytes {
			tr.line++
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = tr.r.ReadSlice('\n')
			}
			return nil, fmt.Errorf("line %d: longer than %d bytes", tr.line, MaxLineBytes)
		}
		tr.buf = append(tr.buf, frag...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(tr.buf) == 0:
			return nil, io.EOF
		case err != nil && !errors.Is(err, io.EOF):
			return nil, err
		}
		tr.line++
		return bytes.TrimSuffix(tr.buf, []byte("\n")), nil
	}
}

// decode decodes the one JSON object of a line. Fields it does not know
// are left alone: a later version may add some within schema 1.
func decode(line []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value on the line")
	}
	return nil
}

// ReadAll reads a whole trace.
func ReadAll(r io.Reader) (Header, []Event, error) {
	tr, err := NewReader(r)
	if err != nil {
		return Header{}, nil, err
	}
	var events []Event
	for {
		e, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return tr.header, events, nil
		}
		if err != nil {
			return tr.header, events, err
		}
		events = append(events, e)
	}
}
