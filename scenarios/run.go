package scenarios

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/sim"
)

// RunOptions are how a scenario is run.
type RunOptions struct {
	Seed    uint64 // used when SeedSet; otherwise the file's seed
	SeedSet bool
	Lang    string // caption language: "en" (default) or "zh"

	// Transcript, if set, receives one line per event as the run goes.
	Transcript io.Writer
	// Heartbeats includes heartbeats and their replies in the transcript.
	Heartbeats bool
	// Why captures raft's log lines (sim.World.SetWhy): the trace's events
	// gain a why field, the transcript a "    why: file:line func: message"
	// line under the event each led to.
	Why bool
	// Quiet leaves events out of the transcript: only captions and the
	// outcome of each expectation.
	Quiet bool
	// PauseStops makes a pause step stop Advance (state Paused) until
	// Resume is called, for a presenter. Headless runs go on.
	PauseStops bool
	// NarrativeStops makes every say, pause and chapter step stop Advance
	// (state Paused) just after it has run, until Resume is called, so
	// that a presenter can show each one before time runs on. It implies
	// PauseStops. Narrated tells how many have run.
	NarrativeStops bool

	// onlyExpect, when not 0, makes every expect and expect_always except
	// the one at that line soft: one that does not hold lets the run go on
	// as if it had, once its time is up. lessons_test.go uses it to show
	// that a lesson's key claim fails when its configuration is flipped,
	// whatever the flip did to the claims before it; nothing else sets it.
	onlyExpect int

	// Trace, if set, receives each event as a line of the JSON Lines
	// trace as the run goes (the header is the caller's to write).
	Trace io.Writer
	// ForgetHistory gives back the history's memory once the transcript
	// and the trace have it and no sent: condition will look at it, so
	// that a long headless run keeps only what it still needs. The window
	// leaves it off: it shows the whole history.
	ForgetHistory bool
	// SkipStepErrors goes on past a step that cannot run (a reference that
	// resolves to nothing, a command the world refuses): the transcript
	// notes it, Skipped lists it, and the run continues as if the step were
	// not there, which it may as well not be, since a refused command
	// changes nothing. The swarm runs generated scenarios this way. A
	// failed expectation still fails the run.
	SkipStepErrors bool

	// ReturnAfterActions makes Advance return (state Running) just after
	// each step that acts on the cluster (crash, put, partition, ...),
	// before time moves on, so that a caller pacing the run sees the
	// messages such a step sends as they leave. Calling Advance again
	// carries on; the run is the same.
	ReturnAfterActions bool

	// Stop, if set, is asked between instants of virtual time whether to
	// stop: when it reports true, Advance returns at once with state
	// Interrupted, the world at a clean instant and the transcript and
	// trace flushed up to it. Calling Advance again carries on, and the
	// run is the same as if it had not stopped. A command sets it to stop
	// at SIGINT (package interrupt); the simulation never sees why.
	Stop func() bool
}

// forgetEvery is how many events a run with ForgetHistory lets gather
// before giving back those it no longer needs.
const forgetEvery = 1 << 16

// sliceEvery is how much virtual time a headless run lets pass between
// flushes of its transcript and trace, so that a long step does not hold
// its whole history.
const sliceEvery = sim.Time(time.Second)

// RunState is where a Runner stands.
type RunState uint8

// The states of a run.
const (
	Running     RunState = iota // more to do; Advance stopped at its time limit
	Paused                      // stopped at a pause step; call Resume
	Done                        // every step ran and every expectation held
	Failed                      // stopped: see Err
	Interrupted                 // RunOptions.Stop said to stop; call Advance to go on
)

// ExpectError is an expectation (or a step) that failed: exit code 1.
type ExpectError struct {
	Pos      Pos
	Step     bool   // a step that could not run, rather than a condition
	What     string // the condition or step
	Observed string
	At       sim.Time
}

func (e *ExpectError) Error() string {
	what := "expectation failed"
	if e.Step {
		what = "step failed"
	}
	return fmt.Sprintf("%s: %s at %s: %s\n  observed: %s", e.Pos, what, e.At, e.What, e.Observed)
}

