package export_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/raftsim/raftsim/export"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

// runLesson runs a built-in lesson headless and returns its world.
func runLesson(t *testing.T, name string) *sim.World {
	t.Helper()
	s, err := scenarios.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	r, err := scenarios.NewRunner(s, scenarios.RunOptions{Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(); err != nil {
		t.Fatal(err)
	}
	return r.World()
}

// svgGroups parses an SVG and returns, for each <g> whose class includes
// want, its attributes.
func svgGroups(t *testing.T, svg []byte, want string) []map[string]string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	var out []map[string]string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG does not parse: %v", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "g" {
			continue
		}
		attrs := map[string]string{}
		for _, a := range se.Attr {
			attrs[a.Name.Local] = a.Value
		}
		if strings.Contains(" "+attrs["class"]+" ", " "+want+" ") {
			out = append(out, attrs)
		}
	}
	return out
}

// expectedArrows counts, from the trace, the arrows a diagram of the window
// must hold: one per arrival (delivery or drop) of each message sent in
// it, or one for a message still in flight.
func expectedArrows(w *sim.World, from, to sim.Time, heartbeats bool) (arrows int, dropped int) {
	sent := map[uint64]bool{}
	arrived := map[uint64]bool{}
	for i := range w.HistoryLen() {
		e := w.EventAt(i)
		switch e.Kind {
		case sim.EvSend:
			if e.At >= from && e.At <= to && (heartbeats || !e.IsHeartbeat()) {
				sent[e.Msg.ID] = true
			}
		case sim.EvDeliver, sim.EvDrop:
			if sent[e.Msg.ID] {
				arrows++
				arrived[e.Msg.ID] = true
				if e.Kind == sim.EvDrop {
					dropped++
				}
			}
		}
	}
	return arrows + len(sent) - len(arrived), dropped
}

func TestLamportDrawsEveryMessage(t *testing.T) {
	for _, tc := range []struct {
		lesson     string
		from, to   time.Duration
		heartbeats bool
	}{
		{"leader-crash", 0, 0, false},
		{"leader-crash", 0, 0, true},
		{"split-brain", 500 * time.Millisecond, 2 * time.Second, true},
		{"stale-read", 0, 0, false},
	} {
		w := runLesson(t, tc.lesson)
		var b bytes.Buffer
		opt := export.LamportOptions{From: sim.Time(tc.from), To: sim.Time(tc.to), Heartbeats: tc.heartbeats, Title: tc.lesson}
		if err := export.Lamport(&b, w, opt); err != nil {
			t.Fatal(err)
		}
		to := sim.Time(tc.to)
		if to == 0 {
			to = w.Now()
		}
		want, wantDropped := expectedArrows(w, sim.Time(tc.from), to, tc.heartbeats)
		groups := svgGroups(t, b.Bytes(), "msg")
		dropped := len(svgGroups(t, b.Bytes(), "dropped"))
		if len(groups) != want || dropped != wantDropped {
			t.Errorf("%s %v-%v heartbeats=%v: %d arrows (%d dropped), the trace has %d (%d dropped)",
				tc.lesson, tc.from, tc.to, tc.heartbeats, len(groups), dropped, want, wantDropped)
		}
		if want == 0 {
			t.Errorf("%s: no messages in the window: the test shows nothing", tc.lesson)
		}
		for _, g := range groups {
			if g["data-id"] == "" || !strings.HasPrefix(g["data-type"], "Msg") {
				t.Errorf("%s: an arrow without its message: %v", tc.lesson, g)
				break
			}
		}
		if n := len(svgGroups(t, b.Bytes(), "leader")); n == 0 {
			t.Errorf("%s: no leader term shaded", tc.lesson)
		}
	}
}

func TestLamportRefusesABackwardWindow(t *testing.T) {
	w := runLesson(t, "first-election")
	if err := export.Lamport(io.Discard, w, export.LamportOptions{From: sim.Time(time.Second), To: sim.Time(time.Millisecond)}); err == nil {
		t.Error("a window that ends before it starts was drawn")
	}
}
