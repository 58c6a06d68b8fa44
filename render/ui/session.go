package ui

import (
	"errors"
	"fmt"
	"slices"

	"github.com/raftsim/raftsim/sim"
)

// Session is the GUI's whole hold on the simulation: a configuration, the
// command log of the current branch and the world at the current time.
// The world can always be rebuilt from the first two (replay, as
// sim.Replay does), which is how the timeline seeks back.
//
// NB: the log may run ahead of the world. After a seek back, the commands
// stamped later than Now are the branch's future: playing on re-applies
// them at their times, and acting in the past cuts them off (a fork). The
// cut-off branch is kept in the undo list.
type Session struct {
	cfg  sim.Config
	cmds []sim.Command
	w    *sim.World
	head sim.Time // the furthest time this branch has been run to
	undo []branch

	// Driver, when set, owns the world at the head of the branch (a scenario
	// runner). The session uses it while it plays at the head and drops it
	// for ever on a fork.
	driver Driver
	dw     *sim.World // the driver's world, kept while the session looks at the past

	// Stop, if set, is asked between instants of virtual time while the
	// session runs its own world forwards (AdvanceTo, a seek ahead): when
	// it says true, AdvanceTo returns ErrStopped at the instant reached.
	// The window sets it to whether SIGINT or SIGTERM has come, so that a
	// seek far ahead or a command box's long wait ends on a signal. A
	// scenario's driver runs on its own (not asked).
	Stop func() bool

	keepAll     bool // a test's: keep every event (forget does nothing)
	forgetEvery int  // a test's: forgetAfter, if not 0

	marks   []Mark // timeline marks of the world's history up to Now
	future  []Mark // marks of this branch after Now, from before a seek back
	scanned int    // how much of the world's history marks covers
	scan    markScanner
}

// branch is one entry of the undo list: a command log and its head.
type branch struct {
	cmds []sim.Command
	head sim.Time
	at   sim.Time // the time the user was looking at
}

// Driver runs a scripted scenario forwards. It is satisfied by an adapter
// over scenarios.Runner; the session never seeks it back.
type Driver interface {
	World() *sim.World
	// Advance runs the script and the world up to until, stopping early at a
	// presenter pause. It returns the time it stopped at and whether it
	// paused there.
	Advance(until sim.Time) (paused bool, err error)
	// Resume continues past a pause.
	Resume()
	// Done reports whether the script has run its last step.
	Done() bool
	// Caption returns the latest caption.
	Caption() string
}

// NewSession starts a session on a new world built from cfg.
func NewSession(cfg sim.Config) (*Session, error) {
	w, err := sim.New(cfg)
	if err != nil {
		return nil, err
	}
	s := &Session{cfg: cfg, w: w}
	s.rescan()
	return s, nil
}

// NewDriven starts a session on a scenario driver's world.
func NewDriven(d Driver) *Session {
	w := d.World()
	s := &Session{cfg: w.Config(), w: w, driver: d, dw: w}
	s.rescan()
	return s
}

// World returns the world at the current time.
func (s *Session) World() *sim.World { return s.w }

// Config returns the session's configuration.
func (s *Session) Config() sim.Config { return s.cfg }

// Commands returns the branch's command log, including any future part.
func (s *Session) Commands() []sim.Command { return s.cmds }

// Now returns the current virtual time.
func (s *Session) Now() sim.Time { return s.w.Now() }

// Head returns the furthest time this branch has been run to.
func (s *Session) Head() sim.Time { return max(s.head, s.w.Now()) }

// Driven reports whether a scenario still drives the session.
func (s *Session) Driven() bool { return s.driver != nil }

// Driver returns the scenario driver, or nil.
func (s *Session) Driver() Driver { return s.driver }

// UndoDepth returns the length of the undo list.
func (s *Session) UndoDepth() int { return len(s.undo) }

// Marks returns the timeline marks of this branch: those of the history so
// far and those remembered from its future.
func (s *Session) Marks() []Mark {
	if len(s.future) == 0 {
		return s.marks
	}
	return append(slices.Clip(s.marks), s.future...)
}

// InPast reports whether the world shows the past of its branch, so that
// acting now would fork the future off.
func (s *Session) InPast() bool {
	return s.applied() < len(s.cmds) || (s.driver != nil && !s.atDriverHead())
}

// applied is how many of the branch's commands the world has applied.
func (s *Session) applied() int { return s.w.CommandCount() }

