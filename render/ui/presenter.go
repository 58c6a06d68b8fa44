package ui

import (
	"time"

	"github.com/raftsim/raftsim/render/present"
	"github.com/raftsim/raftsim/sim"
)

// Presenter is where the teacher is in a lesson: which narrative step is
// on screen, for how many frames in view, and whether the audience has answered the
// pause. The lesson's run drives the session; it stops after each
// narrative step, and the presenter lets it go on only once that step is
// on screen. So every step is shown, in order, and time never runs past a
// step the audience has not seen: a step that comes while the previous
// one is still being read waits (time held) until its reading time is
// over, or until the presenter moves on.
//
// When the teacher acts on the cluster, the lesson lets go of it (taken
// over); Resume brings the lesson back at the point it was left, made
// again from the start, which is the same run.
type Presenter struct {
	Lesson *present.Lesson

	run       *present.Run // the run driving the session; nil once taken over
	shown     int          // the index in Lesson.Steps of the step on screen, -1 before the first
	read      int64        // frames the step has been in view (not under the help or the picker)
	answered  bool         // the shown pause has been answered
	afterEnd  bool         // the teacher let time run on after the end
	takenOver *lessonPoint // where the lesson was when the teacher took over
}

// lessonPoint is a point of a lesson's run: enough to make it again.
type lessonPoint struct {
	narrated int
	shown    int
	answered bool
	at       sim.Time
}

// OpenLesson puts a lesson on screen at its start, in presenter mode,
// replacing whatever was shown.
func (a *App) OpenLesson(l *present.Lesson) error {
	run, err := l.Start()
	if err != nil {
		return err
	}
	a.S = NewDriven(run)
	a.Lesson = &Presenter{Lesson: l, run: run, shown: -1}
	a.Picker, a.Outline = nil, false
	a.menu, a.drag, a.scrub, a.Selected, a.Message = nil, nil, nil, "", nil
	a.Status = ""
	a.Playing = true
	a.Pace = present.NewPacer(TPS)
	a.Pace.Fixed, a.Pace.FixedRate = a.fixedRate()
	a.frames = a.frames[:0]
	a.SetCaptions(LessonCaptions(l, a.Lang))
	return nil
}

// fixedRate keeps the window's fixed-rate setting across lessons.
func (a *App) fixedRate() (bool, float64) {
	if a.Pace == nil {
		return false, Speeds[DefaultSpeed]
	}
	return a.Pace.Fixed, a.Pace.FixedRate
}

// pending reports whether a step has run that is not on screen yet (the
// run waits at it).
func (p *Presenter) pending() bool {
	return p.run != nil && p.run.Narrated() > p.shown+1
}

// onScreen is the index of the step the caption area is about: the one
// shown, or, once taken over, the one shown when the teacher took over.
func (p *Presenter) onScreen() int {
	if p.run == nil && p.takenOver != nil {
		return p.takenOver.shown
	}
	return p.shown
}

// atPause reports whether the step on screen is a pause not yet answered.
func (p *Presenter) atPause() bool {
	return p.run != nil && p.shown >= 0 && p.Lesson.Steps[p.shown].IsPause() && !p.answered
}

// ended reports whether the lesson has run its last step and shown it.
func (p *Presenter) ended() bool {
	return p.run != nil && p.run.Done() && !p.pending()
}

// holdsTime reports whether the presenter keeps time still: a step waits
// to be shown, a pause waits for an answer, or the lesson is over.
func (p *Presenter) holdsTime() bool {
	if p.run == nil {
		return false
	}
	return p.pending() || p.atPause() || p.ended() && !p.afterEnd
}

// readingLeft returns how many frames the step on screen still needs.
func (p *Presenter) readingLeft(a *App) int64 {
	if p.shown < 0 {
		return 0
	}
	d := present.ReadingTime(p.Lesson.Steps[p.shown])
	if a.Pace != nil && !a.Pace.Fixed && a.Pace.Scale > 0 {
		// Faster or slower pace reads faster or slower too.
		d = time.Duration(float64(d) / a.Pace.Scale)
	}
	need := int64(d.Seconds()*TPS + 0.5)
	return max(0, need-p.read)
}

