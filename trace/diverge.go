package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/raftsim/raftsim/i18n"
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
// "from 0.128586s the runs differ: etcd-3 is pre-candidate in term 1
// (pre_vote: true) / is candidate in term 2 (pre_vote: false)".
// A nil Divergence says that they do not.
func (d *Divergence) Sentence(la, lb string) string { return d.SentenceIn(i18n.En, la, lb) }

// SentenceIn is Sentence in l.
func (d *Divergence) SentenceIn(l i18n.Lang, la, lb string) string {
	if d == nil {
		return l.F("the runs do not differ (%s / %s): their traces are the same, event for event", la, lb)
	}
	one := func(e *Event, other *Event, label string) string {
		if e == nil {
			return l.F("the run has ended (%s)", label)
		}
		s := DescribeIn(l, *e)
		if other != nil && e.Node != "" && e.Node == other.Node && e != d.A {
			s = strings.TrimPrefix(strings.TrimPrefix(s, e.Node), " ") // the member is named once
		}
		if e.T != d.T {
			s += l.F(" at %s", Seconds(e.T))
		}
		return s + " (" + label + ")"
	}
	return l.F("from %s the runs differ: %s / %s", Seconds(d.T), one(d.A, d.B, la), one(d.B, d.A, lb))
}

// Describe says what an event is, in a few words, from the trace alone:
// "etcd-3 is candidate in term 3", "etcd-1 sends MsgVote (term 3) to etcd-2".
// Every description begins with the event's member, if it has one.
func Describe(e Event) string { return DescribeIn(i18n.En, e) }

// DescribeIn is Describe in l.
func DescribeIn(l i18n.Lang, e Event) string {
	msg := func() string {
		if e.Msg == nil {
			return l.T("a message")
		}
		more := ""
		if e.Msg.Entries > 0 {
			more += l.F(", %d entries", e.Msg.Entries)
		}
		if e.Msg.Reject {
			more += l.T(", rejected")
		}
		return l.F("%s (term %d%s)", e.Msg.Type, e.Msg.Term, more)
	}
	switch e.Ev {
	case "send":
		s := l.F("%s sends %s to %s", e.Node, msg(), e.Peer)
		if e.Msg != nil && e.Msg.Arrive > 0 {
			s += l.F(", arriving at %s", Seconds(e.Msg.Arrive))
		}
		return s
	case "deliver":
		return l.F("%s receives %s from %s", e.Node, msg(), e.Peer)
	case "drop":
		return l.F("%s's %s to %s is dropped (%s)", e.Node, msg(), e.Peer, e.Reason)
	case "role":
		s := l.F("%s is %s in term %d", e.Node, l.T(e.Role), e.Term)
		if e.Role != "leader" && e.Lead != "" && e.Lead != "none" {
			s += l.F(", leader %s", e.Lead)
		}
		return s
	case "persist":
		return l.F("%s persists %d entries, log ends at %d/%d", e.Node, e.N, e.Term, e.Index)
	case "commit":
		return l.F("%s commits up to %d", e.Node, e.Index)
	case "apply":
		return l.F("%s applies up to %d", e.Node, e.Index)
	case "snapshot":
		return l.F("%s snapshot at %d/%d", e.Node, e.Term, e.Index)
	case "conf":
		return l.F("%s applies conf change at %d: %s", e.Node, e.Index, e.Text)
	case "request":
		return l.F("%s gets request %d: %s", e.Node, e.Op, e.Text)
	case "reply":
		return l.F("%s answers request %d: %s", e.Node, e.Op, e.Text)
	case "watch":
		return l.F("%s watch %d: %s", e.Node, e.Op, e.Text)
	case "caption":
		return l.F("the caption %q", e.Text)
	case "violation":
		return l.T("SAFETY VIOLATION: ") + e.Text
	}
	if e.Node != "" {
		return e.Node + " " + e.Text
	}
	return e.Text
}
