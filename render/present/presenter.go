package present

import (
	"time"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/sim"
)

// Host is the window a presenter tells its lesson in: the session on
// screen, whether time plays, and the window's other states the presenter
// must know of. The window (render/ui's App) implements it; the presenter
// calls it, never the other way round, except through Presenter's own
// methods.
type Host interface {
	// Show puts a run of the lesson on screen as the head of the
	// window's branch (made again from the start, which gives the same
	// run). With keep, the branch that was on screen goes to the undo
	// list.
	Show(run *Run, keep bool)
	// Drives reports whether run still drives what is on screen (an
	// action or an undo may have put another branch there).
	Drives(run *Run) bool
	// AdvanceTo moves what is on screen on to t, as time passing would,
	// stopping early just after a narrative step (paused).
	AdvanceTo(t sim.Time) (paused bool, err error)
	// Now is the virtual time on screen.
	Now() sim.Time
	// Playing and SetPlaying are whether time runs (b, the play button).
	Playing() bool
	SetPlaying(bool)
	// Covered reports whether the caption is hidden from the class (the
	// help, the lesson picker): its reading time does not run then.
	Covered() bool
	// ReadingPace is how much faster than the default the class reads:
	// the adaptive pace's scale (+ and -), or 1 at a fixed rate.
	ReadingPace() float64
	// Say puts a line in the window's status ("" clears it); Fail says
	// what went wrong.
	Say(status string)
	Fail(err error)
	// OpenPicker shows the lesson picker (the end of a lesson, Enter).
	OpenPicker()
}

// Presenter is where the teacher is in a lesson, and the keys that move
// there: which narrative step is on screen, for how many frames the class
// has seen it, and whether the question on screen has been answered. The
// lesson's run drives what is on screen; it stops after each narrative
// step, and the presenter lets it go on only once that step is on screen.
// So every step is shown, in order, and time never runs past a step the
// class has not seen: a step that comes while the previous one is still
// being read waits (time held) until its reading time is over, or until
// the teacher moves on.
//
// When the teacher acts on the cluster, the lesson lets go of it (taken
// over); Enter brings the lesson back at the point it was left, made
// again from the start, which is the same run.
//
// The window holds one, forwards it every key (Key) and every frame
// (Frame), and draws what Narration and Outline say.
type Presenter struct {
	lesson *Lesson
	host   Host

	run       *Run         // the run driving the screen; nil once taken over
	shown     int          // the index in lesson.Steps of the step on screen, -1 before the first
	read      int64        // frames the step has been in view (not under the help or the picker)
	answered  bool         // the shown pause has been answered
	afterEnd  bool         // the teacher let time run on after the end
	takenOver *lessonPoint // where the lesson was when the teacher took over
	outline   bool         // the lesson so far (Tab) is shown
	tps       int          // frames a second
	lang      i18n.Lang    // the presenter's own words
}

// lessonPoint is a point of a lesson's run: enough to make it again.
type lessonPoint struct {
	narrated int
	shown    int
	answered bool
	at       sim.Time
}

// NewPresenter starts a lesson from its beginning, to be told at tps
// frames a second. The window puts Run() on screen, then calls Attach.
func NewPresenter(l *Lesson, tps int) (*Presenter, error) {
	run, err := l.Start()
	if err != nil {
		return nil, err
	}
	lang, _ := i18n.Parse(l.Lang)
	return &Presenter{lesson: l, run: run, shown: -1, tps: tps, lang: lang}, nil
}

// Attach gives the presenter the window it tells the lesson in.
func (p *Presenter) Attach(h Host) { p.host = h }

// Lesson returns the lesson told.
func (p *Presenter) Lesson() *Lesson { return p.lesson }

// Run returns the run that drives the screen, or nil once the teacher has
// taken over.
func (p *Presenter) Run() *Run { return p.run }

// Steps returns the lesson's narrative steps.
func (p *Presenter) Steps() []Step { return p.lesson.Steps }

// Shown returns the index in Steps of the step on screen (-1 before the
// first); once taken over, the one shown when the teacher took over.
func (p *Presenter) Shown() int {
	if p.run == nil && p.takenOver != nil {
		return p.takenOver.shown
	}
	return p.shown
}

// TakenOver reports whether the teacher has the cluster: the lesson waits
// where it was left.
func (p *Presenter) TakenOver() bool { return p.run == nil }

// Pending reports whether a step has run that is not on screen yet (the
// run waits at it).
func (p *Presenter) Pending() bool {
	return p.run != nil && p.run.Narrated() > p.shown+1
}

