package ui

import (
	"math"
	"time"

	"github.com/raftsim/raftsim/sim"
)

// playClock turns ticks of play into virtual times without rounding
// noise. A tick is 1/TPS of a second times the rate, which is rarely a
// whole number of nanoseconds (1/10× gives 1,666,666.67 ns); adding
// rounded ticks drifts (276 ticks made 0.459999816s). So the clock counts
// ticks from where play last started, or the rate last changed, and
// rounds the total to the microsecond: 276 ticks at 1/10× are exactly
// 0.460000s, and every time shown or saved is a whole microsecond.
type playClock struct {
	base  sim.Time // where the count started
	rate  float64  // virtual seconds per real second
	ticks int64
	last  sim.Time // the time the clock last gave
}

// next returns where one more tick at rate takes virtual time from now.
// Anything else that moved time (a seek, a step, a pause that stopped
// short) starts a new count from now.
func (c *playClock) next(now sim.Time, rate float64) sim.Time {
	if now != c.last || rate != c.rate || c.ticks == 0 {
		*c = playClock{base: now, rate: rate}
	}
	c.ticks++
	us := math.Round(float64(c.ticks) * rate * 1e6 / TPS)
	c.last = c.base + sim.Time(us)*sim.Time(time.Microsecond)
	if c.last <= now {
		// A rate so slow that a tick is under half a microsecond: move by
		// one microsecond, so that playing never stands still.
		c.last = now + sim.Time(time.Microsecond)
	}
	return c.last
}
