package sim

import (
	"math/rand/v2"
	"time"
)

// memberClock is a member's own clock and the ticker that drives its raft.
// The clock may run fast or slow (a clock fault): it reads clockBase at
// virtual time clockSince and runs at rate since. The ticker's interval is
// Config.Tick at that rate, and its phase is drawn from the member's clock
// stream, since processes start at different moments.
type memberClock struct {
	m          *member
	tickEvery  Time
	rate       float64
	clockBase  Time // the member's own clock read clockBase at clockSince (see localNow)
	clockSince Time
	ticks      int // ticks since it started: a poll of etcd's monitorLeader every ElectionTicks
	clockRand  *rand.Rand
}

// tickInterval is the interval of a ticker of tick on a clock that runs at
// rate: whole microseconds, at least one.
func tickInterval(tick time.Duration, rate float64) Time {
	return max(Time(float64(tick)/rate)/Time(time.Microsecond)*Time(time.Microsecond), Time(time.Microsecond))
}

// localNow is the member's own clock, in ns: virtual time, run at the
// member's clock rate since the rate last changed.
func (c *memberClock) localNow() int64 {
	return int64(c.clockBase) + int64(float64(c.m.w.now-c.clockSince)*c.rate)
}

// setClockRate changes how fast the member's clock, and its ticker, run
// from now on.
func (c *memberClock) setClockRate(rate float64) {
	c.clockBase, c.clockSince = Time(c.localNow()), c.m.w.now
	c.rate = rate
	c.tickEvery = tickInterval(c.m.w.cfg.Tick, rate)
}

// startTicking schedules the first tick of a process that starts now: after
// a fraction of a tick drawn from the member's clock stream.
func (c *memberClock) startTicking() {
	m := c.m
	phase := Time(c.clockRand.Int64N(max(int64(c.tickEvery)/int64(time.Microsecond), 1))+1) * Time(time.Microsecond)
	e := m.w.sched.push(m.w.now.plus(phase))
	e.kind, e.node, e.inc = evTick, m.id, m.inc
}

// nextTick schedules the tick after this one.
func (c *memberClock) nextTick() {
	m := c.m
	e := m.w.sched.after(m.w.now, c.tickEvery)
	e.kind, e.node, e.inc = evTick, m.id, m.inc
}
