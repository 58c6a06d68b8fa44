package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/raftsim/raftsim/render/present"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

func lessonApp(t *testing.T, name string) *App {
	t.Helper()
	l, err := present.Open(name, "en", 0)
	if err != nil {
		t.Fatal(err)
	}
	a := NewApp(newSandbox(t), 1280, 800, 1)
	if err := a.OpenLesson(l); err != nil {
		t.Fatal(err)
	}
	return a
}

// lastCaption is the text of the latest caption the world recorded.
func lastCaption(a *App) string {
	c, _ := a.S.World().LastCaption()
	return captionMarkText(c)
}

func captions(w *sim.World) int {
	n := 0
	for i := 0; i < w.HistoryLen(); i++ {
		if w.EventAt(i).Kind == sim.EvCaption {
			n++
		}
	}
	return n
}

// Played with nobody touching the keys but Space at the pauses, every
// lesson shows every narrative step, in order, each for at least its
// reading time unless the next one came later; while a step that has run
// waits to be shown, time stands still.
func TestEveryStepIsShownInOrder(t *testing.T) {
	lessons, err := scenarios.Lessons()
	if err != nil {
		t.Fatal(err)
	}
	for _, ls := range lessons {
		t.Run(ls.Name, func(t *testing.T) {
			var order []int
			var since []int
			var waitingAt sim.Time = -1
			waiting := -1 // the step waiting to be shown
			a := classroom(t, ls.Name, "en", func(n int, a *App, _ func() *Frame) {
				p := a.Lesson
				if len(order) == 0 || order[len(order)-1] != p.Shown() {
					order, since = append(order, p.Shown()), append(since, n)
				}
				if p.Pending() {
					if waiting == p.Shown()+1 && a.S.Now() != waitingAt {
						t.Fatalf("time ran from %s to %s past step %d, which is not on screen", waitingAt, a.S.Now(), p.Shown()+1)
					}
					waiting, waitingAt = p.Shown()+1, a.S.Now()
				} else {
					waiting = -1
				}
				if c := captions(a.S.World()); c > p.Shown()+2 || c < p.Shown()+1 {
					t.Fatalf("%d captions ran with step %d on screen", c, p.Shown())
				}
			})
			steps := a.Lesson.Steps()
			want := []int{}
			if order[0] == -1 {
				want = append(want, -1)
			}
			for k := range steps {
				want = append(want, k)
			}
			if len(order) != len(want) {
				t.Fatalf("steps shown in the order %v, want %v", order, want)
			}
			for i := range want {
				if order[i] != want[i] {
					t.Fatalf("steps shown in the order %v, want %v", order, want)
				}
			}
			for i := 1; i+1 < len(order); i++ {
				k := order[i]
				need := int(present.ReadingTime(steps[k]).Seconds() * TPS)
				if got := since[i+1] - since[i]; got < need && !steps[k].IsPause() {
					t.Errorf("step %d (%q) was on screen %d frames, under its reading time of %d", k, steps[k].Text, got, need)
				}
			}
		})
	}
}

// press presses a key, then lets frames pass until the step on screen
// changes (a question's answer may be played up to), at most a minute of
// them, and returns the step shown then.
func press(a *App, key string) int {
	before := a.Narration()
	a.Handle(Key(key, false))
	for n := 0; n < 60*TPS; n++ {
		if now := a.Narration(); now.Step != before.Step || now.Kind != before.Kind {
			return now.Step
		}
		a.Update()
	}
	return a.Narration().Step
}