// show puts the next step that has run on screen, and lets the run go on
// unless it is a pause.
func (p *Presenter) show(a *App) {
	if !p.pending() {
		return
	}
	p.shown++
	p.read = 0
	p.answered = false
	p.settle()
}

// settle lets the run go on when the step on screen is the last that ran
// and is not a pause waiting for its answer.
func (p *Presenter) settle() {
	if p.run != nil && !p.pending() && !p.atPause() {
		p.run.Resume()
	}
}

// frame runs once per frame: it notices a lesson that lost the session
// (the teacher acted, or undid), and shows a waiting step once the one on
// screen has been read.
func (p *Presenter) frame(a *App) {
	p.sync(a)
	if p.run == nil {
		return
	}
	if !a.Help && a.Picker == nil {
		// The class reads the caption only while nothing covers it.
		p.read++
	}
	if p.mayShow(a) {
		p.show(a)
	}
}

// sync notices that the lesson's run no longer drives the session (an
// undo brought back a branch of the teacher's).
func (p *Presenter) sync(a *App) {
	if p.run != nil && a.S.Driver() != Driver(p.run) {
		p.letGo()
	}
}

// letGo records where the lesson was when it stopped driving. The run's
// own world is where the lesson stands, even after an undo put another
// world on screen.
func (p *Presenter) letGo() {
	if p.run == nil {
		return
	}
	p.takenOver = &lessonPoint{narrated: p.run.Narrated(), shown: p.shown, answered: p.answered, at: p.run.World().Now()}
	p.run = nil
}

// stopped is told that the run stopped at a narrative step: it is shown
// at once if the step on screen has been read, else it waits.
func (p *Presenter) stopped(a *App) {
	if p.mayShow(a) {
		p.show(a)
	}
}

// mayShow reports whether the step that waits may replace the one on
// screen now: its reading time is over, or the one that waits is the
// pause it leads to (the pause shows it too, and waits for the teacher).
func (p *Presenter) mayShow(a *App) bool {
	if !p.pending() || p.atPause() {
		return false
	}
	next := p.Lesson.Steps[p.shown+1]
	if next.IsPause() && p.shown >= 0 && a.leadOf(p.shown+1) == p.Lesson.Steps[p.shown].Text {
		return true
	}
	return p.readingLeft(a) == 0
}

// next is Space or PageDown: the next narrative step.
func (p *Presenter) next(a *App) {
	switch {
	case p.run == nil:
		a.Playing = !a.Playing
	case p.pending():
		p.show(a)
	case p.atPause():
		p.answered = true
		p.settle()
		a.Playing = true
	case p.ended():
		a.OpenPicker()
	default:
		// Time is running towards the next step (or stopped by n, m or
		// b): go there now, and play on. A clicker has no other key.
		a.Playing = true
		for i := 0; i < 100_000 && !p.pending() && !p.run.Done(); i++ {
			if _, err := a.S.AdvanceTo(a.S.Now().Add(time.Second)); err != nil {
				a.report(err)
				break
			}
		}
		p.show(a)
	}
}

// goTo makes the lesson again up to step k (0-based) and shows it.
func (p *Presenter) goTo(a *App, k int) {
	if k < 0 || k >= len(p.Lesson.Steps) {
		return
	}
	run, err := p.Lesson.RunTo(k + 1)
	if err != nil {
		a.report(err)
		return
	}
	// Back into the lesson from the teacher's branch: that branch goes to
	// the undo list (z brings it back).
	back := p.run == nil
	p.install(a, run, back)
	p.shown, p.read, p.answered, p.afterEnd = k, 0, false, false
	p.settle()
	a.Playing = true
	a.Status = ""
	if back {
		a.Status = a.Lang.T("back in the lesson; z brings your own branch back")
	}
}

// prev is PageUp: the step before the one on screen, made again from its
// start.
func (p *Presenter) prev(a *App) {
	k := p.shown - 1
	switch {
	case p.run == nil && p.takenOver != nil:
		k = p.takenOver.shown - 1
	case p.ended():
		// From the end, back to the last step (the end is a page of its
		// own after it).
		k = p.shown
	}
	p.goTo(a, max(0, k))
}

