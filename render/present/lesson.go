package present

import (
	"fmt"

	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

// Step is one narrative step of a lesson.
type Step struct {
	Kind scenarios.StepKind // StepSay, StepPause or StepChapter
	Text string             // in the lesson's language
	// Chapter is the index in Lesson.Chapters of the chapter the step
	// belongs to (a chapter step belongs to itself), or -1 before the
	// first chapter.
	Chapter int
	// Shows are what the screen must show while the step is on screen
	// (its shows:, the screen contract).
	Shows []scenarios.Show
}

// IsPause reports whether the step waits for the presenter.
func (s Step) IsPause() bool { return s.Kind == scenarios.StepPause }

// IsChapter reports whether the step opens a chapter.
func (s Step) IsChapter() bool { return s.Kind == scenarios.StepChapter }

// Lesson is a scenario as a presenter tells it: its narrative steps, in
// the order they run, and its chapters.
type Lesson struct {
	Scenario *scenarios.Scenario
	Name     string
	Title    string // in the lesson's language
	Lang     string
	Steps    []Step
	Chapters []int // the index in Steps of each chapter step

	seed    uint64
	seedSet bool
	end     sim.Time // when a run of it ends (Duration), once known
	ended   bool
}

// Duration returns the virtual time a run of the lesson takes, from the
// start to its last step (or to where it stops early): what its timeline
// spans. The first call runs the lesson once, headless.
func (l *Lesson) Duration() sim.Time {
	if !l.ended {
		l.ended = true
		if r, err := scenarios.NewRunner(l.Scenario, scenarios.RunOptions{Seed: l.seed, SeedSet: l.seedSet, Lang: l.Lang}); err == nil {
			r.Run()
			l.end = r.World().Now()
		}
	}
	return l.end
}

// MostPinned returns the most requests one step of the lesson names in
// its shows: (the clients panel must have room to keep them all in
// sight).
func (l *Lesson) MostPinned() int {
	most := 0
	for _, st := range l.Steps {
		n := 0
		for _, sh := range st.Shows {
			if sh.Kind == scenarios.ShowRequest {
				n++
			}
		}
		most = max(most, n)
	}
	return most
}

// Open loads a scenario file or a built-in lesson (as scenarios.Load
// does) for presenting in lang, with the scenario's seed unless seed is
// not 0.
func Open(name, lang string, seed uint64) (*Lesson, error) {
	s, err := scenarios.Load(name)
	if err != nil {
		return nil, err
	}
	return New(s, lang, seed)
}

// New makes a lesson of a parsed scenario.
func New(s *scenarios.Scenario, lang string, seed uint64) (*Lesson, error) {
	l := &Lesson{Scenario: s, Name: s.Name, Title: s.Title.In(lang), Lang: lang,
		seed: seed, seedSet: seed != 0}
	r, err := l.runner()
	if err != nil {
		return nil, err
	}
	chapter := -1
	for i, n := range r.Narrative() {
		if n.Kind == scenarios.StepChapter {
			chapter = len(l.Chapters)
			l.Chapters = append(l.Chapters, i)
		}
		l.Steps = append(l.Steps, Step{Kind: n.Kind, Text: n.Text, Chapter: chapter, Shows: n.Shows})
	}
	return l, nil
}

func (l *Lesson) runner() (*scenarios.Runner, error) {
	return scenarios.NewRunner(l.Scenario, scenarios.RunOptions{Seed: l.seed, SeedSet: l.seedSet, Lang: l.Lang,
		NarrativeStops: true, ReturnAfterActions: true})
}

// Start begins a run of the lesson from time 0.
func (l *Lesson) Start() (*Run, error) {
	r, err := l.runner()
	if err != nil {
		return nil, err
	}
	return &Run{r: r}, nil
}

// RunTo makes a run stopped just after its narrated-th narrative step
// (1 is the first), at that step's instant, exactly as a run that got
// there playing would be. narrated 0 is the start.
func (l *Lesson) RunTo(narrated int) (*Run, error) {
	if narrated < 0 || narrated > len(l.Steps) {
		return nil, fmt.Errorf("no narrative step %d in %s (it has %d)", narrated, l.Name, len(l.Steps))
	}
	run, err := l.Start()
	if err != nil {
		return nil, err
	}
	for run.Narrated() < narrated {
		if run.Done() {
			return run, fmt.Errorf("%s ended after %d of its narrative steps", l.Name, run.Narrated())
		}
		run.Resume()
		if _, err := run.Advance(scenarios.Forever); err != nil {
			return run, err
		}
	}
	return run, nil
}

// RunUntil makes a run as a run that played to time t was, having shown
// narrated steps by then (several can share an instant): stopped at its
// narrated-th step, moved on to t if that step came earlier.
func (l *Lesson) RunUntil(narrated int, t sim.Time) (*Run, error) {
	run, err := l.RunTo(narrated)
	if err != nil {
		return run, err
	}
	if run.World().Now() < t {
		run.Resume()
		for run.World().Now() < t && !run.Done() {
			paused, err := run.Advance(t)
			if err != nil || paused {
				return run, err
			}
		}
		if run.World().Now() < t {
			return run, run.World().RunUntil(t)
		}
	}
	return run, nil
}

// RunAt makes a run that played to time t, through every narrative step
// up to then: what seeking the lesson's timeline to t shows.
func (l *Lesson) RunAt(t sim.Time) (*Run, error) {
	run, err := l.Start()
	if err != nil {
		return nil, err
	}
	for run.World().Now() < t && !run.Done() {
		run.Resume()
		if _, err := run.Advance(t); err != nil {
			return run, err
		}
	}
	if run.World().Now() < t {
		return run, run.World().RunUntil(t)
	}
	return run, nil
}

// Run is one run of a lesson: the scenario's runner, stopping after each
// narrative step until Resume. It is the window session's Driver. After
// the script's last step, or after it failed, the world simply runs on.
type Run struct {
	r       *scenarios.Runner
	done    bool
	err     error
	waiting bool // stopped at a narrative step, until Resume
}

// World returns the world the run drives.
func (r *Run) World() *sim.World { return r.r.World() }

// Resolve names the one member a reference stands for now in this run
// ($names bound so far, @leader as it is now), if it stands for one.
func (r *Run) Resolve(ref scenarios.NodeRef) (string, bool) {
	names, err := r.r.Resolve(ref)
	if err != nil || len(names) != 1 {
		return "", false
	}
	return names[0], true
}

// resolveOn names the members references stand for now (each may be a
// list: @followers); those that cannot be told yet are left out.
func (r *Run) resolveOn(refs []scenarios.NodeRef) []string {
	var out []string
	for _, ref := range refs {
		if names, err := r.r.Resolve(ref); err == nil {
			out = append(out, names...)
		}
	}
	return out
}

// Resume continues past a narrative stop.
func (r *Run) Resume() {
	r.r.Resume()
	r.waiting = false
}

// Waiting reports whether the run is stopped at a narrative step, waiting
// for Resume.
func (r *Run) Waiting() bool { return r.waiting }

// Done reports whether the script has run its last step, or failed.
func (r *Run) Done() bool { return r.done }

// Err returns why the script stopped early, if it did.
func (r *Run) Err() error { return r.err }

// Caption returns the latest say or pause text.
func (r *Run) Caption() string { return r.r.Caption() }

// Narrated returns how many narrative steps have run.
func (r *Run) Narrated() int { return r.r.Narrated() }

// Advance runs the script and the world up to until. It returns early,
// with paused set, just after a narrative step (the run waits for Resume),
// and without it just after a step that acted on the cluster, so that a
// caller pacing time sees the messages that step sends as they leave.
func (r *Run) Advance(until sim.Time) (bool, error) {
	if r.done {
		return false, r.r.World().RunUntil(until)
	}
	st, err := r.r.Advance(until)
	switch st {
	case scenarios.Paused:
		r.waiting = true
		return true, nil
	case scenarios.Done:
		r.done = true
		return false, nil
	case scenarios.Failed:
		r.done, r.err = true, err
		if r.r.World().Violation() != nil {
			return false, err
		}
		return false, fmt.Errorf("the scenario stopped: %v (the cluster runs on; you can keep acting on it)", err)
	}
	return false, nil
}
