package ui

import (
	"math"
	"testing"
	"time"

	"github.com/raftsim/raftsim/sim"
)

func ms(n int) sim.Time { return sim.Time(time.Duration(n) * time.Millisecond) }

func TestProgress(t *testing.T) {
	tests := []struct {
		sent, arrive, now sim.Time
		want              float64
	}{
		{ms(10), ms(20), ms(10), 0},
		{ms(10), ms(20), ms(15), 0.5},
		{ms(10), ms(20), ms(20), 1},
		{ms(10), ms(20), ms(5), 0},  // not yet sent (a seek)
		{ms(10), ms(20), ms(30), 1}, // late
		{ms(10), ms(10), ms(10), 1}, // instant
		{ms(0), ms(1000), ms(250), 0.25},
	}
	for _, tt := range tests {
		if got := Progress(tt.sent, tt.arrive, tt.now); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("Progress(%s, %s, %s) = %g, want %g", tt.sent, tt.arrive, tt.now, got, tt.want)
		}
	}
}

// A message moves from its sender's edge to its receiver's, and the two
// directions of a link use different lanes.
func TestMessagePos(t *testing.T) {
	g := Ring{NodeR: 26, Pos: []Point{{100, 200}, {300, 200}}, Center: Point{200, 200}}
	names := map[string]int{"a": 0, "b": 1}
	m := sim.MessageView{From: "a", To: "b", SentAt: ms(0), MsgSummary: sim.MsgSummary{ArriveAt: ms(10)}}
	p0, _ := MessagePos(g, names, m, 0, ms(0), 1)
	p1, _ := MessagePos(g, names, m, 0, ms(10), 1)
	mid, _ := MessagePos(g, names, m, 0, ms(5), 1)
	if d := p0.Sub(g.Pos[0]).Len(); d < g.NodeR || d > g.NodeR+8 {
		t.Errorf("at send it is %g from its sender, want just outside its shape (%g)", d, g.NodeR)
	}
	if d := p1.Sub(g.Pos[1]).Len(); d < g.NodeR || d > g.NodeR+8 {
		t.Errorf("at arrival it is %g from its receiver, want just outside its shape (%g)", d, g.NodeR)
	}
	if d := mid.Sub(p0.Lerp(p1, 0.5)).Len(); d > 1e-6 {
		t.Errorf("half-way it is %g off the middle of its lane", d)
	}
	back := m
	back.From, back.To = "b", "a"
	q, _ := MessagePos(g, names, back, 0, ms(5), 1)
	if q.Sub(mid).Len() < 5 {
		t.Errorf("a→b and b→a at the same moment are %g apart: the lanes overlap", q.Sub(mid).Len())
	}
	if _, ok := MessagePos(g, names, sim.MessageView{From: "a", To: "zz"}, 0, 0, 1); ok {
		t.Error("a message to an unknown member was placed")
	}
}

func abs(f float64) float64 { return math.Abs(f) }