// The presenter's keys on split-brain, one press each: PageDown shows each
// step in turn, with the world at that step's caption (a question's
// answer is played up to); PageUp makes the previous step again, the same
// as it was; a number jumps to a chapter, and PageUp then goes one step
// back. Exactly one step per press, every time.
func TestPresenterKeysInTheApp(t *testing.T) {
	a := lessonApp(t, "split-brain")
	steps := a.Lesson.Steps()
	seen := map[int]string{}
	for k := range steps {
		if got := press(a, "pagedown"); got != k+1 {
			t.Fatalf("one PageDown at step %d: step %d", k, got)
		}
		n := a.Narration()
		if n.Text != steps[k].Text {
			t.Fatalf("after PageDown: step %d %q, want %q", n.Step, n.Text, steps[k].Text)
		}
		if got := lastCaption(a); got != steps[k].Text {
			t.Fatalf("step %d is on screen, but the world's last caption is %q", k+1, got)
		}
		seen[k] = fingerprint(a.S)
	}
	if a.Narration().Kind == present.NarrEnd {
		t.Fatal("the end before PageDown past the last step")
	}
	a.Handle(Key("pagedown", false))
	if n := a.Narration(); n.Kind != present.NarrEnd {
		t.Fatalf("after the last step: %+v, want the end", n)
	}
	for k := len(steps) - 1; k >= 0; k-- {
		a.Handle(Key("pageup", false))
		n := a.Narration()
		if n.Step != k+1 {
			t.Fatalf("PageUp: step %d, want %d", n.Step, k+1)
		}
		if got := fingerprint(a.S); got != seen[k] {
			t.Fatalf("step %d made again differs from step %d as first played", k+1, k+1)
		}
	}
	a.Handle(Key("2", false))
	n := a.Narration()
	if n.Kind != present.NarrChapter || n.ChapterNo != 2 || n.Text != "Healing" {
		t.Fatalf("key 2: %+v, want chapter 2, Healing", n)
	}
	if got := fingerprint(a.S); got != seen[a.Lesson.Lesson().Chapters[1]] {
		t.Error("chapter 2 made again differs from chapter 2 as first played")
	}
	ch := n.Step
	for _, c := range []struct {
		key  string
		want int
	}{{"pageup", ch - 1}, {"pagedown", ch}, {"tab", ch}, {"pagedown", ch + 1}, {"pageup", ch}, {"b", ch}, {"pagedown", ch + 1}} {
		before := a.Narration().Step
		var got int
		if c.key == "tab" || c.key == "b" {
			// The lesson so far, or time stopped: the step stays.
			a.Handle(Key(c.key, false))
			got = a.Narration().Step
		} else {
			got = press(a, c.key)
		}
		if got != c.want {
			t.Fatalf("%s at step %d: step %d, want %d", c.key, before, got, c.want)
		}
	}
}

// At a pause, n and m step the cluster on (the pause is answered): they
// work everywhere.
func TestStepAtAPause(t *testing.T) {
	a := lessonApp(t, "split-brain")
	for range 20 {
		if a.Lesson.AtPause() {
			break
		}
		a.Handle(Key("pagedown", false))
	}
	if !a.Lesson.AtPause() {
		t.Fatal("no pause reached")
	}
	at := a.S.Now()
	a.Handle(Key("n", false))
	if a.S.Now() <= at {
		t.Fatalf("n at a pause: time still %s", a.S.Now())
	}
	if a.Lesson.AtPause() || a.Narration().Kind != present.NarrPause {
		t.Errorf("after n the pause should be answered and still on screen: %+v", a.Narration())
	}
	w := a.S.World()
	before := w.HistoryLen()
	a.Handle(Key("m", false))
	delivered := false
	for i := before; i < w.HistoryLen(); i++ {
		if k := w.EventAt(i).Kind; k == sim.EvDeliver || k == sim.EvDrop {
			delivered = true
		}
	}
	if !delivered {
		t.Error("m at a pause delivered nothing")
	}
}

// The teacher takes over (crashes a member in the middle of the lesson),
// then resumes: the lesson comes back at the same point of its own
// timeline, and z brings the teacher's branch back.
func TestTakeOverAndResume(t *testing.T) {
	a := lessonApp(t, "split-brain")
	for range 3 {
		a.Handle(Key("pagedown", false))
	}
	for range 30 {
		a.Update()
	}
	step, at := a.Narration().Step, a.S.Now()
	lessonView := fingerprint(a.S)
	a.act(ActCrash, "etcd-2")
	if a.S.Driver() != nil || a.Narration().Kind != present.NarrTakenOver {
		t.Fatalf("after a crash in the lesson the script still drives: %+v", a.Narration())
	}
	if in, _ := a.S.World().Info("etcd-2"); in.Up {
		t.Fatal("etcd-2 is not down")
	}
	for range 60 {
		a.Update()
	}
	a.Handle(Key("enter", false))
	if a.S.Driver() == nil || a.Narration().Step != step || a.S.Now() != at {
		t.Fatalf("resume: driven %v, step %d at %s; want step %d at %s", a.S.Driver() != nil, a.Narration().Step, a.S.Now(), step, at)
	}
	if got := fingerprint(a.S); got != lessonView {
		t.Error("the resumed lesson differs from the lesson where it was left")
	}
	a.Handle(Key("z", false))
	if in, _ := a.S.World().Info("etcd-2"); in.Up || a.Narration().Kind != present.NarrTakenOver {
		t.Errorf("z after resuming should bring back the branch with etcd-2 crashed (up=%v, %+v)", in.Up, a.Narration())
	}
}

