package ui

import (
	"testing"
	"time"

	"github.com/raftsim/raftsim/sim"
)

// Play at 1/10× for 276 ticks reaches exactly 0.460s: the time shown and
// saved has no float noise (it used to be 0.459999816s).
func TestPlayClockHasNoRoundingNoise(t *testing.T) {
	var c playClock
	now := sim.Time(0)
	for range 276 {
		now = c.next(now, 0.1)
	}
	if now != sim.Time(460*time.Millisecond) {
		t.Errorf("276 ticks at 1/10× reached %s, want 0.460s", now)
	}
	for _, rate := range []float64{0.001, 0.002, 0.05, 0.1, 1, 2, 100} {
		var c playClock
		now := sim.Time(0)
		for i := range 600 {
			now = c.next(now, rate)
			if now%sim.Time(time.Microsecond) != 0 {
				t.Fatalf("rate %g, tick %d: %d ns is not a whole microsecond", rate, i+1, int64(now))
			}
		}
		if want := sim.Time(rate * 10 * float64(time.Second)); now != want {
			t.Errorf("600 ticks (10 s) at %g× reached %s, want %s", rate, now, want)
		}
	}
}

// A seek, a step or a new rate starts a new count from where time is.
func TestPlayClockRestartsWhenTimeMovesElsewhere(t *testing.T) {
	var c playClock
	now := c.next(0, 0.1)                             // 1.667ms
	now = c.next(now, 0.1)                            // 3.333ms
	now = c.next(now+sim.Time(time.Millisecond), 0.1) // a step moved time to 4.333ms
	if want := sim.Time(6 * time.Millisecond); now != want {
		t.Errorf("a tick after a step to 4.333ms reached %s, want %s", now, want)
	}
	start := sim.Time(2 * time.Second)
	now = start
	for range 3 {
		now = c.next(now, 1)
	}
	if now != start+sim.Time(50*time.Millisecond) {
		t.Errorf("3 ticks at 1× from 2s reached %s, want 2.050s", now)
	}
}
