package wire

import (
	"errors"
	"fmt"
	"time"

	"github.com/raftsim/raftsim/sim"
)

// Console is what the loop needs of the console a person types at while
// the cluster serves: it runs one line at the current virtual time, and
// prints what has arrived since (raftsim's console in Async mode).
type Console interface {
	Exec(line string) error
	Poll()
}

// LoopOptions configure Loop.
type LoopOptions struct {
	// Rate is virtual time per wall time: 1 runs the cluster in real time,
	// 0.1 ten times slower. Real clients keep real deadlines, so a rate
	// far from 1 makes their requests time out sooner or later than
	// against a real etcd.
	Rate float64
	// Console and Lines: console lines to run as they come (Lines closed:
	// no more). Either may be nil.
	Console Console
	Lines   <-chan string
	// Stop ends the loop (a signal), between two instants of the world,
	// even one that has fallen behind the wall clock.
	Stop <-chan struct{}
	// Tick, if set, is called after each advance of the world, on the
	// owner's goroutine (tests inject faults through it).
	Tick func(w *sim.World) error
	// Log, if set, is called before each advance of the world, on the
	// owner's goroutine: every command taken since the last call is
	// logged before the world runs on and any answer to it goes out
	// (serve writes its session file with it).
	Log func(w *sim.World) error
}

// Loop owns w while s serves it: virtual time follows wall time at the
// rate, every request that arrives is applied at the virtual instant it is
// taken in, answers and watch events go out as the members deliver them,
// and each endpoint follows its member up and down. It returns at Stop,
// when the console says quit (its error), or at a safety violation.
func Loop(w *sim.World, f *Front, s *Server, opts LoopOptions) error {
	rate := opts.Rate
	if rate <= 0 {
		rate = 1
	}
	start, base := time.Now(), w.Now()
	// now is the virtual time the wall clock has reached. When the world
	// got ahead (a console wait), the clock starts again from there.
	now := func() sim.Time {
		t := base + sim.Time(float64(time.Since(start))*rate)
		if t < w.Now() {
			start, base, t = time.Now(), w.Now(), w.Now()
		}
		return t
	}
	follow := func() error { return s.Follow(w) }
	// stopped reports whether Stop has come. A world that has fallen
	// behind the wall clock (more load than it can simulate in real time)
	// has more to do at each advance than at the one before, so advance
	// asks between instants, not only the loop between advances.
	stopped := func() bool {
		select {
		case <-opts.Stop:
			return true
		default:
			return false
		}
	}
	// advance runs the world to the wall clock's instant, answering as it
	// goes; at Stop it returns errStopped, between two instants.
	advance := func() error {
		if opts.Log != nil {
			if err := opts.Log(w); err != nil {
				return err
			}
		}
		target := now()
		for n := 1; ; n++ {
			next, ok := w.NextEventAt()
			if !ok || next > target {
				break
			}
			if err := w.RunUntil(next); err != nil {
				return err
			}
			f.Deliver(w)
			if stopped() {
				return errStopped
			}
			if opts.Console != nil && n%pollEvery == 0 {
				// A long advance prints as it goes, and the console
				// gives back the history it has done with (a session
				// that forgets it), rather than all of it at the end.
				opts.Console.Poll()
			}
		}
		if err := w.RunUntil(target); err != nil {
			return err
		}
		f.Deliver(w)
		if opts.Tick != nil {
			if err := opts.Tick(w); err != nil {
				return err
			}
		}
		if opts.Console != nil {
			opts.Console.Poll()
		}
		return follow()
	}
	defer f.Close()
	if err := follow(); err != nil {
		return err
	}
	lines := opts.Lines
	wake := newWaker()
	defer wake.timer.Stop()
	for {
		if err := advance(); err != nil {
			return stopErr(err)
		}
		wait := 100 * time.Millisecond
		if next, ok := w.NextEventAt(); ok {
			wait = min(wait, time.Duration(float64(next-w.Now())/rate))
		}
		select {
		case <-opts.Stop:
			return nil
		case <-wake.after(wait):
		case m := <-f.Inbox():
			if err := advance(); err != nil {
				return stopErr(err)
			}
			if err := f.Take(w, m); err != nil {
				return err
			}
		case line, ok := <-lines:
			if !ok {
				lines = nil
				continue
			}
			if err := advance(); err != nil {
				return stopErr(err)
			}
			if opts.Console != nil {
				if err := opts.Console.Exec(line); err != nil {
					return err
				}
			}
		}
		wake.stop()
	}
}

// waker wakes the loop at the world's next instant. Go's timers wake a
// millisecond late or more on Linux (the runtime waits in epoll_pwait, in
// whole milliseconds: a hop of 100µs took 1.1ms), so the timer wakes the
// loop a millisecond early, and the last stretch is slept precisely, off
// the loop's goroutine.
type waker struct{ timer *time.Timer }

func newWaker() *waker {
	k := &waker{timer: time.NewTimer(0)}
	<-k.timer.C
	return k
}

// after returns a channel that is sent on after wait, or a little sooner
// when wait is long enough for the timer (the loop then waits again).
func (k *waker) after(wait time.Duration) <-chan time.Time {
	if wait < timerGranularity {
		return preciseAfter(wait)
	}
	k.timer.Reset(wait - time.Millisecond)
	return k.timer.C
}

// stop stops the timer and drains it, for the next after.
func (k *waker) stop() {
	if !k.timer.Stop() {
		select {
		case <-k.timer.C:
		default:
		}
	}
}

// timerGranularity is the shortest wait Go's timers keep on Linux:
// shorter ones end after a millisecond or more.
const timerGranularity = 2 * time.Millisecond

// pollEvery is how many instants a long advance runs between calls of
// Console.Poll.
const pollEvery = 256

// errStopped is how advance says Stop came, which ends Loop without an
// error.
var errStopped = errors.New("stopped")

func stopErr(err error) error {
	if err == errStopped {
		return nil
	}
	return err
}

// StartCluster runs w until the cluster has started (sim.World.Started),
// as the console does before its first prompt, since the etcd a client
// dials is already running; it fails after limit of virtual time.
func StartCluster(w *sim.World, limit time.Duration) error {
	end := w.Now().Add(limit)
	for !w.Started() {
		next, ok := w.NextEventAt()
		if !ok || next > end {
			return fmt.Errorf("the cluster did not start within %s", limit)
		}
		if err := w.RunUntil(next); err != nil {
			return err
		}
	}
	return nil
}
