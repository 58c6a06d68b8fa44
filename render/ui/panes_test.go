package ui

import (
	"bytes"
	"strings"
	"testing"

	"github.com/raftsim/raftsim/render/present"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
	"github.com/raftsim/raftsim/trace"
)

// comparePanes makes the panes `play arg --compare settings...` shows.
func comparePanes(t *testing.T, arg string, settings ...string) (*Panes, []scenarios.Variant) {
	t.Helper()
	var sts []scenarios.Setting
	for _, a := range settings {
		st, err := scenarios.ParseSetting("--compare", a)
		if err != nil {
			t.Fatal(err)
		}
		sts = append(sts, st)
	}
	vs, err := scenarios.LoadCompare(arg, sts)
	if err != nil {
		t.Fatal(err)
	}
	var lessons []*present.Lesson
	var labels []string
	for _, v := range vs {
		l, err := present.New(v.Scenario, "en", 0)
		if err != nil {
			t.Fatal(err)
		}
		lessons = append(lessons, l)
		labels = append(labels, v.Label)
	}
	p, err := NewPanes(lessons, labels, Screen{W: 1920, H: 1080, Scale: 1})
	if err != nil {
		t.Fatal(err)
	}
	return p, vs
}

// runTrace is the trace `raftsim run` writes of a scenario (its events,
// after the header), and the virtual time the run ended at.
func runTrace(t *testing.T, s *scenarios.Scenario) ([]byte, sim.Time) {
	t.Helper()
	var buf bytes.Buffer
	r, err := scenarios.NewRunner(s, scenarios.RunOptions{Trace: &buf})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(); err != nil {
		t.Fatalf("%s: %v", s.Name, err)
	}
	return buf.Bytes(), r.World().Now()
}

// worldTrace is the trace lines of a world's first n events.
func worldTrace(w *sim.World, n int) []byte {
	var b []byte
	for i := 0; i < n && i < w.HistoryLen(); i++ {
		b = w.AppendTraceLine(b, w.EventAt(i))
	}
	return b
}

// TestPanesAreSingleRuns: every pane of the window's comparison, played
// in lockstep as a presenter plays the first (its next-step key to the
// end, the others following), holds the trace `raftsim run` writes of
// the scenario with that pane's setting alone, byte for byte, and the
// divergence the panes mark is the first event where the run traces
// differ, by index and instant.
func TestPanesAreSingleRuns(t *testing.T) {
	for _, c := range []struct {
		arg      string
		settings []string
	}{
		{"pre-vote-compare", nil},
		{"pre-vote", []string{"check_quorum=false", "election_ticks=12"}},
	} {
		t.Run(c.arg+" "+strings.Join(c.settings, " "), func(t *testing.T) {
			p, vs := comparePanes(t, c.arg, c.settings...)
			var runs [][]byte
			var end sim.Time
			for _, v := range vs {
				tr, at := runTrace(t, v.Scenario)
				runs = append(runs, tr)
				end = max(end, at)
			}
			lead := p.Lead()
			for i := 0; i < 10_000 && lead.Narration().Kind != present.NarrEnd; i++ {
				p.Handle(Key("pagedown", false))
				for _, a := range p.Apps[1:] {
					if a.S.Now() != lead.S.Now() {
						t.Fatalf("after a key: pane at %s, the leader at %s", a.S.Now(), lead.S.Now())
					}
				}
			}
			if lead.Narration().Kind != present.NarrEnd {
				t.Fatal("the leader's lesson did not end")
			}
			// On past the lesson's end, as b does, until every run's end.
			lead.Lesson.SetAfterEnd(true)
			for i := 0; i < 100 && lead.S.Now() < end; i++ {
				if _, err := lead.S.AdvanceTo(end); err != nil {
					t.Fatal(err)
				}
			}
			p.Sync()
			for i, a := range p.Apps {
				w := a.S.World()
				n := bytes.Count(runs[i], []byte("\n"))
				if w.HistoryLen() < n {
					t.Fatalf("pane %d (%s): %d events, the run %d", i+1, p.Labels[i], w.HistoryLen(), n)
				}
				if got := worldTrace(w, n); !bytes.Equal(got, runs[i]) {
					d, _ := trace.FirstDivergence(bytes.NewReader(got), bytes.NewReader(runs[i]))
					t.Fatalf("pane %d (%s): its trace is not the run's: %s", i+1, p.Labels[i], d.Sentence("pane", "run"))
				}
			}
			for i := 1; i < len(p.Apps); i++ {
				want, err := trace.FirstDivergence(bytes.NewReader(runs[0]), bytes.NewReader(runs[i]))
				if err != nil {
					t.Fatal(err)
				}
				got := p.Diverged[i]
				if want == nil {
					if got != nil {
						t.Errorf("pane %d: marked %+v; the runs are the same", i+1, got)
					}
					continue
				}
				if got == nil || got.Index != want.Index || got.T != want.T {
					t.Fatalf("pane %d: marked %+v; the runs first differ at event %d, %s: %s", i+1, got, want.Index, trace.Seconds(want.T),
						want.Sentence(vs[0].Label, vs[i].Label))
				}
				if line := p.DivergedLine(i); !strings.Contains(line, trace.Seconds(want.T)) {
					t.Errorf("pane %d says %q", i+1, line)
				}
			}
		})
	}
}

// TestPanesInLockstep: as frames play every pane is at the leader's
// instant; a click on a member in the second pane selects it in every
// pane; the timeline dragged back brings every pane back.
func TestPanesInLockstep(t *testing.T) {
	p, _ := comparePanes(t, "pre-vote-compare")
	lead := p.Lead()
	for range 300 {
		p.Update()
		for i, a := range p.Apps {
			if a.S.Now() != lead.S.Now() {
				t.Fatalf("frame: pane %d at %s, the leader at %s", i+1, a.S.Now(), lead.S.Now())
			}
		}
	}
	if lead.S.Now() == 0 {
		t.Fatal("time did not move")
	}
	f := BuildFrame(p.Apps[1])
	at, ok := f.Where("etcd-2")
	if !ok {
		t.Fatal("no etcd-2 in the second pane")
	}
	r, z := p.Rect(1, 2), p.Zoom(2)
	for _, ev := range Click(Point{X: at.X*z + r.X, Y: at.Y*z + r.Y}, false) {
		p.Handle(ev)
	}
	for i, a := range p.Apps {
		if a.Selected != "etcd-2" || a.menu == nil {
			t.Errorf("pane %d: selected %q, menu %v", i+1, a.Selected, a.menu != nil)
		}
	}
	before := lead.S.Now()
	if err := lead.Seek(before / 2); err != nil {
		t.Fatal(err)
	}
	p.Sync()
	for i, a := range p.Apps {
		if a.S.Now() != before/2 {
			t.Errorf("after a seek back: pane %d at %s, want %s", i+1, a.S.Now(), before/2)
		}
	}
}
