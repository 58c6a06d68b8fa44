package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
	"github.com/raftsim/raftsim/swarm"
)

// runScenario runs a scenario to its end (through its pauses) and returns
// its world.
func runScenario(t *testing.T, s *scenarios.Scenario) *sim.World {
	t.Helper()
	r, err := scenarios.NewRunner(s, scenarios.RunOptions{SkipStepErrors: true})
	if err != nil {
		t.Fatalf("%s: %v", s.Name, err)
	}
	for {
		st, err := r.Run()
		if st == scenarios.Paused {
			r.Resume()
			continue
		}
		if err != nil && r.World().Violation() == nil && !strings.Contains(err.Error(), "expect") {
			t.Logf("%s: %v", s.Name, err)
		}
		return r.World()
	}
}

// checkRequestPaths scans the world's history as the window does and holds
// every request's path to the messages that carry its request ID and the
// entry a leader appended for it:
//   - every hop after a forwarding hop is a proposal (a write) or a
//     read-index request (a read) sent from the hop before to it, that
//     carries the request (World.Carries);
//   - a hop marked dropped is one whose message was dropped, for that
//     reason; a hop marked reached, one whose message arrived;
//   - a write's hop shown as "leader X" is the leader that appended the
//     write's entry (World.EntryOf, from the entries the leader wrote,
//     read by their request IDs), and a leader that appended it is on
//     the path;
//   - no hop after a dropped one.
//
// It returns how many forwarded hops it checked, and how many of them were
// writes dropped on the way (the split-brain student's case).
func checkRequestPaths(t *testing.T, name string, w *sim.World) (hops, droppedWrites int) {
	t.Helper()
	var sc markScanner
	type msgFacts struct {
		send    sim.Event
		arrived []sim.Event // its deliveries and drop
	}
	msgs := map[uint64]*msgFacts{}
	for i := w.HistoryStart(); i < w.HistoryLen(); i++ {
		e := w.EventAt(i)
		sc.mark(w, e)
		switch e.Kind {
		case sim.EvSend:
			if e.Msg.Type == pb.MsgProp || e.Msg.Type == pb.MsgReadIndex {
				msgs[e.Msg.ID] = &msgFacts{send: e}
			}
		case sim.EvDeliver, sim.EvDrop:
			if f := msgs[e.Msg.ID]; f != nil {
				f.arrived = append(f.arrived, e)
			}
		}
	}
	names := w.MemberNames()
	nodeName := func(id uint64) string { return names[id-1] }
	bad := 0
	fail := func(op *sim.Op, p []Hop, format string, args ...any) {
		bad++
		if bad <= 10 {
			t.Errorf("%s: request %d (%s via %s, %s %q): path %q %+v: %s", name, op.ID, op.Kind, op.Client, op.Status, op.Err,
				opPath(0, *op, p), p, fmt.Sprintf(format, args...))
		}
	}
	for _, op := range w.Ops() {
		if op == nil {
			continue
		}
		p := sc.paths[op.ID]
		ent, appended := w.EntryOf(op)
		for k, h := range p {
			if k == 0 || !p[k-1].Forwarded {
				// A hop the client sent it to: the first, or a new attempt
				// after the one before failed.
				if k > 0 && !p[k-1].Failed {
					fail(op, p, "hop %d (%s): a new attempt after one that did not fail", k, h.Member)
				}
				if h.Reached || h.Leader || h.Dropped != "" {
					fail(op, p, "hop %d (%s) was not forwarded to, yet says reached/leader/dropped", k, h.Member)
				}
				continue
			}
			hops++
			if h.Dropped != "" && op.Kind.IsWrite() {
				droppedWrites++
			}
			want := pb.MsgProp
			if op.Kind == sim.OpGet {
				want = pb.MsgReadIndex
			}
			// The message that carried it there.
			carrier := msgs[h.Msg]
			switch {
			case carrier == nil:
				fail(op, p, "hop %d: no %s with ID %d was sent", k, want, h.Msg)
				continue
			case carrier.send.Msg.Type != want || nodeName(carrier.send.Node) != p[k-1].Member || nodeName(carrier.send.Peer) != h.Member:
				fail(op, p, "hop %d: message %d is a %s from %s to %s", k, h.Msg, carrier.send.Msg.Type, nodeName(carrier.send.Node), nodeName(carrier.send.Peer))
				continue
			}
			if !slices.Contains(w.Carries(h.Msg), op.ID) {
				fail(op, p, "hop %d: message %d does not carry its request ID", k, h.Msg)
			}
			var dropped string
			delivered := false
			for _, a := range carrier.arrived {
				if a.Kind == sim.EvDrop {
					dropped = a.Reason.String()
				} else {
					delivered = true
				}
			}
			switch {
			case h.Dropped != "" && h.Dropped != dropped:
				fail(op, p, "hop %d says dropped (%s), its message %d: dropped %q", k, h.Dropped, carrier.send.Msg.ID, dropped)
			case h.Dropped == "" && dropped != "":
				fail(op, p, "hop %d does not say its message %d was dropped (%s)", k, carrier.send.Msg.ID, dropped)
			case h.Reached != delivered:
				fail(op, p, "hop %d reached=%v, its message %d delivered=%v", k, h.Reached, carrier.send.Msg.ID, delivered)
			}
			if h.Leader && (!h.Reached || h.Dropped != "") {
				fail(op, p, "hop %d shows a leader its message did not reach", k)
			}
			if h.Dropped != "" && !strings.Contains(opPath(0, *op, p), h.Member+" (dropped") {
				fail(op, p, "hop %d: its row does not say it was dropped", k)
			}
			if k+1 < len(p) && h.Dropped != "" && !h.Failed {
				fail(op, p, "hop %d: a hop after a dropped one that did not end its attempt", k)
			}
			if h.Leader && op.Kind.IsWrite() && appended && ent.Member != h.Member {
				fail(op, p, "hop %d shows leader %s, but the entry holding its request ID was appended by %+v (%v)", k, h.Member, ent, appended)
			}
		}
		if op.Kind.IsWrite() {
			for id, f := range msgs {
				if f.send.Msg.Type != pb.MsgProp || !slices.Contains(w.Carries(id), op.ID) {
					continue
				}
				if !slices.ContainsFunc(p, func(h Hop) bool { return h.Msg == id }) {
					fail(op, p, "the proposal %d from %s to %s carries it, and is not on its path", id, nodeName(f.send.Node), nodeName(f.send.Peer))
				}
			}
		}
		if appended && op.Kind.IsWrite() {
			on := false
			for _, h := range p {
				on = on || h.Member == ent.Member && !h.Failed
			}
			if !on {
				fail(op, p, "the leader %s appended its entry %d (term %d), and is not on its path", ent.Member, ent.Index, ent.Term)
			}
		}
	}
	return hops, droppedWrites
}

// TestRequestPathsFollowRequestIDs holds the request paths of every lesson
// and of 200 swarm seeds to the messages and entries that carry their
// request IDs (issue 36).
func TestRequestPathsFollowRequestIDs(t *testing.T) {
	ls, err := scenarios.Lessons()
	if err != nil {
		t.Fatal(err)
	}
	total, dropped := 0, 0
	add := func(h, d int) { total, dropped = total+h, dropped+d }
	for _, l := range ls {
		s, err := scenarios.LoadLesson(l.Name)
		if err != nil {
			t.Fatal(err)
		}
		add(checkRequestPaths(t, l.Name, runScenario(t, s)))
	}
	seeds := 200
	if testing.Short() {
		seeds = 20
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		s, _ := swarm.Generate(seed, swarm.DefaultOptions())
		add(checkRequestPaths(t, fmt.Sprintf("swarm seed %d", seed), runScenario(t, s)))
	}
	if total < 100 {
		t.Errorf("only %d forwarded hops checked: the test checks little", total)
	}
	if dropped == 0 {
		t.Errorf("no forwarded write was dropped on its way: the split-brain case is not among them")
	}
	t.Logf("%d forwarded hops checked, %d of them writes dropped on the way", total, dropped)
}