// Runner executes a scenario against a world. It is resumable: Advance
// runs it up to a virtual time and returns, so the GUI can play a lesson
// frame by frame; a headless run calls Advance once with no limit.
type Runner struct {
	s    *Scenario
	w    *sim.World
	opts RunOptions

	step     int      // the step running, or next to run
	started  bool     // the current step has begun
	start    sim.Time // when the current step began
	prevEnd  sim.Time // when the previous step finished
	conds    []condState
	sentMark int // history length at the end of the previous expect
	vars     map[string][]string
	paused   bool
	narrated int // narrative steps (say, pause, chapter) that have run
	line     []byte
	acted    bool       // the current step has done what it does once
	onScreen *Step      // the latest narrative step, until the next (shows:)
	whyOpen  *WhyOpened // the card the latest narrative step's why: opened
	sentAt   []bool     // by step: it or a later one has a sent: condition
	caption  string
	err      error
	printed  int   // history events already written to the transcript
	held     int   // expectations that held
	skipped  []int // indexes of the steps skipped (SkipStepErrors)
	lang     i18n.Lang

	lin           sim.Linearizability // the last check of the history (held.go)
	linLen        int                 // the history length it checked
	expectsNotLin bool                // a linearizable: false held
	brokeSoftly   bool                // a soft expect_always failed in its window (RunOptions.onlyExpect)
}

// soft reports whether a failure of expectation s lets the run go on
// (RunOptions.onlyExpect).
func (r *Runner) soft(s *Step) bool {
	return r.opts.onlyExpect != 0 && s.Pos.Line != r.opts.onlyExpect
}

// Forever is a time limit later than any run.
const Forever = sim.Time(1<<63 - 1)

// NewRunner builds the scenario's world.
func NewRunner(s *Scenario, opts RunOptions) (*Runner, error) {
	cfg := s.Config
	if opts.SeedSet {
		cfg.Seed = opts.Seed
	}
	w, err := sim.New(cfg)
	if err == nil && opts.Why {
		w.SetWhy(true)
	}
	if err != nil {
		return nil, &Error{Pos: Pos{File: s.File, Line: 1, Col: 1}, Msg: err.Error()}
	}
	r := &Runner{s: s, w: w, opts: opts, vars: map[string][]string{}}
	r.lang, _ = i18n.Parse(opts.Lang) // "" and anything unknown: English
	return r, nil
}

// World returns the world the scenario drives.
func (r *Runner) World() *sim.World { return r.w }

// Scenario returns the scenario.
func (r *Runner) Scenario() *Scenario { return r.s }

// Caption returns the latest say or pause text.
func (r *Runner) Caption() string { return r.caption }

// NarrativeStep is a say, pause or chapter step, as a presenter shows it.
type NarrativeStep struct {
	Kind StepKind // StepSay, StepPause or StepChapter
	Text string   // in the run's language
	Pos  Pos
	// Shows are what the screen must show while the step is on screen
	// (shows:).
	Shows []Show
}

// Narrative returns the scenario's narrative steps (say, pause, chapter)
// in the order they run, their texts in the run's language. Steps run in
// file order, each once, so the k-th narrative step to run is always
// Narrative()[k]; a run that fails never reaches the rest.
func (r *Runner) Narrative() []NarrativeStep {
	var out []NarrativeStep
	for _, s := range r.s.Steps {
		if s.Kind.Narrative() {
			out = append(out, NarrativeStep{Kind: s.Kind, Text: s.Text.In(r.opts.Lang), Pos: s.Pos, Shows: s.Shows})
		}
	}
	return out
}

// Narrated returns how many narrative steps have run.
func (r *Runner) Narrated() int { return r.narrated }

// Err returns why the run failed: an *ExpectError, an *Error (bad input
// found at run time) or a *sim.Violation.
func (r *Runner) Err() error { return r.err }

// Held returns how many expectations held.
func (r *Runner) Held() int { return r.held }

// Bound returns the names a let bound to $name, and whether it is bound.
func (r *Runner) Bound(name string) ([]string, bool) {
	names, ok := r.vars[name]
	return slices.Clone(names), ok
}

