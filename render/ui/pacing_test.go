package ui

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/raftsim/raftsim/render/present"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

// The pacing goal, at the default settings, in every lesson: every message
// that is not a heartbeat is on screen for at least 0.3s of wall time, and
// no stretch without a message, a caption or a change of state lasts more
// than 3s of wall time.
const (
	goalOnScreen = 300 * time.Millisecond
	goalGap      = 3 * time.Second
	// answerAfter is how long the class thinks about a pause's question
	// before the teacher presses Space.
	answerAfter = time.Second
)

// classroom plays a lesson in the App frame by frame, display-free, as a
// class sees it with nobody touching the keys but Space at each pause
// (after answerAfter). It calls frame after every Update (f builds the
// frame the window would draw), and stops two seconds after the end.
func classroom(t *testing.T, name, lang string, frame func(n int, a *App, f func() *Frame)) *App {
	t.Helper()
	l, err := present.Open(name, lang, 0)
	if err != nil {
		t.Fatal(err)
	}
	a := NewApp(newSandbox(t), 1280, 800, 1)
	if err := a.OpenLesson(l); err != nil {
		t.Fatal(err)
	}
	atPause, ended := 0, 0
	for n := 0; n < TPS*60*30; n++ {
		a.Update()
		frame(n, a, func() *Frame { return BuildFrame(a) })
		if run := a.Lesson.Run(); run != nil && run.Err() != nil {
			t.Fatalf("%s stopped early: %v", name, run.Err())
		}
		if a.Lesson.AtPause() {
			atPause++
			if atPause >= int(answerAfter.Seconds()*TPS) {
				a.Handle(Key("space", false))
				atPause = 0
			}
		}
		if a.Lesson.Ended() {
			// (A lesson about an injected bug ends at the safety
			// violation it is waiting for.)
			if ended++; ended > 2*TPS {
				return a
			}
		}
	}
	t.Fatalf("%s did not end in 30 minutes of frames", name)
	return nil
}

// paceFigures are what TestPacing measures of one lesson.
type paceFigures struct {
	messages    int
	minOnScreen time.Duration
	minMessage  string
	maxGap      time.Duration
	gapAt       sim.Time
	wall        time.Duration // the whole lesson, pauses' thinking time included
	virtual     sim.Time
}

// stateOf is what a frame shows of the cluster's state, as a string that
// changes when any of it does.
func stateOf(v sim.View) string {
	var b strings.Builder
	for _, m := range v.Members {
		fmt.Fprintf(&b, "%s %v %d %d %d %d %v|", m.Name, m.Role, m.Term, m.Commit, m.Applied, m.LastIndex, m.Up)
	}
	for _, op := range v.Ops {
		fmt.Fprintf(&b, "%d%v|", op.ID, op.Status)
	}
	fmt.Fprintf(&b, "%d cuts", len(v.Cuts))
	return b.String()
}

func measurePace(t *testing.T, name string) paceFigures {
	onScreen := map[uint64]int{} // frames each message was drawn, flying or as its drop mark
	var fig paceFigures
	quiet, lastState, lastStep := 0, "", -1
	a := classroom(t, name, "en", func(n int, a *App, build func() *Frame) {
		f := build()
		drawn := false
		seen := map[uint64]bool{}
		for _, m := range f.Msgs {
			if !sim.IsHeartbeatType(m.M.Type) && !seen[m.M.ID] {
				onScreen[m.M.ID]++
				seen[m.M.ID], drawn = true, true
			}
		}
		for _, d := range f.Drops {
			if !sim.IsHeartbeatType(d.Msg.Type) && !seen[d.Msg.ID] {
				onScreen[d.Msg.ID]++
				seen[d.Msg.ID], drawn = true, true
			}
		}
		state := stateOf(f.View)
		p := a.Lesson
		// A caption that appears is an event; while time stands still for
		// the class to read one, or for the teacher (a pause, the end),
		// there is no stretch of waiting to measure.
		caption := p.Shown() != lastStep
		held := p.HoldsTime()
		lively := drawn || caption || state != lastState || held
		lastState, lastStep = state, p.Shown()
		if lively {
			quiet = 0
		} else if quiet++; time.Duration(quiet)*time.Second/TPS > fig.maxGap {
			fig.maxGap, fig.gapAt = time.Duration(quiet)*time.Second/TPS, a.S.Now()
		}
		fig.wall = time.Duration(n+1) * time.Second / TPS
	})
	w := a.S.World()
	fig.virtual = w.Now()
	fig.minOnScreen = time.Hour
	for i := 0; i < w.HistoryLen(); i++ {
		e := w.EventAt(i)
		if e.Kind != sim.EvSend || e.IsHeartbeat() {
			continue
		}
		fig.messages++
		if d := time.Duration(onScreen[e.Msg.ID]) * time.Second / TPS; d < fig.minOnScreen {
			fig.minOnScreen, fig.minMessage = d, w.Describe(e)
		}
	}
	return fig
}

// TestPacing plays every lesson at the default settings over the App's own
// frame clock (TPS frames a second, no display, no wall clock) and checks
// the pacing goal. The figures are in docs/gui.md, and must be these.
func TestPacing(t *testing.T) {
	lessons, err := scenarios.Lessons()
	if err != nil {
		t.Fatal(err)
	}
	var table []string
	for _, ls := range lessons {
		t.Run(ls.Name, func(t *testing.T) {
			fig := measurePace(t, ls.Name)
			if fig.messages == 0 {
				t.Fatal("no messages at all")
			}
			if fig.minOnScreen < goalOnScreen {
				t.Errorf("a message was on screen for %s, under %s: %s", fig.minOnScreen, goalOnScreen, fig.minMessage)
			}
			if fig.maxGap > goalGap {
				t.Errorf("%s of wall time without a message, a caption or a change of state (ending at %s), over %s", fig.maxGap, fig.gapAt, goalGap)
			}
			table = append(table, fmt.Sprintf("| `%s` | %d | %.2f s | %.2f s | %.0f s | %.1f s |", ls.Name, fig.messages,
				fig.minOnScreen.Seconds(), fig.maxGap.Seconds(), fig.wall.Seconds(), fig.virtual.Duration().Seconds()))
		})
	}
	slices.Sort(table)
	t.Logf("\n%s\n|---|---|---|---|---|---|\n%s", paceHeader, strings.Join(table, "\n"))
	if t.Failed() || len(table) != len(lessons) {
		return // (with -run TestPacing/NAME, only some lessons ran)
	}
	// docs/gui.md states these figures: they must be the ones measured
	// (the frame clock is deterministic, so they are the same on any
	// machine). A lesson or simulator change that moves them moves the
	// doc too.
	readme, err := os.ReadFile("../../docs/gui.md")
	if err != nil {
		t.Fatal(err)
	}
	var stated []string
	in := false
	for _, line := range strings.Split(string(readme), "\n") {
		switch {
		case line == paceHeader:
			in = true
		case in && strings.HasPrefix(line, "| `"):
			stated = append(stated, line)
		case in && !strings.HasPrefix(line, "|"):
			in = false
		}
	}
	if !slices.Equal(stated, table) {
		t.Errorf("docs/gui.md's pacing table is not what was measured: put this table in it (under %q):\n%s", paceHeader, strings.Join(table, "\n"))
	}
}

// paceHeader is the header row of the pacing table in docs/gui.md.
const paceHeader = "| lesson | messages | shortest on screen | longest quiet stretch | wall time | virtual time |"