// The help overlay and the picker stop time.
func TestHelpAndPickerStopTime(t *testing.T) {
	a := lessonApp(t, "first-election")
	a.Handle(Key("pagedown", false))
	a.Handle(Key("?", false))
	at := a.S.Now()
	for range 120 {
		a.Update()
	}
	if a.S.Now() != at {
		t.Errorf("time ran from %s to %s under the help", at, a.S.Now())
	}
	a.Handle(Key("escape", false))
	a.OpenPicker()
	for range 120 {
		a.Update()
	}
	if a.S.Now() != at {
		t.Errorf("time ran from %s to %s under the picker", at, a.S.Now())
	}
}

// The picker opens the lesson chosen with the keys; at the end of a lesson
// it offers the next one, and Space opens it: a class goes from lesson to
// lesson with the clicker alone.
func TestPicker(t *testing.T) {
	a := NewApp(newSandbox(t), 1280, 800, 1)
	a.SetLang(a.Lang)
	a.OpenPicker()
	if len(a.Picker.Lessons) < 8 {
		t.Fatalf("the picker lists %d lessons", len(a.Picker.Lessons))
	}
	a.Handle(Key("down", false))
	a.Handle(Key("enter", false))
	if a.Picker != nil || a.Lesson == nil || a.Lesson.Lesson().Name != a.pickerNames()[1] {
		t.Fatalf("down, enter did not open the second lesson")
	}
	for range 200 {
		if a.Lesson.Ended() {
			break
		}
		a.Handle(Key("space", false))
	}
	if !a.Lesson.Ended() {
		t.Fatal("space did not reach the end of the lesson")
	}
	if n := a.Narration(); n.Kind != present.NarrEnd || !strings.Contains(n.Hint, "lesson list") {
		t.Errorf("the end: %+v", n)
	}
	a.Handle(Key("space", false))
	if a.Picker == nil || a.Picker.Sel != 2 {
		t.Fatalf("space at the end: picker %+v, want the third lesson chosen", a.Picker)
	}
	a.Handle(Key("space", false))
	if a.Lesson.Lesson().Name != a.pickerNames()[2] {
		t.Errorf("space in the picker opened %s", a.Lesson.Lesson().Name)
	}
	// A click on a row opens that lesson.
	a.OpenPicker()
	rows, _, _ := a.Picker.Rows(a.L)
	row := rows[0].R
	for _, in := range Click(row.Center(), false) {
		a.Handle(in)
	}
	if a.Picker != nil || a.Lesson.Lesson().Name != a.pickerNames()[rows[0].Index] {
		t.Errorf("a click on the first row did not open it")
	}
	// A long list scrolls with the choice, and every row keeps its summary.
	a.OpenPicker()
	for range len(a.Picker.Lessons) {
		a.Handle(Key("down", false))
		rows, _, _ := a.Picker.Rows(a.L)
		if !slices.ContainsFunc(rows, func(r PickerRow) bool { return r.Index == a.Picker.Sel }) {
			t.Fatalf("the chosen lesson %d is not among the rows shown", a.Picker.Sel)
		}
	}
}

func (a *App) pickerNames() []string {
	ls, _ := scenarios.Lessons()
	var out []string
	for _, l := range ls {
		out = append(out, l.Name)
	}
	return out
}

// Seeking a lesson's timeline makes it again up to there: the captions
// up to then have run, and it plays on from there stopping at the next.
func TestSeekInALesson(t *testing.T) {
	a := lessonApp(t, "split-brain")
	must(t, a.Seek(sec(2)))
	if a.S.Now() != sec(2) || a.S.Driver() == nil {
		t.Fatalf("seek to 2s: now %s, driven %v", a.S.Now(), a.S.Driver() != nil)
	}
	steps := a.Lesson.Steps()
	if n := a.Narration(); n.Step != 5 || n.Text != steps[4].Text {
		t.Fatalf("at 2s the screen shows step %d %q, want the pause (step 5)", n.Step, n.Text)
	}
	for range 60 * 60 {
		a.Update()
		if a.Narration().Step == 6 {
			break
		}
	}
	if n := a.Narration(); n.Step != 6 {
		t.Fatalf("playing on from 2s: step %d", n.Step)
	}
	ref := lessonApp(t, "split-brain")
	ref.Lesson.GoTo(5)
	if fingerprint(a.S) != fingerprint(ref.S) {
		t.Error("step 6 reached after a seek differs from step 6 made directly")
	}
}