// Skipped returns the indexes into the scenario's steps of the steps that
// could not run and were skipped (RunOptions.SkipStepErrors), in order.
func (r *Runner) Skipped() []int { return r.skipped }

// Resume continues past a pause.
func (r *Runner) Resume() { r.paused = false }

// Run runs the scenario to the end.
func (r *Runner) Run() (RunState, error) { return r.Advance(Forever) }

// Advance runs the scenario until virtual time until, a pause (with
// PauseStops), the end, or a failure.
func (r *Runner) Advance(until sim.Time) (RunState, error) {
	st := r.advance(until)
	r.flushTranscript()
	if st == Failed {
		return st, r.err
	}
	return st, nil
}

func (r *Runner) advance(until sim.Time) RunState {
	if r.err != nil {
		return Failed
	}
	for r.step < len(r.s.Steps) {
		if r.paused {
			return Paused
		}
		s := &r.s.Steps[r.step]
		if !r.started {
			at := r.prevEnd.Add(s.After)
			if s.At != nil {
				at = sim.Time(*s.At)
				if at < r.w.Now() {
					// Only a run can find this (an expect before it took
					// longer than at: allows), so, like an expectation,
					// it fails the step (exit 1): validate cannot refuse
					// it, and run refuses no input that validate accepts.
					_, st := r.failStep(&Error{Pos: s.atPos, Msg: fmt.Sprintf("at: %s is earlier than now (%s): time may not go backwards", at, r.w.Now())})
					return st
				}
			}
			if at > until {
				return r.runUntil(until)
			}
			if st := r.runUntil(at); st != Running {
				return st
			}
			r.started, r.start, r.acted = true, r.w.Now(), false
			r.conds = make([]condState, len(s.Conds))
			for i := range r.conds {
				r.conds[i].scanned = r.sentMark
			}
		}
		if s.Kind.Narrative() {
			// The step on screen leaves it: what its caption named must
			// be on screen now (shows:).
			if st, failed := r.leaveScreen(); failed {
				return st
			}
			r.onScreen = s
		}
		done, st := r.exec(s, until)
		if !done {
			return st
		}
		r.started = false
		r.prevEnd = r.w.Now()
		r.step++
		if s.Kind.Narrative() {
			r.narrated++
			if r.opts.NarrativeStops || s.Kind == StepPause && r.opts.PauseStops {
				r.paused = true
			}
		} else if r.opts.ReturnAfterActions && s.Kind.Acts() && r.step < len(r.s.Steps) {
			return Running
		}
	}
	if st, failed := r.leaveScreen(); failed {
		return st
	}
	return Done
}

// leaveScreen checks the shows: of the narrative step on screen as it
// leaves the screen. A lesson's flipped run (RunOptions.onlyExpect)
// judges its key claim only.
func (r *Runner) leaveScreen() (RunState, bool) {
	s := r.onScreen
	r.onScreen = nil
	if s == nil || r.opts.onlyExpect != 0 {
		return Running, false
	}
	if err := r.checkShows(s); err != nil {
		return r.fail(err), true
	}
	return Running, false
}

func (r *Runner) runUntil(t sim.Time) RunState {
	if r.opts.Stop != nil {
		return r.runUntilStopped(t)
	}
	if r.opts.ForgetHistory || r.opts.Trace != nil {
		// NB: running to t in slices is running to t: nothing acts at
		// the instants between but the events scheduled there.
		for next := r.w.Now(); next < t; {
			next = min(t, next+sliceEvery)
			if err := r.w.RunUntil(next); err != nil {
				r.err = err
				return Failed
			}
			r.flushTranscript()
		}
	}
	if err := r.w.RunUntil(t); err != nil {
		r.err = err
		return Failed
	}
	return Running
}

