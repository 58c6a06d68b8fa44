package ui

import (
	"github.com/raftsim/raftsim/render/present"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

// OpenLesson puts a lesson on screen at its start, in presenter mode,
// replacing whatever was shown. The presenter (present.Presenter) owns the
// lesson from then on: where the teacher is in it, and its keys; the App
// forwards it every key and every frame, and is its Host.
func (a *App) OpenLesson(l *present.Lesson) error {
	p, err := present.NewPresenter(l, TPS)
	if err != nil {
		return err
	}
	a.S = NewDriven(p.Run())
	a.Lesson = p
	p.Attach(lessonHost{a})
	a.Picker = nil
	a.menu, a.drag, a.scrub, a.Selected, a.Message, a.Why = nil, nil, nil, "", nil, nil
	a.Status = ""
	a.Playing = true
	a.Pace = present.NewPacer(TPS)
	a.Pace.Fixed, a.Pace.FixedRate = a.fixedRate()
	a.frames = a.frames[:0]
	a.view.pins = l.MostPinned()
	a.SetCaptions(LessonCaptions(l, a.Lang))
	return nil
}

// lessonHost is the App as the presenter sees it (present.Host).
type lessonHost struct{ a *App }

func (h lessonHost) Show(run *present.Run, keep bool) {
	h.a.S.Drive(run, keep)
	h.a.menu, h.a.Message, h.a.Why = nil, nil, nil
}
func (h lessonHost) Drives(run *present.Run) bool       { return h.a.S.Driver() == Driver(run) }
func (h lessonHost) AdvanceTo(t sim.Time) (bool, error) { return h.a.S.AdvanceTo(t) }
func (h lessonHost) Now() sim.Time                      { return h.a.S.Now() }
func (h lessonHost) Playing() bool                      { return h.a.Playing }
func (h lessonHost) SetPlaying(on bool)                 { h.a.Playing = on }
func (h lessonHost) Covered() bool                      { return h.a.Help || h.a.Picker != nil }
func (h lessonHost) Say(status string)                  { h.a.Status = status }
func (h lessonHost) Fail(err error)                     { h.a.report(err) }
func (h lessonHost) OpenPicker()                        { h.a.OpenPicker() }

func (h lessonHost) ReadingPace() float64 {
	if p := h.a.Pace; p != nil && !p.Fixed && p.Scale > 0 {
		return p.Scale
	}
	return 1
}

// fixedRate keeps the window's fixed-rate setting across lessons.
func (a *App) fixedRate() (bool, float64) {
	if a.Pace == nil {
		return false, Speeds[DefaultSpeed]
	}
	return a.Pace.Fixed, a.Pace.FixedRate
}

// inLesson reports whether a lesson drives the screen (not taken over).
func (a *App) inLesson() bool { return a.Lesson != nil && !a.Lesson.TakenOver() }

// holdsTime reports whether a lesson keeps time still (a step waiting to
// be shown, a question, the end).
func (a *App) holdsTime() bool { return a.Lesson != nil && a.Lesson.HoldsTime() }

// takeOver is called before the teacher acts on the cluster in a lesson:
// the script lets go of it.
func (a *App) takeOver() {
	if !a.inLesson() {
		return
	}
	a.S.Detach()
	a.Lesson.LetGo()
}

// byHand readies a lesson for a key that moves time on by hand (n, m,
// →); see present.Presenter.ByHand. Outside a lesson it does nothing.
func (a *App) byHand() bool { return a.Lesson == nil || a.Lesson.ByHand() }

// stoppedByHand shows the step such a key stopped at.
func (a *App) stoppedByHand() {
	if a.Lesson != nil {
		a.Lesson.StoppedByHand()
	}
}

// stepEvent is n (the next event) and m (the next delivery), in a lesson
// too (see byHand).
func (a *App) stepEvent(delivery bool) {
	a.Playing = false
	if !a.byHand() {
		return
	}
	for range 100_000 {
		before := a.S.World().HistoryLen()
		w := a.S.World()
		next, ok := a.S.NextAt()
		if !ok {
			return
		}
		stopped, err := a.advanceTo(next)
		if stopped {
			a.stoppedByHand()
		}
		if err != nil || stopped || !delivery {
			return
		}
		if a.S.World() != w {
			before = 0 // the world was rebuilt
		}
		for i := max(before, a.S.World().HistoryStart()); i < a.S.World().HistoryLen(); i++ {
			if k := a.S.World().EventAt(i).Kind; k == sim.EvDeliver || k == sim.EvDrop {
				return
			}
		}
	}
}

// forward is → in a lesson: time moves on by d as playing would, and
// stops at the next narrative step, which is shown at once (see byHand).
// Unlike a drag on the timeline it never skips a step.
func (a *App) forward(d sim.Time) {
	if !a.byHand() {
		return
	}
	target := a.S.Now() + d
	for range 100_000 {
		if a.S.Now() >= target || a.holdsTime() {
			return
		}
		stopped, err := a.advanceTo(target)
		if stopped {
			a.stoppedByHand()
		}
		if err != nil || stopped {
			return
		}
	}
}

// changePace is + and -: in fixed-rate mode the next rate of Speeds; at
// the adaptive pace, twice or half as fast (from 1/8 to 8 times the
// default pace).
func (a *App) changePace(faster bool) {
	if a.Pace.Fixed {
		if faster {
			a.speed = min(len(Speeds)-1, a.speed+1)
		} else {
			a.speed = max(0, a.speed-1)
		}
		a.Pace.FixedRate = Speeds[a.speed]
	} else if faster {
		a.Pace.Scale = min(8, a.Pace.Scale*2)
	} else {
		a.Pace.Scale = max(1.0/8, a.Pace.Scale/2)
	}
	a.Pace.Rate()
}

// pinned returns the labels of the requests the lesson's step on screen
// names (its shows:), which the clients panel keeps at its top.
func (a *App) pinned() []string {
	if a.Lesson == nil {
		return nil
	}
	var out []string
	for _, s := range a.Lesson.Shows() {
		if s.Kind == scenarios.ShowRequest {
			out = append(out, s.Label)
		}
	}
	return out
}

// namedEntries returns the log entries the lesson's step on screen names.
func (a *App) namedEntries() []NamedEntry {
	if a.Lesson == nil {
		return nil
	}
	var out []NamedEntry
	for _, s := range a.Lesson.Shows() {
		if s.Kind == scenarios.ShowEntry {
			out = append(out, NamedEntry{Member: s.Member, Index: s.Index})
		}
	}
	return out
}