// chapter jumps to the lesson's n-th chapter (1-based).
func (p *Presenter) chapter(a *App, n int) {
	if n >= 1 && n <= len(p.Lesson.Chapters) {
		p.goTo(a, p.Lesson.Chapters[n-1])
	}
}

// seek shows the lesson as it was at t (the timeline, and ←): made
// again to t, through every step up to then.
func (p *Presenter) seek(a *App, t sim.Time) error {
	run, err := p.Lesson.RunAt(max(0, t))
	if run == nil {
		return err
	}
	p.install(a, run, false)
	// A step the seek landed on is shown afresh; one it went past was
	// seen (and its pause answered) on the way.
	p.shown, p.read, p.answered, p.afterEnd = run.Narrated()-1, 0, !run.Waiting(), false
	p.settle()
	return err
}

// resume is "Resume lesson": back to the script where the teacher took
// over, on the lesson's own timeline.
func (p *Presenter) resume(a *App) {
	pt := p.takenOver
	if pt == nil || p.run != nil {
		return
	}
	run, err := p.Lesson.RunUntil(pt.narrated, pt.at)
	if err != nil {
		a.report(err)
		return
	}
	p.install(a, run, true)
	p.shown, p.read, p.answered, p.afterEnd = pt.shown, 0, pt.answered, false
	p.takenOver = nil
	p.settle()
	a.Status = a.Lang.T("back in the lesson; z brings your own branch back")
}

// install makes run the session's driver.
func (p *Presenter) install(a *App, run *present.Run, keep bool) {
	a.S.Drive(run, keep)
	p.run = run
	p.takenOver = nil
	a.menu, a.Message = nil, nil
}

// takeOver is called before the teacher acts on the cluster in a lesson:
// the script lets go of it.
func (a *App) takeOver() {
	p := a.Lesson
	if p == nil || p.run == nil {
		return
	}
	a.S.Detach()
	p.letGo()
}

// presenterAct carries out the presenter's actions; it reports whether
// act was one.
func (a *App) presenterAct(act Action) bool {
	p := a.Lesson
	switch act {
	case ActNext:
		if p != nil {
			p.next(a)
		} else {
			a.Playing = !a.Playing
		}
	case ActPrev:
		if p != nil {
			p.prev(a)
		}
	case ActOutline:
		a.Outline = !a.Outline && p != nil
	case ActResume:
		if p != nil && p.run == nil {
			p.resume(a)
		} else if p != nil && p.ended() {
			a.OpenPicker()
		}
	case ActLessons:
		a.OpenPicker()
	default:
		return false
	}
	return true
}

// byHand readies the lesson for a key that moves time on by hand (n, m,
// →), in a lesson too: a step that ran but is not on screen is shown
// instead of moving past it (it reports false: that was the key's
// effect); a question on screen is answered; after the end the cluster
// runs on. Outside a lesson, or taken over, it does nothing.
func (p *Presenter) byHand(a *App) bool {
	if p == nil || p.run == nil {
		return true
	}
	if p.pending() {
		p.show(a)
		return false
	}
	if p.atPause() {
		p.answered = true
		p.settle()
	}
	if p.ended() {
		p.afterEnd = true
	}
	return true
}

// stoppedByHand shows at once the step that a key moving time by hand
// stopped at: the teacher asked to move on, so the reading time of the
// step on screen does not hold it back.
func (p *Presenter) stoppedByHand(a *App) {
	if p != nil && p.run != nil && p.pending() {
		p.show(a)
	}
}

// stepEvent is n (the next event) and m (the next delivery), in a lesson
// too (see byHand).
func (a *App) stepEvent(delivery bool) {
	a.Playing = false
	if !a.Lesson.byHand(a) {
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
			a.Lesson.stoppedByHand(a)
		}
		if err != nil || stopped || !delivery {
			return
		}
		if a.S.World() != w {
			before = 0 // the world was rebuilt
		}
		for i := before; i < a.S.World().HistoryLen(); i++ {
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
	p := a.Lesson
	if !p.byHand(a) {
		return
	}
	target := a.S.Now() + d
	for range 100_000 {
		if a.S.Now() >= target || p.holdsTime() {
			return
		}
		stopped, err := a.advanceTo(target)
		if stopped {
			p.stoppedByHand(a)
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
