package ui

import (
	"math"

	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/sim"
)

// Progress returns how far along its link a message is at now: 0 when it
// is sent, 1 when it arrives (or, if lost, vanishes). A message whose send
// and arrival are the same instant is at 1.
func Progress(sent, arrive, now sim.Time) float64 {
	if arrive <= sent {
		return 1
	}
	f := float64(now-sent) / float64(arrive-sent)
	return math.Max(0, math.Min(1, f))
}

// Lane returns the track a message from a to b travels along: from the
// edge of a's shape to the edge of b's, shifted to the right of the
// direction of travel by off so that the two directions of a link do not
// overlap.
func Lane(a, b Point, nodeR, off float64) (start, end Point) {
	d := b.Sub(a)
	l := d.Len()
	if l == 0 {
		return a, b
	}
	u := d.Scale(1 / l)
	n := Point{-u.Y, u.X} // to the right of travel on a y-down screen
	gap := math.Min(nodeR+2, l/2)
	start = a.Add(u.Scale(gap)).Add(n.Scale(off))
	end = b.Sub(u.Scale(gap)).Add(n.Scale(off))
	return start, end
}

// laneOffset is how far a direction's lane sits from the link's centre line.
// Far enough apart that two glyphs passing each other do not cover one
// another.
func laneOffset(scale float64) float64 { return 8 * scale }

// MessagePos returns where the message is drawn at now, and false if either
// end is not on the ring. Messages queued at a stalled member wait at its
// edge, stacked by their position in the queue.
func MessagePos(g Ring, names map[string]int, m sim.MessageView, queuePos int, now sim.Time, scale float64) (Point, bool) {
	i, ok1 := names[m.From]
	j, ok2 := names[m.To]
	if !ok1 || !ok2 || i == j {
		return Point{}, false
	}
	start, end := Lane(g.Pos[i], g.Pos[j], g.NodeR, laneOffset(scale))
	if m.Queued {
		back := end.Sub(start)
		l := back.Len()
		if l > 0 {
			back = back.Scale(-1 / l)
		}
		return end.Add(back.Scale(float64(min(queuePos, 8)) * 6 * scale)), true
	}
	return start.Lerp(end, Progress(m.SentAt, m.ArriveAt, now)), true
}

// DropFraction is where along its lane a dropped message's mark is drawn:
// part-way to the cut mark for a cut link, mid-way for a loss, at the
// receiver when it was down or its queue was full.
func DropFraction(r netmodel.DropReason) float64 {
	switch r {
	case netmodel.DropCut:
		return 0.4
	case netmodel.DropLoss:
		return 0.7
	}
	return 1
}

// DropPos returns where the mark of a message dropped from a to b is drawn.
func DropPos(g Ring, names map[string]int, from, to string, r netmodel.DropReason, scale float64) (Point, bool) {
	i, ok1 := names[from]
	j, ok2 := names[to]
	if !ok1 || !ok2 || i == j {
		return Point{}, false
	}
	start, end := Lane(g.Pos[i], g.Pos[j], g.NodeR, laneOffset(scale))
	return start.Lerp(end, DropFraction(r)), true
}

// CutMark returns where the mark of a cut link is drawn, and whether the
// cut is one way. A link cut both ways has one mark on its centre line; a
// one-way cut a→b has its mark on the a→b lane, near b.
func CutMark(g Ring, names map[string]int, from, to string, bothWays bool, scale float64) (Point, bool) {
	i, ok1 := names[from]
	j, ok2 := names[to]
	if !ok1 || !ok2 || i == j {
		return Point{}, false
	}
	if bothWays {
		return g.Pos[i].Lerp(g.Pos[j], 0.5), true
	}
	start, end := Lane(g.Pos[i], g.Pos[j], g.NodeR, laneOffset(scale))
	return start.Lerp(end, 0.7), true
}