// runUntilStopped is runUntil for a run that RunOptions.Stop may stop: it
// runs one instant at a time and asks Stop after each one that had events. NB: running to t
// instant by instant is running to t (the console's wait does the same).
func (r *Runner) runUntilStopped(t sim.Time) RunState {
	flushAt := r.w.Now() + sliceEvery
	for {
		next, ok := r.w.NextEventAt()
		if !ok || next > t {
			break
		}
		if err := r.w.RunUntil(next); err != nil {
			r.err = err
			return Failed
		}
		// NB: asked after an instant, not before, so that a run asked
		// to stop at every instant still moves on when carried on.
		if r.opts.Stop() {
			r.flushTranscript()
			return Interrupted
		}
		if r.w.Now() >= flushAt {
			r.flushTranscript()
			flushAt = r.w.Now() + sliceEvery
		}
	}
	if err := r.w.RunUntil(t); err != nil {
		r.err = err
		return Failed
	}
	return Running
}

func (r *Runner) fail(err error) RunState {
	r.err = err
	var ee *ExpectError
	if errors.As(err, &ee) {
		what := r.lang.T("expect failed")
		if ee.Step {
			what = r.lang.F("%s failed", ee.What)
		}
		r.note(fmt.Sprintf("✗ %s (%s): %s", what, ee.Pos, ee.Observed))
	}
	return Failed
}

func (r *Runner) failStep(e *Error) (bool, RunState) {
	if r.opts.SkipStepErrors {
		if n := len(r.skipped); n == 0 || r.skipped[n-1] != r.step {
			r.skipped = append(r.skipped, r.step)
		}
		r.note(fmt.Sprintf("- %s skipped (%s): %s", r.s.Steps[r.step].Kind, e.Pos, e.Msg))
		return true, Running
	}
	return false, r.fail(&ExpectError{Pos: e.Pos, Step: true, What: r.s.Steps[r.step].Kind.String(), Observed: e.Msg, At: r.w.Now()})
}

// exec runs the current step. It returns done=false with the state to
// return when the step needs more time than until allows, or failed.
func (r *Runner) exec(s *Step, until sim.Time) (bool, RunState) {
	switch s.Kind {
	case StepSay, StepPause, StepChapter:
		text := s.Text.In(r.opts.Lang)
		if s.Kind != StepChapter {
			r.caption = text
		}
		r.do(sim.Command{Kind: sim.CmdCaption, Caption: s.Kind.String(), Text: text}, s.Pos)
		if err := r.openWhy(s); err != nil { // why: (why_step.go)
			return false, r.fail(err)
		}
		return true, Running
	case StepWait:
		return r.waitUntil(r.start.Add(s.Wait), until)
	case StepLet:
		for _, b := range s.Bindings {
			names, err := r.resolveAll(b.Refs)
			if err != nil {
				return r.failStep(err)
			}
			if !b.List && len(names) != 1 {
				return r.failStep(&Error{Pos: b.Pos, Msg: fmt.Sprintf("$%s must be bound to one node, not %v", b.Name, names)})
			}
			r.vars[b.Name] = names
		}
		return true, Running
	case StepExpect:
		return r.expect(s, until)
	case StepExpectAlways:
		return r.expectAlways(s, until)
	case StepLoad:
		// NB: a step may take several calls of exec (Advance stops at
		// until); the load starts once.
		if !r.acted {
			r.acted = true
			if st := r.do(sim.Command{Kind: sim.CmdLoad, Load: s.Load}, s.Pos); st == Failed {
				return false, st
			}
		}
		if s.Background {
			return true, Running
		}
		return r.waitUntil(r.start.Add(s.Load.For), until)
	}
	cmds, err := r.commands(s)
	if err != nil {
		return r.failStep(err)
	}
	for _, c := range cmds {
		if st := r.do(c, s.Pos); st == Failed {
			return false, st
		}
	}
	return true, Running
}

func (r *Runner) do(c sim.Command, pos Pos) RunState {
	if _, err := r.w.Do(c); err != nil {
		if v, ok := err.(*sim.Violation); ok {
			return r.fail(v)
		}
		_, st := r.failStep(&Error{Pos: pos, Msg: err.Error()})
		return st
	}
	return Running
}

func (r *Runner) waitUntil(t, until sim.Time) (bool, RunState) {
	if t > until {
		return false, r.runUntil(until)
	}
	if st := r.runUntil(t); st != Running {
		return false, st
	}
	return true, Running
}