// Pointing at a caption's mark on the timeline gives its text (drawn as a
// tooltip), and pointing elsewhere gives none.
func TestCaptionMarkHover(t *testing.T) {
	a := lessonApp(t, "split-brain")
	for range 5 {
		a.Handle(Key("pagedown", false))
	}
	f := BuildFrame(a)
	var mark Mark
	for _, m := range f.Marks {
		if m.Kind == MarkCaption && strings.Contains(m.Text, "network splits") {
			mark = m
		}
	}
	if mark.Text == "" {
		t.Fatal("no caption mark for the partition's caption")
	}
	x := XAtTime(f.Track, f.Span, mark.At)
	a.Handle(Input{Kind: MouseMove, At: Point{X: x, Y: f.Track.Y + f.Track.H/2}})
	// The three captions of that instant, in order.
	var texts []string
	for _, m := range a.HoverMarks(BuildFrame(a)) {
		texts = append(texts, m.Text)
	}
	steps := a.Lesson.Steps()
	want := []string{steps[2].Text, steps[3].Text, steps[4].Text}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Errorf("hovering the marks at %s gives %q, want %q", mark.At, texts, want)
	}
	a.Handle(Input{Kind: MouseMove, At: f.L.Members.Pos[0]})
	if m := a.HoverMarks(BuildFrame(a)); len(m) > 0 {
		t.Errorf("hovering a member gives the marks %v", m)
	}
}

// → (seek forward) in a lesson moves time on as playing does: it stops at
// the next step the class has not seen and shows it, never skips a step,
// and does not run past a question nobody has answered.
func TestSeekForwardStopsAtEachStep(t *testing.T) {
	for _, name := range []string{"split-brain", "leader-crash", "first-election"} {
		t.Run(name, func(t *testing.T) {
			a := lessonApp(t, name)
			steps := a.Lesson.Steps()
			shown := a.Narration().Step
			for range 2000 {
				if a.Lesson.Ended() {
					break
				}
				if a.Lesson.AtPause() {
					// The question is on screen: → answers it, as n does.
					a.Handle(Key("right", false))
					if a.Lesson.AtPause() {
						t.Fatalf("→ at the question %q did not answer it", steps[shown-1].Text)
					}
				} else {
					a.Handle(Key("right", false))
				}
				n := a.Narration()
				if n.Step > shown+1 {
					t.Fatalf("→ went from step %d to step %d: step %d (%q) was never on screen", shown, n.Step, shown+1, steps[shown].Text)
				}
				if a.Lesson.Pending() {
					t.Fatalf("→ left step %d waiting behind step %d (time held, nothing shown)", a.Lesson.Shown()+2, n.Step)
				}
				shown = n.Step
			}
			if !a.Lesson.Ended() {
				t.Fatalf("2000 presses of → did not reach the end (step %d of %d)", shown, len(steps))
			}
		})
	}
}

// n and m from any step of a lesson do something visible at once: time
// moves, the script acts, or the next step (when it shares the instant)
// comes on screen.
func TestStepShowsItsEffect(t *testing.T) {
	for _, name := range []string{"split-brain", "leader-crash", "log-replication"} {
		a := lessonApp(t, name)
		for k := range a.Lesson.Steps() {
			for _, key := range []string{"n", "m"} {
				a.Lesson.GoTo(k)
				at, step, events := a.S.Now(), a.Narration().Step, a.S.World().HistoryLen()
				a.Handle(Key(key, false))
				if a.S.Now() == at && a.Narration().Step == step && a.S.World().HistoryLen() == events && !a.Lesson.Ended() {
					t.Errorf("%s step %d: %s did nothing visible (time %s, %s)", name, k+1, key, at, a.Status)
				}
				if a.Lesson.Pending() {
					t.Errorf("%s step %d: after %s step %d waits, not on screen", name, k+1, key, a.Lesson.Shown()+2)
				}
			}
		}
	}
}