// AdvanceTo runs the world forward to t, applying the branch's future
// commands at their times. It returns whether a scenario paused.
func (s *Session) AdvanceTo(t sim.Time) (paused bool, err error) {
	if s.w.Violation() != nil {
		return false, s.w.Violation()
	}
	defer s.rescan()
	if s.atDriverHead() {
		paused, err = s.driver.Advance(t)
		s.w = s.driver.World()
		s.cmds = slices.Clone(s.w.Commands())
		s.head = max(s.head, s.w.Now())
		return paused, err
	}
	for n := s.applied(); n < len(s.cmds) && s.cmds[n].At <= t; n = s.applied() {
		c := s.cmds[n]
		if err := s.runUntil(c.At); err != nil {
			return false, err
		}
		if _, err := s.w.Do(c); err != nil {
			// A scheduled command that cannot apply (a crash of a member
			// that is down) is dropped, so that playing on does not retry it.
			s.cmds = slices.Delete(slices.Clone(s.cmds), n, n+1)
			return false, fmt.Errorf("%s at %s: %w", c.Kind, c.At, err)
		}
	}
	if s.dw != nil && t >= s.dw.Now() && s.applied() == len(s.cmds) {
		// Caught up with the driver's world: it is the same world, so
		// hand over to the driver again.
		if err := s.w.RunUntil(s.dw.Now()); err != nil {
			return false, err
		}
		s.w = s.dw
		s.scanned = 0
		s.marks, s.future, s.scan = nil, nil, markScanner{}
		s.rescan()
		return s.AdvanceTo(t)
	}
	err = s.runUntil(t)
	s.head = max(s.head, s.w.Now())
	return false, err
}

// ErrStopped is AdvanceTo's error when Session.Stop stopped it.
var ErrStopped = errors.New("stopped by a signal")

// runUntil is the world's RunUntil, asking Stop between instants: the
// world goes through the same instants either way, so a run stopped and
// carried on is the same run.
//
// It runs in slices (an instant at a time with Stop, else runSlice of
// virtual time), and between slices the world gives back the history
// the window no longer draws (forget), so that running far ahead holds a
// bounded history, not all of it.
func (s *Session) runUntil(t sim.Time) error {
	for {
		if s.Stop != nil && s.Stop() {
			s.head = max(s.head, s.w.Now())
			return ErrStopped
		}
		s.forget()
		next, ok := s.w.NextEventAt()
		if !ok || next > t {
			return s.w.RunUntil(t)
		}
		if s.Stop == nil {
			next = min(t, max(next, s.w.Now()+runSlice))
		}
		if err := s.w.RunUntil(next); err != nil {
			return err
		}
	}
}

// Schedule adds commands to the branch's future, to be applied when the
// world reaches their times (each command's At). None may be in the past.
func (s *Session) Schedule(cmds []sim.Command) error {
	for _, c := range cmds {
		if c.At < s.w.Now() {
			return fmt.Errorf("%s at %s is in the past (now %s)", c.Kind, c.At, s.w.Now())
		}
	}
	s.cmds = append(slices.Clone(s.cmds), cmds...)
	n := s.applied()
	slices.SortStableFunc(s.cmds[n:], func(a, b sim.Command) int { return int(a.At - b.At) })
	return nil
}

// atDriverHead reports whether the world is the driver's own.
func (s *Session) atDriverHead() bool { return s.driver != nil && s.w == s.dw }

// Seek shows the cluster as it was (or will be) at t. Going back rebuilds
// the world by replaying the branch's log; nothing is lost.
func (s *Session) Seek(t sim.Time) error {
	if t < 0 {
		t = 0
	}
	if t >= s.w.Now() {
		_, err := s.AdvanceTo(t)
		return err
	}
	keep := s.Marks()
	rebuilt, err := s.replay(s.appliedUpTo(t), t)
	if !rebuilt {
		return err
	}
	s.future = nil
	for _, m := range keep {
		if m.At > s.w.Now() { // t, unless a signal stopped the replay
			s.future = append(s.future, m)
		}
	}
	return err
}

// appliedUpTo returns the commands of the branch stamped at or before t.
func (s *Session) appliedUpTo(t sim.Time) []sim.Command {
	n := 0
	for n < len(s.cmds) && s.cmds[n].At <= t {
		n++
	}
	return s.cmds[:n]
}

// Do applies a command now. If the branch has commands after now (the user
// went back in time), they are cut off first and kept in the undo list.
func (s *Session) Do(c sim.Command) (*sim.Op, error) {
	if v := s.w.Violation(); v != nil {
		return nil, v
	}
	s.pushUndo()
	if s.applied() < len(s.cmds) || (s.driver != nil && !s.atDriverHead()) {
		s.fork()
	}
	op, err := s.w.Do(c)
	if err != nil {
		s.undo = s.undo[:len(s.undo)-1]
		return nil, err
	}
	s.cmds = slices.Clone(s.w.Commands())
	s.future = nil
	s.rescan()
	return op, nil
}

// Act runs fn, which acts on the world directly (as the command box's
// console does), as one user action: the commands it applies join the
// branch's log as if they had been clicked, so seeking, undo and saving
// see them. If the world was showing the past of its branch, acting there
// forks the future off, and the branch left behind goes to the undo list.
// A fn that applies no command (a read, a help text) changes nothing.
// It returns whether fn applied any command, and fn's error.
func (s *Session) Act(fn func(*sim.World) error) (applied bool, err error) {
	return s.act(fn, true)
}