// expect waits, instant by instant, until every condition holds at once, or
// fails at the deadline.
func (r *Runner) expect(s *Step, until sim.Time) (bool, RunState) {
	deadline := r.start.Add(s.Within)
	for {
		ok, failed, err := r.checkAll(s, false)
		if err != nil {
			return r.failStep(err)
		}
		if ok {
			r.held++
			r.sentMark = r.w.HistoryLen()
			r.note("✓ " + r.lang.F("expect held (%s)", s.Pos))
			r.afterHeld(s)
			return true, Running
		}
		next, any := r.w.NextEventAt()
		if !any || next > deadline {
			if r.w.Now() >= deadline {
				if r.soft(s) {
					r.note("~ expect did not hold; soft, the run goes on (" + s.Pos.String() + ")")
					r.sentMark = r.w.HistoryLen()
					return true, Running
				}
				_, failed, _ = r.checkAll(s, true)
				return false, r.fail(&ExpectError{Pos: failed.Pos, What: describe(failed.cond), Observed: failed.observed, At: r.w.Now()})
			}
			next = deadline
		}
		if next > until {
			if st := r.runUntil(until); st != Failed || !r.expectedViolation(s) {
				return false, st
			}
			continue
		}
		switch st := r.runUntil(next); {
		case st == Interrupted:
			return false, st
		case st == Failed && !r.expectedViolation(s):
			return false, st
		}
	}
}

// expectedViolation reports whether the run stopped at a safety violation
// that the expect step s is waiting for (violation:), and if so takes it
// as the step's success rather than the run's failure: a lesson can show
// an injected bug breaking an invariant, and the checker catching it.
func (r *Runner) expectedViolation(s *Step) bool {
	v, ok := r.err.(*sim.Violation)
	if !ok {
		return false
	}
	for i := range s.Conds {
		if c := &s.Conds[i]; c.Kind == CondViolation && (c.Invariant == "" || c.Invariant == v.Invariant) {
			r.err = nil
			return true
		}
	}
	return false
}

// expectAlways checks every condition at every instant of its window.
func (r *Runner) expectAlways(s *Step, until sim.Time) (bool, RunState) {
	end := r.start.Add(s.For)
	for {
		ok, failed, err := r.checkAll(s, false)
		if err != nil {
			return r.failStep(err)
		}
		if !ok && r.soft(s) {
			r.brokeSoftly = true
		} else if !ok {
			_, failed, _ = r.checkAll(s, true)
			return false, r.fail(&ExpectError{Pos: failed.Pos, What: describe(failed.cond) + " (expect_always)", Observed: failed.observed, At: r.w.Now()})
		}
		if r.w.Now() >= end && r.brokeSoftly {
			r.brokeSoftly = false
			r.note("~ expect_always did not hold; soft, the run goes on (" + s.Pos.String() + ")")
			r.sentMark = r.w.HistoryLen()
			return true, Running
		}
		if r.w.Now() >= end {
			r.held++
			r.sentMark = r.w.HistoryLen()
			r.note("✓ " + r.lang.F("expect_always held for %s (%s)", s.For, s.Pos))
			r.afterHeld(s)
			return true, Running
		}
		next, any := r.w.NextEventAt()
		if !any || next > end {
			next = end
		}
		if next > until {
			return false, r.runUntil(until)
		}
		if st := r.runUntil(next); st != Running {
			return false, st
		}
	}
}

type failedCond struct {
	Pos      Pos
	cond     *Condition
	observed string
}

// checkAll checks every condition of s now, and returns the first that does
// not hold; describe says to put what was observed into words.
func (r *Runner) checkAll(s *Step, describe bool) (bool, failedCond, *Error) {
	for i := range s.Conds {
		c := &s.Conds[i]
		ok, observed, err := r.check(c, &r.conds[i], describe)
		if err != nil {
			// A reference that means nobody yet (no leader, say) is a
			// condition that does not hold yet: within may still see it
			// hold, and if not, the failure names it.
			ok, observed = false, err.Msg
		}
		if !ok {
			return false, failedCond{Pos: c.Pos, cond: c, observed: observed}, nil
		}
	}
	return true, failedCond{}, nil
}

