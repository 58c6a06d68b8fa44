package present

import (
	"math"
	"strconv"
	"time"

	"github.com/raftsim/raftsim/sim"
)

// Pacing: a slow-motion replay. While a message that is not a heartbeat
// is in flight, time runs slowly enough for the shortest of them to stay
// on screen for OnScreen of wall time; once the last one has landed, time
// stays slow for calmHold (the audience sees what the message did), then
// doubles every calmDoubling up to MaxRate, so that waiting out an
// election timeout or a client's 7s timeout takes a second or two.
const (
	// OnScreen is the wall time every message that is not a heartbeat
	// stays on screen at the least, at the default pace. (The goal is
	// 0.3s; the margin covers frames that end early.)
	OnScreen = 360 * time.Millisecond
	// MaxRate is the fastest adaptive rate: 8 virtual seconds a second.
	MaxRate = 8.0
	// MinRate is the slowest rate any mode allows.
	MinRate    = 0.001
	calmHold   = 400 * time.Millisecond
	calmDouble = 150 * time.Millisecond
	// typicalRate is where a calm stretch starts before any message has
	// flown: the rate that shows a 10ms message for OnScreen.
	typicalRate = 0.010 / 0.360
	// lookBack bounds how far back in virtual time a rebuilt pacer looks
	// for messages still in flight.
	lookBack = sim.Time(30 * time.Second)
)

// Pacer decides how fast virtual time runs, frame by frame. It reads the
// world's history (sends and drops) as it grows; it never reads the wall
// clock: a frame is 1/tps of a second.
type Pacer struct {
	// Fixed runs time at FixedRate, whatever is on screen.
	Fixed     bool
	FixedRate float64
	// Scale multiplies the adaptive rate (the presenter's faster and
	// slower): 1 is the default pace, at which the goals hold.
	Scale float64

	tps      float64
	w        *sim.World
	scanned  int
	flight   []flight
	calm     int     // frames played since no message was in flight
	lastBusy float64 // the last rate that was set by messages in flight
	rate     float64 // the rate of the latest frame
}

type flight struct {
	id           uint64
	sent, arrive sim.Time
}

// NewPacer makes an adaptive pacer for a window that runs tps frames a
// second.
func NewPacer(tps int) *Pacer {
	return &Pacer{Scale: 1, FixedRate: 0.1, tps: float64(tps), lastBusy: typicalRate, rate: typicalRate}
}

// Observe reads what the world recorded since the last call. It reports
// whether a message that is not a heartbeat was sent or dropped: a frame
// that is moving time on should stop there, so that the message is seen
// from its start at the pace it sets.
func (p *Pacer) Observe(w *sim.World) bool {
	if w != p.w || w.HistoryLen() < p.scanned {
		p.rebuild(w)
		return false
	}
	fresh := false
	// What the session forgot (ui.Session keeps the last two minutes of
	// virtual time) is older than anything still in flight here.
	p.scanned = max(p.scanned, w.HistoryStart())
	for ; p.scanned < w.HistoryLen(); p.scanned++ {
		fresh = p.note(w.EventAt(p.scanned)) || fresh
	}
	return fresh
}

func (p *Pacer) note(e sim.Event) bool {
	// By the message's type, not the event's: a dropped heartbeat is a
	// heartbeat too (Event.IsHeartbeat is about sends and deliveries).
	if sim.IsHeartbeatType(e.Msg.Type) {
		return false
	}
	switch e.Kind {
	case sim.EvSend:
		if e.Msg.ArriveAt > e.At {
			p.flight = append(p.flight, flight{id: e.Msg.ID, sent: e.At, arrive: e.Msg.ArriveAt})
		}
		return true
	case sim.EvDrop:
		// A message dropped before it arrives (on a cut link, at once) is
		// not in flight any more; its drop mark is drawn instead.
		for i, f := range p.flight {
			if f.id == e.Msg.ID {
				p.flight = append(p.flight[:i], p.flight[i+1:]...)
				break
			}
		}
		return true
	}
	return false
}

// rebuild starts over on another world (a seek, a rewind, a new lesson):
// the messages in flight now are found by looking back a while.
func (p *Pacer) rebuild(w *sim.World) {
	p.w, p.flight, p.calm = w, nil, 0
	n := w.HistoryLen()
	start := n
	for start > w.HistoryStart() && w.EventAt(start-1).At+lookBack >= w.Now() {
		start--
	}
	for i := start; i < n; i++ {
		p.note(w.EventAt(i))
	}
	p.scanned = n
}

// Busy reports whether a message that is not a heartbeat is in flight now.
func (p *Pacer) Busy() bool {
	p.prune()
	return len(p.flight) > 0
}

func (p *Pacer) prune() {
	if p.w == nil {
		return
	}
	now := p.w.Now()
	keep := p.flight[:0]
	for _, f := range p.flight {
		if f.arrive > now {
			keep = append(keep, f)
		}
	}
	p.flight = keep
}

// Rate returns the rate for the coming frame: virtual seconds per wall
// second.
func (p *Pacer) Rate() float64 {
	if p.Fixed {
		p.rate = p.FixedRate
		return p.rate
	}
	p.prune()
	var r float64
	if len(p.flight) > 0 {
		shortest := p.flight[0].arrive - p.flight[0].sent
		for _, f := range p.flight[1:] {
			shortest = min(shortest, f.arrive-f.sent)
		}
		r = time.Duration(shortest).Seconds() / OnScreen.Seconds()
		p.lastBusy = r
	} else {
		calm := float64(p.calm)/p.tps - calmHold.Seconds()
		r = p.lastBusy * math.Exp2(max(0, calm)/calmDouble.Seconds())
	}
	p.rate = math.Max(MinRate, math.Min(MaxRate, r*p.Scale))
	return p.rate
}

// Played tells the pacer that a frame moved time on (held frames, at a
// caption or a pause, do not count towards a calm stretch).
func (p *Pacer) Played() {
	if p.Busy() {
		p.calm = 0
	} else {
		p.calm++
	}
}

// LastRate returns the rate of the latest frame.
func (p *Pacer) LastRate() float64 { return p.rate }

// RateLabel writes a rate as a person reads it: "1/36×", "2×". A rate
// that rounds to 1 either way is "1×".
func RateLabel(r float64) string {
	if r <= 0 {
		return "0×"
	}
	return ScaleLabel(r) + "×"
}

// ScaleLabel writes a factor without the ×: "1/4", "2".
func ScaleLabel(r float64) string {
	if r <= 0 {
		return "0"
	}
	if r >= 1 || roundNice(1/r) == 1 {
		return trimFloat(roundNice(r))
	}
	return "1/" + trimFloat(roundNice(1/r))
}

// roundNice rounds to two significant digits, and to a whole number above
// ten, so that the header does not flicker with noise.
func roundNice(x float64) float64 {
	if x >= 10 {
		return math.Round(x)
	}
	return math.Round(x*10) / 10
}

func trimFloat(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