// Absorb is Act for what the world's users do on their own as time passes
// (the console closing a watch when its --for is over): their commands
// join the log, but make no entry in the undo list.
func (s *Session) Absorb(fn func(*sim.World) error) (applied bool, err error) {
	return s.act(fn, false)
}

func (s *Session) act(fn func(*sim.World) error, undoable bool) (bool, error) {
	before := branch{cmds: slices.Clone(s.cmds), head: s.head, at: s.w.Now()}
	n := s.applied()
	inPast := s.InPast()
	err := fn(s.w)
	defer s.rescan()
	if s.applied() == n {
		return false, err
	}
	if undoable {
		s.undo = append(s.undo, before)
	}
	if inPast {
		// The branch's future is cut off at the time of the action, as
		// fork does before a click's command.
		s.head = before.at
		s.driver, s.dw = nil, nil
	}
	s.cmds = slices.Clone(s.w.Commands())
	s.future = nil
	return true, err
}

// NextAt returns the next instant at which anything happens: the world's
// next event or the branch's next command, whichever comes first.
func (s *Session) NextAt() (sim.Time, bool) {
	next, ok := s.w.NextEventAt()
	if n := s.applied(); n < len(s.cmds) && (!ok || s.cmds[n].At < next) {
		next, ok = s.cmds[n].At, true
	}
	return next, ok
}

// Detach stops the script driving the session: the world stays as it
// is, at the head of a branch of its own, for the user to act on.
func (s *Session) Detach() {
	if s.driver == nil {
		return
	}
	if !s.atDriverHead() {
		s.fork()
		return
	}
	s.driver, s.dw = nil, nil
	s.cmds = slices.Clone(s.w.Commands())
	s.head = s.w.Now()
	s.future = nil
}

// Drive puts a driver's world on screen in place of the current one, as
// the head of the branch: a lesson made again at one of its steps. If a
// script was driving (the same lesson, which runs the same every time),
// the timeline keeps the marks it knew of later times. With keep, the
// branch left behind goes to the undo list.
func (s *Session) Drive(d Driver, keep bool) {
	if keep {
		s.pushUndo()
	}
	var marks []Mark
	if s.driver != nil {
		marks = s.Marks()
	}
	w := d.World()
	s.driver, s.dw, s.w = d, w, w
	s.cmds = slices.Clone(w.Commands())
	s.head = w.Now()
	s.marks, s.future, s.scanned, s.scan = nil, nil, 0, markScanner{}
	s.rescan()
	for _, m := range marks {
		if m.At > w.Now() {
			s.future = append(s.future, m)
		}
	}
}

// fork cuts the branch off at now.
func (s *Session) fork() {
	s.cmds = slices.Clone(s.w.Commands())
	s.head = s.w.Now()
	s.future = nil
	s.driver, s.dw = nil, nil // the script's future is gone too
}

func (s *Session) pushUndo() {
	s.undo = append(s.undo, branch{cmds: slices.Clone(s.cmds), head: s.head, at: s.w.Now()})
}

// ErrNothingToUndo is returned by Undo with an empty undo list.
var ErrNothingToUndo = errors.New("nothing to undo")

// Undo restores the branch as it was before the last action (including a
// branch cut off by a fork), and shows it at the time the action was taken.
func (s *Session) Undo() error {
	if len(s.undo) == 0 {
		return ErrNothingToUndo
	}
	b := s.undo[len(s.undo)-1]
	s.undo = s.undo[:len(s.undo)-1]
	s.driver, s.dw = nil, nil
	s.cmds, s.head = b.cmds, b.head
	rebuilt, err := s.replay(s.appliedUpTo(b.at), b.at)
	if rebuilt {
		s.future = nil
	}
	return err
}

// rescan brings the timeline marks up to date with the world's history.
func (s *Session) rescan() {
	n := s.w.HistoryLen()
	if s.scanned > n {
		s.marks, s.scanned, s.scan = nil, 0, markScanner{}
	}
	// NB: a world the session rebuilt is scanned as it runs (replay), so
	// nothing it forgot was left unscanned; this is only a guard.
	s.scanned = max(s.scanned, s.w.HistoryStart())
	for ; s.scanned < n; s.scanned++ {
		if m, ok := s.scan.mark(s.w, s.w.EventAt(s.scanned)); ok {
			s.marks = append(s.marks, m)
		}
	}
	now := s.w.Now()
	for len(s.future) > 0 && s.future[0].At <= now {
		s.future = s.future[1:]
	}
}

// OpPath returns the members a client operation really reached, in
// order: the member it was sent to, any it failed over to, and the leader
// a member forwarded it to. A request refused at a member that was down,
// or never passed on, has that member alone.
func (s *Session) OpPath(id uint64) []Hop { return s.scan.paths[id] }