// commands turns an action step into sim commands, one per node its
// references resolve to.
func (r *Runner) commands(s *Step) ([]sim.Command, *Error) {
	kind := sim.CommandKind(s.Kind.String())
	switch s.Kind {
	case StepCrash, StepRestart, StepIsolate, StepCampaign, StepSnapshot, StepStart, StepLose, StepDefrag:
		return r.perNode(s, sim.Command{Kind: kind, DataDir: s.DataDir, ForceNewCluster: s.ForceNewCluster})
	case StepSnapshotSave:
		return r.perNode(s, sim.Command{Kind: kind, File: s.File})
	case StepSnapshotRestore:
		return r.snapshotRestoreCommand(s, kind)
	case StepMemberList, StepAlarmList, StepAlarmDisarm, StepLeaseList, StepAuth, StepDowngrade:
		c := sim.Command{Kind: kind, Label: s.Label, Req: s.Req, Downgrade: s.Downgrade, By: s.By, External: s.External}
		if err := r.resolveVia(s, &c); err != nil {
			return nil, err
		}
		return []sim.Command{c}, nil
	case StepPromote, StepRemoveMember, StepUpdateMember:
		c := sim.Command{Kind: kind, Label: s.Label, PeerURL: s.PeerURL, By: s.By, External: s.External}
		if err := r.resolveVia(s, &c); err != nil {
			return nil, err
		}
		return r.perNode(s, c)
	case StepStall:
		return r.perNode(s, sim.Command{Kind: kind, For: s.For})
	case StepClock:
		return r.perNode(s, sim.Command{Kind: kind, Rate: s.Rate})
	case StepHeal:
		return []sim.Command{{Kind: sim.CmdHeal}}, nil
	case StepPartition:
		return r.partitionCommand(s, kind)
	case StepCut, StepRestore, StepLink:
		return r.linkCommands(s, kind)
	case StepTransferLeader:
		to, err := r.resolveOne(s.To[0])
		if err != nil {
			return nil, err
		}
		return []sim.Command{{Kind: kind, Node: to}}, nil
	case StepAddMember:
		c := sim.Command{Kind: kind, Node: s.Name, Learner: s.Learner, PeerURL: s.PeerURL, Start: s.Start, Label: s.Label,
			By: s.By, External: s.External}
		if err := r.resolveVia(s, &c); err != nil {
			return nil, err
		}
		return []sim.Command{c}, nil
	case StepCancel:
		return []sim.Command{{Kind: kind, Label: s.Cancel}}, nil
	case StepWatchProgress:
		return []sim.Command{{Kind: kind, Labels: s.Progress}}, nil
	case StepPut, StepDelete, StepGet, StepWatch, StepTxn, StepCompact, StepLeaseGrant, StepLeaseRevoke,
		StepLeaseKeepAlive, StepLeaseTimeToLive:
		return r.opCommand(s, kind)
	}
	return nil, &Error{Pos: s.Pos, Msg: "unknown step " + s.Kind.String()}
}

// perNode makes c once for each node the step's references resolve to.
func (r *Runner) perNode(s *Step, c sim.Command) ([]sim.Command, *Error) {
	names, err := r.resolveAll(s.Nodes)
	if err != nil {
		return nil, err
	}
	var cmds []sim.Command
	for _, n := range names {
		c.Node = n
		cmds = append(cmds, c)
	}
	return cmds, nil
}

// resolveVia sets c.Via to the member the step's via: names, if it has
// a via: (without one, c.Via stays empty and sim picks the member).
func (r *Runner) resolveVia(s *Step, c *sim.Command) *Error {
	if s.Via.Kind == RefInvalid {
		return nil
	}
	via, err := r.resolveOne(s.Via)
	if err != nil {
		return err
	}
	c.Via = via
	return nil
}