// AtPause reports whether the step on screen is a question not yet
// answered.
func (p *Presenter) AtPause() bool {
	return p.run != nil && p.shown >= 0 && p.lesson.Steps[p.shown].IsPause() && !p.answered
}

// Ended reports whether the lesson has run its last step and shown it.
func (p *Presenter) Ended() bool {
	return p.run != nil && p.run.Done() && !p.Pending()
}

// AfterEnd reports whether the teacher let the cluster run on after the
// end.
func (p *Presenter) AfterEnd() bool { return p.afterEnd }

// SetAfterEnd lets the cluster run on after the end (b), or stops it.
func (p *Presenter) SetAfterEnd(on bool) {
	if p.Ended() {
		p.afterEnd = on
	}
}

// HoldsTime reports whether the presenter keeps time still: a step waits
// to be shown, a question waits for an answer, or the lesson is over.
func (p *Presenter) HoldsTime() bool {
	if p.run == nil {
		return false
	}
	return p.Pending() || p.AtPause() || p.Ended() && !p.afterEnd
}

// Outline reports whether the lesson so far (Tab) is shown.
func (p *Presenter) Outline() bool { return p.outline }

// CloseOutline hides the lesson so far.
func (p *Presenter) CloseOutline() { p.outline = false }

// ReadingLeft returns how many frames the step on screen still needs to
// be read.
func (p *Presenter) ReadingLeft() int64 {
	if p.shown < 0 {
		return 0
	}
	d := ReadingTime(p.lesson.Steps[p.shown])
	if pace := p.host.ReadingPace(); pace > 0 {
		// A faster or slower pace reads faster or slower too.
		d = time.Duration(float64(d) / pace)
	}
	need := int64(d.Seconds()*float64(p.tps) + 0.5)
	return max(0, need-p.read)
}

// show puts the next step that has run on screen, and lets the run go on
// unless it is a question.
func (p *Presenter) show() {
	if !p.Pending() {
		return
	}
	p.shown++
	p.read = 0
	p.answered = false
	p.settle()
}

// settle lets the run go on when the step on screen is the last that ran
// and is not a question waiting for its answer.
func (p *Presenter) settle() {
	if p.run != nil && !p.Pending() && !p.AtPause() {
		p.run.Resume()
	}
}

// Frame runs once per frame, before time moves: it notices a lesson that
// lost the screen (the teacher acted, or undid), counts the reading time
// of the step on screen, and shows a waiting step once the one on screen
// has been read.
func (p *Presenter) Frame() {
	p.Sync()
	if p.run == nil {
		return
	}
	if !p.host.Covered() {
		// The class reads the caption only while nothing covers it.
		p.read++
	}
	if p.mayShow() {
		p.show()
	}
}

// Sync notices that the lesson's run no longer drives the screen (an
// action took it over, an undo brought back a branch of the teacher's).
func (p *Presenter) Sync() {
	if p.run != nil && !p.host.Drives(p.run) {
		p.LetGo()
	}
}

// LetGo is called when the teacher acts on the cluster: the lesson lets go
// of it, and records where it was. The run's own world is where the
// lesson stands, even after an undo put another world on screen.
func (p *Presenter) LetGo() {
	if p.run == nil {
		return
	}
	p.takenOver = &lessonPoint{narrated: p.run.Narrated(), shown: p.shown, answered: p.answered, at: p.run.World().Now()}
	p.run = nil
}

// Stopped is told that the run stopped at a narrative step: it is shown
// at once if the step on screen has been read, else it waits.
func (p *Presenter) Stopped() {
	if p.mayShow() {
		p.show()
	}
}

// mayShow reports whether the step that waits may replace the one on
// screen now: its reading time is over. (A question comes after the
// caption that leads to it has been read, or on the teacher's key, one
// step as any other; it is shown under that caption.)
func (p *Presenter) mayShow() bool {
	if !p.Pending() || p.AtPause() {
		return false
	}
	return p.ReadingLeft() == 0
}

// Key routes a key to the presenter: the clicker's keys (Space and
// PageDown the next step, PageUp the one before), the chapters (1…9), Tab
// (the lesson so far) and Enter (back into the lesson after taking over,
// or the lesson list at its end). It reports whether the key was the
// presenter's; the window handles the others. Any key closes the lesson
// so far, and goes on to do what it does (Tab and Esc only close it).
func (p *Presenter) Key(k string) bool {
	if p.outline && k != "f12" {
		p.outline = false
		if k == "tab" || k == "escape" {
			return true
		}
	}
	switch k {
	case "space", "pagedown":
		p.Next()
	case "pageup":
		p.Prev()
	case "tab":
		p.outline = true
	case "enter":
		switch {
		case p.run == nil:
			p.Resume()
		case p.Ended():
			p.host.OpenPicker()
		}
	default:
		if len(k) == 1 && k[0] >= '1' && k[0] <= '9' {
			p.Chapter(int(k[0] - '0'))
			return true
		}
		return false
	}
	return true
}

