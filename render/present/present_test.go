package present

import (
	"testing"
	"time"

	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

func TestRateLabel(t *testing.T) {
	for _, c := range []struct {
		rate float64
		want string
	}{
		{0, "0×"},
		{-1, "0×"},
		{1.0 / 36, "1/36×"},
		{0.1, "1/10×"},
		{0.5, "1/2×"},
		{0.96, "1×"}, // 1/1.04 rounds to 1: not "1/1×"
		{0.999, "1×"},
		{1, "1×"},
		{1.04, "1×"},
		{1.5, "1.5×"},
		{8, "8×"},
		{12.4, "12×"},
		{0.9, "1/1.1×"},
	} {
		if got := RateLabel(c.rate); got != c.want {
			t.Errorf("RateLabel(%v) = %q, want %q", c.rate, got, c.want)
		}
	}
	if got := ScaleLabel(0.25); got != "1/4" {
		t.Errorf("ScaleLabel(0.25) = %q, want 1/4", got)
	}
}

func TestReadingTime(t *testing.T) {
	for _, c := range []struct {
		step Step
		want time.Duration
	}{
		{Step{Kind: scenarios.StepPause, Text: "Which side can elect a leader?"}, 0},
		{Step{Kind: scenarios.StepSay, Text: ""}, time.Second},
		{Step{Kind: scenarios.StepSay, Text: "The leader dies."}, time.Second + 3*300*time.Millisecond},
		{Step{Kind: scenarios.StepSay, Text: "etcd-2, term 3"}, time.Second + 4*300*time.Millisecond},
		{Step{Kind: scenarios.StepSay, Text: "第一次选举"}, time.Second + 5*170*time.Millisecond},
		{Step{Kind: scenarios.StepChapter, Text: "Healing"}, 2 * time.Second},
		{Step{Kind: scenarios.StepChapter, Text: "one two three four five"}, time.Second + 5*300*time.Millisecond},
	} {
		if got := ReadingTime(c.step); got != c.want {
			t.Errorf("ReadingTime(%q) = %s, want %s", c.step.Text, got, c.want)
		}
	}
}

// RunTo, RunUntil and RunAt make a lesson again as a run that played
// there was: the same world, and where it stands in the script.
func TestLessonRuns(t *testing.T) {
	l, err := Open("split-brain", "en", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Steps) == 0 || len(l.Chapters) == 0 || !l.Steps[l.Chapters[0]].IsChapter() {
		t.Fatalf("steps %d, chapters %v", len(l.Steps), l.Chapters)
	}
	played, err := l.Start()
	if err != nil {
		t.Fatal(err)
	}
	var at []sim.Time // the instant of each step as played
	for !played.Done() {
		played.Resume()
		paused, err := played.Advance(played.World().Now() + sim.Time(50*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		if paused {
			at = append(at, played.World().Now())
			if c := played.Caption(); l.Steps[len(at)-1].Kind != scenarios.StepChapter && c != l.Steps[len(at)-1].Text {
				t.Fatalf("step %d: caption %q, want %q", len(at), c, l.Steps[len(at)-1].Text)
			}
		}
	}
	if len(at) != len(l.Steps) {
		t.Fatalf("played %d steps, the lesson has %d", len(at), len(l.Steps))
	}
	for k := range l.Steps {
		run, err := l.RunTo(k + 1)
		if err != nil {
			t.Fatal(err)
		}
		if run.Narrated() != k+1 || run.World().Now() != at[k] || !run.Waiting() {
			t.Errorf("RunTo(%d): narrated %d at %s (waiting %v), want %d at %s", k+1, run.Narrated(), run.World().Now(), run.Waiting(), k+1, at[k])
		}
	}
	if _, err := l.RunTo(len(l.Steps) + 1); err == nil {
		t.Error("RunTo past the last step: no error")
	}
	// Between step 1 and step 2: the same point whichever way it is made.
	mid := (at[0] + at[1]) / 2
	until, err := l.RunUntil(1, mid)
	if err != nil {
		t.Fatal(err)
	}
	atRun, err := l.RunAt(mid)
	if err != nil {
		t.Fatal(err)
	}
	if until.World().Now() != mid || atRun.World().Now() != mid || until.Narrated() != 1 || atRun.Narrated() != 1 {
		t.Errorf("RunUntil(1, %s): %d at %s; RunAt: %d at %s", mid, until.Narrated(), until.World().Now(), atRun.Narrated(), atRun.World().Now())
	}
	if until.World().HistoryLen() != atRun.World().HistoryLen() {
		t.Errorf("RunUntil and RunAt to %s differ: %d and %d events", mid, until.World().HistoryLen(), atRun.World().HistoryLen())
	}
}