// snapshotRestoreCommand restores a snapshot the run saved, or else a
// file on disk, read now as etcdutl reads it.
func (r *Runner) snapshotRestoreCommand(s *Step, kind sim.CommandKind) ([]sim.Command, *Error) {
	spec := *s.Restore
	if !r.w.SavedSnapshot(spec.File) {
		// a file on disk, as etcdutl reads it
		kv, version, err := ReadSnapshot(cmp.Or(s.restorePath, spec.File))
		if err != nil {
			return nil, &Error{Pos: s.Pos, Msg: "snapshot_restore: " + err.Error()}
		}
		spec.KV, spec.ClusterVersion = kv, version
	}
	return []sim.Command{{Kind: kind, Restore: &spec}}, nil
}

// partitionCommand makes the partition's groups, refusing a member in
// two groups or, unless it was removed, in none.
func (r *Runner) partitionCommand(s *Step, kind sim.CommandKind) ([]sim.Command, *Error) {
	c := sim.Command{Kind: kind}
	seen := map[string]bool{}
	for _, g := range s.Groups {
		names, err := r.resolveAll(g)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if seen[n] {
				return nil, &Error{Pos: s.Pos, Msg: fmt.Sprintf("partition: %s is in two groups; every member must be in exactly one", n)}
			}
			seen[n] = true
		}
		c.Groups = append(c.Groups, names)
	}
	for _, in := range r.w.Infos() {
		if !seen[in.Name] && in.Role != sim.RoleRemoved {
			return nil, &Error{Pos: s.Pos, Msg: fmt.Sprintf("partition: %s is in no group; every member must be in exactly one", in.Name)}
		}
	}
	return []sim.Command{c}, nil
}

// linkCommands makes a cut, restore or link command for each link from a
// node of from: to another of to:.
func (r *Runner) linkCommands(s *Step, kind sim.CommandKind) ([]sim.Command, *Error) {
	from, err := r.resolveAll(s.From)
	if err != nil {
		return nil, err
	}
	to, err := r.resolveAll(s.To)
	if err != nil {
		return nil, err
	}
	var cmds []sim.Command
	for _, f := range from {
		for _, t := range to {
			if f != t {
				cmds = append(cmds, sim.Command{Kind: kind, From: f, To: t, OneWay: !s.Both,
					Latency: s.Latency, Loss: s.Loss, Dup: s.Duplicate})
			}
		}
	}
	return cmds, nil
}

// opCommand makes a client operation's command, sent via its member, with
// the leases and revisions it names resolved.
func (r *Runner) opCommand(s *Step, kind sim.CommandKind) ([]sim.Command, *Error) {
	via, err := r.resolveOne(s.Via)
	if err != nil {
		return nil, err
	}
	c := sim.Command{Kind: kind, Via: via, By: s.By, External: s.External, Timeout: s.Timeout, Label: s.Label, Req: s.Req,
		RequireLeader: s.RequireLeader, Repeat: s.Repeat}
	if err := r.resolveOpRefs(s, &c); err != nil {
		return nil, err
	}
	return []sim.Command{c}, nil
}

// flushTranscript writes the events since the last flush.
func (r *Runner) flushTranscript() {
	out, trace := r.opts.Transcript, r.opts.Trace
	if out == nil && trace == nil {
		r.printed = r.w.HistoryLen()
	}
	for ; r.printed < r.w.HistoryLen(); r.printed++ {
		e := r.w.EventAt(r.printed)
		if trace != nil {
			r.line = r.w.AppendTraceLine(r.line[:0], e)
			_, _ = trace.Write(r.line) // the caller's writer keeps the error
		}
		if out == nil || r.opts.Quiet && e.Kind != sim.EvCaption && e.Kind != sim.EvViolation {
			continue
		}
		if e.IsHeartbeat() && !r.opts.Heartbeats {
			continue
		}
		fmt.Fprintln(out, r.w.DescribeIn(r.lang, e))
		if e.Why != "" {
			for _, why := range strings.Split(e.Why, "\n") {
				fmt.Fprintln(out, "    why:", why)
			}
		}
	}
	if r.opts.ForgetHistory && r.printed-r.w.HistoryStart() >= forgetEvery {
		r.w.ForgetHistory(r.needed())
	}
}

