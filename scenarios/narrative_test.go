package scenarios

import (
	"bytes"
	"strings"
	"testing"

	"github.com/raftsim/raftsim/sim"
)

// With NarrativeStops a run stops just after each say, pause and chapter,
// in the order Narrative lists them, with that step's caption the last
// event of the history; with ReturnAfterActions it also returns after
// each step that acts. Resumed each time, it ends where a headless run
// ends, with the same trace and transcript, in both languages.
func TestNarrativeStops(t *testing.T) {
	for _, name := range lessonOrder() {
		for _, lang := range []string{"en", "zh"} {
			t.Run(name+"/"+lang, func(t *testing.T) {
				s, err := LoadLesson(name)
				if err != nil {
					t.Fatal(err)
				}
				var plain, stopped bytes.Buffer
				r0, err := NewRunner(s, RunOptions{Lang: lang, Transcript: &plain})
				if err != nil {
					t.Fatal(err)
				}
				if st, err := r0.Run(); st != Done || err != nil {
					t.Fatalf("headless: %v %v", st, err)
				}
				r, err := NewRunner(s, RunOptions{Lang: lang, Transcript: &stopped, NarrativeStops: true, ReturnAfterActions: true})
				if err != nil {
					t.Fatal(err)
				}
				steps := r.Narrative()
				if len(steps) == 0 {
					t.Fatal("no narrative steps")
				}
				returns := 0
				advance := func() (RunState, error) {
					for {
						st, err := r.Advance(Forever)
						if st != Running {
							return st, err
						}
						returns++
					}
				}
				for k := range steps {
					st, err := advance()
					if st != Paused || err != nil {
						t.Fatalf("stop %d: %v %v, want Paused", k, st, err)
					}
					if r.Narrated() != k+1 {
						t.Fatalf("stop %d: Narrated() = %d", k, r.Narrated())
					}
					w := r.World()
					e := w.EventAt(w.HistoryLen() - 1)
					if e.Kind != sim.EvCaption || !strings.HasSuffix(e.Text, steps[k].Text) {
						t.Fatalf("stop %d: the last event is %q, want the caption %q", k, w.Describe(e), steps[k].Text)
					}
					r.Resume()
				}
				if st, err := advance(); st != Done || err != nil {
					t.Fatalf("after the last stop: %v %v", st, err)
				}
				acts := 0
				for _, st := range s.Steps {
					if st.Kind.Acts() {
						acts++
					}
				}
				if returns < acts {
					t.Errorf("Advance returned %d times after an action step; the lesson has %d", returns, acts)
				}
				if !bytes.Equal(plain.Bytes(), stopped.Bytes()) {
					t.Errorf("stopping at each narrative step changed the transcript")
				}
				var a, b bytes.Buffer
				if err := r0.World().WriteTrace(&a, name); err != nil {
					t.Fatal(err)
				}
				if err := r.World().WriteTrace(&b, name); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Errorf("stopping at each narrative step changed the trace")
				}
			})
		}
	}
}
