package ui

import (
	"fmt"
	"sort"
	"time"

	"github.com/raftsim/raftsim/sim"
)

// The window's world keeps a bounded history (issue 29: `raftsim
// --start-at 100h`, a link's t=100h, held every event of the hundred hours,
// 7 MB a virtual hour, 1.1 GB): what the picture and the pace read of the
// history is the last stretch of virtual time (the drop marks, at most a
// second of virtual time per unit of speed, 100 s at the top speed; the
// pacer, 30 s), and the timeline's marks are scanned as the world runs.
// So the session gives back the events older than historyKeepBack once
// forgetAfter have gathered, and a seek back replays the branch's log
// (the log is the checkpoint: the world is a function of its
// configuration and commands) the same way, forgetting as it goes. The
// picture at any time is the same as without forgetting, played or
// sought (TestForgettingSessionDrawsTheSame).
const (
	historyKeepBack = sim.Time(2 * time.Minute)
	forgetAfter     = 1 << 17
	// runSlice is how much virtual time the session runs at a go between
	// looks at the history's size.
	runSlice = sim.Time(time.Minute)
)

// forget gives back the events the window no longer reads: before
// historyKeepBack of virtual time ago, and only those the timeline's marks
// have scanned. The world at a scenario driver's head is the driver's
// (its runner reads its own history), and is left whole.
func (s *Session) forget() {
	w := s.w
	start, n := w.HistoryStart(), w.HistoryLen()
	every := forgetAfter
	if s.forgetEvery > 0 {
		every = s.forgetEvery
	}
	if n-start < every || s.atDriverHead() || s.keepAll {
		return
	}
	s.rescan()
	keepFrom := w.Now() - historyKeepBack
	cut := start + sort.Search(n-start, func(i int) bool { return w.EventAt(start+i).At > keepFrom })
	if cut = min(cut, s.scanned); cut > start {
		w.ForgetEvents(cut)
	}
}

// replay puts on screen the world rebuilt from cmds up to t, as
// sim.Replay builds it, but run as runUntil runs it (in slices, forgetting
// what the window no longer reads, and stopping when Stop says so), the
// timeline's marks scanned as it goes. It reports whether it replaced the
// world: a configuration that no longer builds one leaves the world as it
// was; a command that cannot apply leaves the world where it stopped, with
// the error, as sim.Replay does.
func (s *Session) replay(cmds []sim.Command, t sim.Time) (bool, error) {
	w, err := sim.New(s.cfg)
	if err != nil {
		return false, err
	}
	s.w = w
	s.marks, s.future, s.scanned, s.scan = nil, nil, 0, markScanner{}
	defer s.rescan()
	for _, c := range cmds {
		if c.At > t {
			break
		}
		if err := s.runUntil(c.At); err != nil {
			return true, err
		}
		if _, err := w.Do(c); err != nil {
			return true, fmt.Errorf("replaying %s at %s: %w", c.Kind, c.At, err)
		}
	}
	return true, s.runUntil(t)
}