// needed returns the first event the run may still read: the first not
// yet written out, or, while a sent: condition is to come, the first it
// will count.
func (r *Runner) needed() int {
	need := r.printed
	if r.sentFrom(r.step) {
		need = min(need, r.sentMark)
		if r.started { // the conditions of the step running
			for _, cs := range r.conds {
				need = min(need, cs.scanned)
			}
		}
	}
	return need
}

// sentFrom reports whether step i or a later one has a sent: condition.
func (r *Runner) sentFrom(i int) bool {
	if r.sentAt == nil {
		r.sentAt = make([]bool, len(r.s.Steps)+1)
		for j := len(r.s.Steps) - 1; j >= 0; j-- {
			r.sentAt[j] = r.sentAt[j+1] || slices.ContainsFunc(r.s.Steps[j].Conds, func(c Condition) bool { return c.Kind == CondSent })
		}
	}
	return r.sentAt[min(i, len(r.s.Steps))]
}

// note writes a line about the scenario itself (not an event) in order.
func (r *Runner) note(line string) {
	r.flushTranscript()
	if r.opts.Transcript != nil {
		fmt.Fprintf(r.opts.Transcript, "%s  %s\n", r.w.Now().Micros(), line)
	}
}

// Summary describes the end of a run in a line or two.
func (r *Runner) Summary(lin *sim.Linearizability) string {
	var b strings.Builder
	l := r.lang
	b.WriteString(l.F("seed=%d  virtual time %s  %s  %s held", r.w.Seed(), r.w.Now(),
		l.Count(r.w.HistoryLen(), "%d event", "%d events"), l.Count(r.held, "%d expectation", "%d expectations")))
	if lin != nil {
		b.WriteString("\n" + l.F("client history: %s (%s checked, %s not checked)",
			l.T(linResult(lin.Result)), l.Count(lin.Checked, "%d operation", "%d operations"),
			l.Count(lin.Skipped, "%d serializable read or watch", "%d serializable reads and watches")))
		if !lin.OK && r.expectsNotLin {
			b.WriteString(" " + l.T("— as the scenario expects (linearizable: false)"))
		}
		if lin.Detail != "" {
			b.WriteString("\n  " + lin.DetailIn(l))
		}
	}
	if stale := r.w.StaleReads(); stale > 0 {
		b.WriteString("\n" + l.F("stale serializable reads: %d (allowed: serializable reads do not go through consensus)", stale))
	}
	return b.String()
}

// linResult marks the linearizability checker's verdicts for the catalog.
func linResult(r string) string {
	for _, w := range []string{i18n.N("linearizable"), i18n.N("NOT linearizable"), i18n.N("unknown")} {
		if w == r {
			return w
		}
	}
	return r
}

// resolveOpRefs turns an operation step's lease: label and rev_of: label
// into the lease ID and the revision their operations answered with.
func (r *Runner) resolveOpRefs(s *Step, c *sim.Command) *Error {
	if s.LeaseLabel == "" && s.RevOf == "" {
		return nil
	}
	c.Req = s.Req.Copy() // the step's own request stays as the file wrote it
	if s.LeaseLabel != "" {
		op := r.w.Op(s.LeaseLabel)
		if op == nil || op.Status != sim.OpOK || op.Resp.LeaseGrant == nil {
			status := "has not been sent"
			if op != nil {
				status = "is " + op.Status.String()
			}
			return &Error{Pos: s.LeasePos, Msg: fmt.Sprintf("lease: the lease_grant %q %s, so there is no lease to use", s.LeaseLabel, status)}
		}
		setLease(&c.Req, op.Resp.LeaseGrant.ID)
	}
	if s.RevOf != "" {
		op := r.w.Op(s.RevOf)
		if op == nil || op.Status != sim.OpOK || op.Revision() == 0 {
			return &Error{Pos: s.RevOfPos, Msg: fmt.Sprintf("rev_of: %q has not answered with a revision", s.RevOf)}
		}
		setRev(&c.Req, op.Revision())
	}
	return nil
}
