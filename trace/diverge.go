package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Divergence is where two runs of one scenario and seed, differing in a
// setting, first differ: the first event at which their traces are not
// byte for byte the same. Every event before it is the same in both.
type Divergence struct {
	Index int   // the event's index (0: the first event after the header)
	T     int64 // virtual time in nanoseconds: the earlier of the two events
	// A and B are the two events there; nil for a trace that has ended.
	A, B *Event
}

// FirstDivergence reads two traces' events (the lines after the header,
// which the caller has skipped or never wrote) and returns the first at
// which they differ, or nil when they are the same throughout.
func FirstDivergence(a, b io.Reader) (*Divergence, error) {
	ra, rb := bufio.NewReaderSize(a, 64<<10), bufio.NewReaderSize(b, 64<<10)
	for i := 0; ; i++ {
		la, errA := readLine(ra)
		lb, errB := readLine(rb)
		if errA != nil && !errors.Is(errA, io.EOF) {
			return nil, errA
		}
		if errB != nil && !errors.Is(errB, io.EOF) {
			return nil, errB
		}
		if errA != nil && errB != nil {
			return nil, nil // both ended together
		}
		if errA == nil && errB == nil && bytes.Equal(la, lb) {
			continue
		}
		d := &Divergence{Index: i}
		for _, x := range []struct {
			line []byte
			err  error
			to   **Event
		}{{la, errA, &d.A}, {lb, errB, &d.B}} {
			if x.err != nil {
				continue
			}
			var e Event
			if err := decode(x.line, &e); err != nil {
				return nil, fmt.Errorf("event %d: %v", i+1, err)
			}
			*x.to = &e
		}
		switch {
		case d.A == nil:
			d.T = d.B.T
		case d.B == nil:
			d.T = d.A.T
		default:
			d.T = min(d.A.T, d.B.T)
		}
		return d, nil
	}
}

// readLine reads one line without its newline; io.EOF after the last.
func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		frag, err := r.ReadSlice('\n')
		if len(buf)+len(frag) > MaxLineBytes {
			return nil, fmt.Errorf("a line longer than %d bytes", MaxLineBytes)
		}
		buf = append(buf, frag...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) == 0:
			return nil, io.EOF
		case err != nil && !errors.Is(err, io.EOF):
			return nil, err
		}
		return bytes.TrimSuffix(buf, []byte("\n")), nil
	}
}

// Seconds formats virtual nanoseconds as the transcript does: 1.234567s.
func Seconds(ns int64) string {
	us := ns / 1000
	return fmt.Sprintf("%d.%06ds", us/1_000_000, us%1_000_000)
}

// Sentence says where the runs labelled la and lb differ:
// "from 0.128586s the runs differ: etcd-3 is candidate in term 3
// (pre_vote: false) / is pre-candidate in term 2 (pre_vote: true)".
// A nil Divergence says that they do not.
func (d *Divergence) Sentence(la, lb string) string {
	if d == nil {
		return fmt.Sprintf("the runs do not differ (%s / %s): their traces are the same, event for event", la, lb)
	}
	one := func(e *Event, other *Event, label string) string {
		if e == nil {
			return "has ended (" + label + ")"
		}
		s := Describe(*e)
		if other != nil && e.Node != "" && e.Node == other.Node && e != d.A {
			s = s[len(e.Node)+1:] // the member is named once
		}
		if e.T != d.T {
			s += " at " + Seconds(e.T)
		}
		return s + " (" + label + ")"
	}
	a, b := one(d.A, d.B, la), one(d.B, d.A, lb)
	if d.A == nil {
		a = "the run " + a
	}
	return fmt.Sprintf("from %s the runs differ: %s / %s", Seconds(d.T), a, b)
}

// Describe says what an event is, in a few words, from the trace alone:
// "etcd-3 is candidate in term 3", "etcd-1 sends MsgVote (term 3) to etcd-2".
// Every description begins with the event's member, if it has one.
func Describe(e Event) string {
	msg := func() string {
		if e.Msg == nil {
			return "a message"
		}
		s := fmt.Sprintf("%s (term %d", e.Msg.Type, e.Msg.Term)
		if e.Msg.Entries > 0 {
			s += fmt.Sprintf(", %d entries", e.Msg.Entries)
		}
		if e.Msg.Reject {
			s += ", rejected"
		}
		return s + ")"
	}
	switch e.Ev {
	case "send":
		s := fmt.Sprintf("%s sends %s to %s", e.Node, msg(), e.Peer)
		if e.Msg != nil && e.Msg.Arrive > 0 {
			s += ", arriving at " + Seconds(e.Msg.Arrive)
		}
		return s
	case "deliver":
		return fmt.Sprintf("%s receives %s from %s", e.Node, msg(), e.Peer)
	case "drop":
		return fmt.Sprintf("%s's %s to %s is dropped (%s)", e.Node, msg(), e.Peer, e.Reason)
	case "role":
		s := fmt.Sprintf("%s is %s in term %d", e.Node, e.Role, e.Term)
		if e.Role != "leader" && e.Lead != "" && e.Lead != "none" {
			s += ", leader " + e.Lead
		}
		return s
	case "persist":
		return fmt.Sprintf("%s persists %d entries, log ends at %d/%d", e.Node, e.N, e.Term, e.Index)
	case "commit":
		return fmt.Sprintf("%s commits up to %d", e.Node, e.Index)
	case "apply":
		return fmt.Sprintf("%s applies up to %d", e.Node, e.Index)
	case "snapshot":
		return fmt.Sprintf("%s snapshot at %d/%d", e.Node, e.Term, e.Index)
	case "conf":
		return fmt.Sprintf("%s applies conf change at %d: %s", e.Node, e.Index, e.Text)
	case "request":
		return fmt.Sprintf("%s gets request %d: %s", e.Node, e.Op, e.Text)
	case "reply":
		return fmt.Sprintf("%s answers request %d: %s", e.Node, e.Op, e.Text)
	case "watch":
		return fmt.Sprintf("%s watch %d: %s", e.Node, e.Op, e.Text)
	case "caption":
		return "the caption " + fmt.Sprintf("%q", e.Text)
	case "violation":
		return "SAFETY VIOLATION: " + e.Text
	}
	if e.Node != "" {
		return e.Node + " " + e.Text
	}
	return e.Text
}
