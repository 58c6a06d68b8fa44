package trace

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

// TestReadsEveryLessonsTrace: the reader gives back every event of every
// lesson's trace, in order, with its time, kind and member.
func TestReadsEveryLessonsTrace(t *testing.T) {
	lessons, err := scenarios.Lessons()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lessons {
		s, err := scenarios.LoadLesson(l.Name)
		if err != nil {
			t.Fatal(err)
		}
		r, err := scenarios.NewRunner(s, scenarios.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = r.Run()
		w := r.World()
		var buf bytes.Buffer
		if err := w.WriteTrace(&buf, s.Name); err != nil {
			t.Fatal(err)
		}
		h, events, err := ReadAll(&buf)
		if err != nil {
			t.Fatalf("%s: %v", l.Name, err)
		}
		if h.Scenario != s.Name || h.Seed != w.Seed() || len(h.Members) == 0 {
			t.Fatalf("%s: header %+v", l.Name, h)
		}
		if len(events) != w.HistoryLen() {
			t.Fatalf("%s: read %d events, the run has %d", l.Name, len(events), w.HistoryLen())
		}
		for i, e := range events {
			want := w.EventAt(i)
			if e.T != int64(want.At) || e.Ev != want.Kind.String() {
				t.Fatalf("%s: event %d is %s at %d, want %s at %d", l.Name, i, e.Ev, e.T, want.Kind, want.At)
			}
			if want.Kind == sim.EvSend && (e.Msg == nil || e.Msg.Type != want.Msg.Type.String() || e.Msg.ID != want.Msg.ID) {
				t.Fatalf("%s: event %d: msg %+v, want %+v", l.Name, i, e.Msg, want.Msg)
			}
		}
	}
}

// TestBadTraces: each damaged trace gets an error naming its line.
func TestBadTraces(t *testing.T) {
	header := `{"schema":1,"seed":1,"members":["n1"]}` + "\n"
	for _, tc := range []struct {
		trace, want string
	}{
		{"", "line 1: an empty trace"},
		{"not json\n", "line 1: a bad header"},
		{`{"schema":2}` + "\n", "line 1: schema 2"},
		{header + `{"t":5,"ev":"fault","node":"n1"}` + "\n" + `{"t":4,"ev":"fault"}` + "\n", "line 3: time goes backwards"},
		{header + `{"t":5,"ev":"explode"}` + "\n", `line 2: unknown event kind "explode"`},
		{header + `{"t":5,"ev":"send"}` + "\n", "line 2: a send event without its msg"},
		{header + `{"t":5,"ev":"fault"} {"t":6}` + "\n", "line 2: more than one JSON value"},
		{header + `{"t":"soon","ev":"fault"}` + "\n", "line 2: json"},
		{header + `{"t":1,"ev":"caption","text":"` + strings.Repeat("x", MaxLineBytes) + `"}` + "\n" + `{"t":2,"ev":"fault"}` + "\n", "line 2: longer than"},
	} {
		_, _, err := ReadAll(strings.NewReader(tc.trace))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.60q: got %v, want an error with %q", tc.trace, err, tc.want)
		}
	}
}

// TestKindsAreTheSimulators: the reader knows every kind of event the
// simulator writes, and no other.
func TestKindsAreTheSimulators(t *testing.T) {
	var kinds []string
	for k := sim.EventKind(0); k.String() != "event(?)"; k++ {
		kinds = append(kinds, k.String())
	}
	if !slices.Equal(kinds, Kinds) {
		t.Fatalf("the simulator writes %v, the reader knows %v", kinds, Kinds)
	}
}