// A clicker has one key: after n, m or b (which stop time), one PageDown
// still goes to the next step, and time plays on.
func TestNextAfterStepping(t *testing.T) {
	for _, key := range []string{"n", "m", "b"} {
		a := lessonApp(t, "split-brain")
		a.Lesson.GoTo(0)
		a.Handle(Key(key, false))
		step := a.Narration().Step
		a.Handle(Key("pagedown", false))
		if n := a.Narration(); n.Step != step+1 || !a.Playing {
			t.Errorf("after %s, PageDown: step %d (playing %v), want step %d, playing", key, n.Step, a.Playing, step+1)
		}
	}
}

// After taking over, going back into the lesson by PageUp or a chapter
// key keeps the teacher's branch in the undo list: z brings
// it back. And the hint for acting with nothing selected is true in a
// lesson, where the digits are chapters.
func TestBackIntoTheLessonKeepsTheBranch(t *testing.T) {
	for _, key := range []string{"pageup", "2"} {
		a := lessonApp(t, "split-brain")
		a.Lesson.GoTo(3)
		a.act(ActCrash, "etcd-2")
		if a.Narration().Kind != present.NarrTakenOver {
			t.Fatalf("a crash did not take over: %+v", a.Narration())
		}
		for range 30 {
			a.Update()
		}
		a.Handle(Key(key, false))
		if a.S.Driver() == nil {
			t.Fatalf("%s after taking over: the lesson does not drive", key)
		}
		a.Handle(Key("z", false))
		if in, _ := a.S.World().Info("etcd-2"); in.Up || a.Narration().Kind != present.NarrTakenOver {
			t.Errorf("%s then z: the teacher's branch (etcd-2 crashed) is lost (up=%v, %+v)", key, in.Up, a.Narration())
		}
	}
	a := lessonApp(t, "split-brain")
	a.Handle(Key("x", false))
	if strings.Contains(a.Status, "1…9") {
		t.Errorf("in a lesson, with nothing selected: %q (the digits are chapters there)", a.Status)
	}
}

// Taking over where time runs freely, between two steps (not at a step's
// own instant): resume comes back at that very time, with the same step
// on screen and the same cluster. Then Enter, z and Enter at once (as a
// script of inputs does) come back to the same point again.
func TestTakeOverMidStretch(t *testing.T) {
	for _, name := range []string{"split-brain", "leader-crash", "log-replication"} {
		t.Run(name, func(t *testing.T) {
			a := lessonApp(t, name)
			a.Handle(Key("pagedown", false))
			stepAt := a.S.Now()
			for range 60 * 60 {
				if !a.Lesson.HoldsTime() && a.S.Now() > stepAt && a.Playing {
					break
				}
				a.Update()
			}
			a.Update()
			if a.Lesson.HoldsTime() || a.S.Now() <= stepAt {
				t.Fatalf("no free-running stretch after step 1 (time %s, step at %s)", a.S.Now(), stepAt)
			}
			step, at, view := a.Narration().Step, a.S.Now(), fingerprint(a.S)
			victim := a.S.World().MemberNames()[0]
			a.act(ActCrash, victim)
			if a.Narration().Kind != present.NarrTakenOver {
				t.Fatalf("a crash did not take over: %+v", a.Narration())
			}
			for range 60 {
				a.Update()
			}
			check := func(what string) {
				t.Helper()
				if a.S.Driver() == nil || a.Narration().Step != step || a.S.Now() != at {
					t.Fatalf("%s: driven %v, step %d at %s; took over at step %d at %s", what, a.S.Driver() != nil, a.Narration().Step, a.S.Now(), step, at)
				}
				if fingerprint(a.S) != view {
					t.Fatalf("%s: the lesson differs from where it was left", what)
				}
			}
			a.Handle(Key("enter", false))
			check("resume")
			a.Handle(Key("z", false))
			if in, _ := a.S.World().Info(victim); in.Up {
				t.Fatalf("z after resuming: %s is up, the teacher's branch is lost", victim)
			}
			a.Handle(Key("enter", false))
			check("enter, z, enter")
		})
	}
}

// A caption's reading time runs only while the class can read it: not
// under the help overlay.
func TestReadingTimeNotUnderTheHelp(t *testing.T) {
	a := lessonApp(t, "split-brain")
	a.Handle(Key("pagedown", false))
	left := a.Lesson.ReadingLeft()
	if left == 0 {
		t.Fatal("step 1 needs no reading time")
	}
	a.Handle(Key("?", false))
	for range 10 * TPS {
		a.Update()
	}
	a.Handle(Key("?", false))
	if got := a.Lesson.ReadingLeft(); got != left {
		t.Errorf("after 10s under the help, %d frames of reading left, want %d", got, left)
	}
}
