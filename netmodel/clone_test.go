package netmodel

import (
	"testing"
	"time"
)

func TestCloneIsIndependent(t *testing.T) {
	n := New(LinkProps{Latency: Fixed(10 * time.Millisecond)}, rng(1))
	n.SetProps(1, 2, LinkProps{Latency: Fixed(time.Second)})
	n.Cut(2, 3)
	first := n.Send(1, 2, 0) // arrives at 1s: the link stays FIFO in the clone
	c := n.Clone(rng(2))
	if got := c.Send(1, 2, 0).ArriveAt; got != first.ArriveAt {
		t.Errorf("clone: a message sent on 1→2 arrives at %v, want %v (the same as the one before)", got, first.ArriveAt)
	}
	if !c.IsCut(2, 3) {
		t.Error("clone lost the cut 2→3")
	}
	c.Restore(2, 3)
	c.SetProps(1, 2, LinkProps{Latency: Fixed(time.Millisecond)})
	if !n.IsCut(2, 3) || n.Props(1, 2).Latency.Max != time.Second {
		t.Error("changing the clone changed the original")
	}
}