// Next is Space or PageDown: the next narrative step, and only that one.
func (p *Presenter) Next() {
	switch {
	case p.run == nil:
		p.host.SetPlaying(!p.host.Playing())
	case p.Pending():
		p.show()
	case p.AtPause():
		// The answer: time plays on to the next step, which shows as
		// soon as it runs (a lesson's answer follows its question at
		// once).
		p.answered = true
		p.settle()
		p.host.SetPlaying(true)
	case p.Ended():
		p.host.OpenPicker()
	default:
		// Time is running towards the next step (or stopped by n, m or
		// b): go there now, and play on. A clicker has no other key.
		p.host.SetPlaying(true)
		for i := 0; i < 100_000 && !p.Pending() && !p.run.Done(); i++ {
			if _, err := p.host.AdvanceTo(p.host.Now().Add(time.Second)); err != nil {
				p.host.Fail(err)
				break
			}
		}
		p.show()
	}
}

// GoTo makes the lesson again up to step k (0-based) and shows it.
func (p *Presenter) GoTo(k int) {
	if k < 0 || k >= len(p.lesson.Steps) {
		return
	}
	run, err := p.lesson.RunTo(k + 1)
	if err != nil {
		p.host.Fail(err)
		return
	}
	// Back into the lesson from the teacher's branch: that branch goes to
	// the undo list (z brings it back).
	back := p.run == nil
	p.install(run, back)
	p.shown, p.read, p.answered, p.afterEnd = k, 0, false, false
	p.settle()
	p.host.SetPlaying(true)
	p.host.Say("")
	if back {
		p.host.Say(p.lang.T("back in the lesson; z brings your own branch back"))
	}
}

// Prev is PageUp: the step before the one on screen, made again from its
// start.
func (p *Presenter) Prev() {
	k := p.Shown() - 1
	if p.Ended() {
		// From the end, back to the last step (the end is a page of its
		// own after it).
		k = p.shown
	}
	p.GoTo(max(0, k))
}

// Chapter jumps to the lesson's n-th chapter (1-based).
func (p *Presenter) Chapter(n int) {
	if n >= 1 && n <= len(p.lesson.Chapters) {
		p.GoTo(p.lesson.Chapters[n-1])
	}
}

// Seek shows the lesson as it was at t (the timeline, and ←): made again
// to t, through every step up to then.
func (p *Presenter) Seek(t sim.Time) error {
	run, err := p.lesson.RunAt(max(0, t))
	if run == nil {
		return err
	}
	p.install(run, false)
	// A step the seek landed on is shown afresh; one it went past was
	// seen (and its question answered) on the way.
	p.shown, p.read, p.answered, p.afterEnd = run.Narrated()-1, 0, !run.Waiting(), false
	p.settle()
	return err
}

// Resume is Enter after taking over: back to the lesson where the
// teacher took over, on the lesson's own timeline.
func (p *Presenter) Resume() {
	pt := p.takenOver
	if pt == nil || p.run != nil {
		return
	}
	run, err := p.lesson.RunUntil(pt.narrated, pt.at)
	if err != nil {
		p.host.Fail(err)
		return
	}
	p.install(run, true)
	p.shown, p.read, p.answered, p.afterEnd = pt.shown, 0, pt.answered, false
	p.takenOver = nil
	p.settle()
	p.host.Say(p.lang.T("back in the lesson; z brings your own branch back"))
}

// install puts run on screen.
func (p *Presenter) install(run *Run, keep bool) {
	p.host.Show(run, keep)
	p.run = run
	p.takenOver = nil
}

// ByHand readies the lesson for a key that moves time on by hand (n, m,
// →): a step that ran but is not on screen is shown instead of moving
// past it (it reports false: that was the key's effect); a question on
// screen is answered; after the end the cluster runs on. Taken over, it
// does nothing.
func (p *Presenter) ByHand() bool {
	if p.run == nil {
		return true
	}
	if p.Pending() {
		p.show()
		return false
	}
	if p.AtPause() {
		p.answered = true
		p.settle()
	}
	if p.Ended() {
		p.afterEnd = true
	}
	return true
}

// StoppedByHand shows at once the step that a key moving time by hand
// stopped at: the teacher asked to move on, so the reading time of the
// step on screen does not hold it back.
func (p *Presenter) StoppedByHand() {
	if p.run != nil && p.Pending() {
		p.show()
	}
}
