package present

import (
	"testing"
	"time"

	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/sim"
)

// Observe reports a fresh message only for a message that is not a
// heartbeat being sent or dropped: a dropped heartbeat (every 100ms on
// each cut link) does not end the frame, or the pacing would depend on
// how many links are cut.
func TestObserveIgnoresHeartbeats(t *testing.T) {
	for _, c := range []struct {
		kind  sim.EventKind
		typ   pb.MessageType
		fresh bool
	}{
		{sim.EvSend, pb.MsgApp, true},
		{sim.EvDrop, pb.MsgApp, true},
		{sim.EvSend, pb.MsgHeartbeat, false},
		{sim.EvSend, pb.MsgHeartbeatResp, false},
		{sim.EvDrop, pb.MsgHeartbeat, false},
		{sim.EvDrop, pb.MsgHeartbeatResp, false},
		{sim.EvDeliver, pb.MsgApp, false},
	} {
		p := NewPacer(60)
		e := sim.Event{Kind: c.kind, At: 1, Msg: sim.MsgSummary{ID: 1, Type: c.typ, ArriveAt: 2}}
		if got := p.note(e); got != c.fresh {
			t.Errorf("%v of a %v: fresh %v, want %v", c.kind, c.typ, got, c.fresh)
		}
	}
}

// Through split-brain's partition, every slice of time that Observe calls
// fresh has a message that is not a heartbeat sent or dropped in it.
func TestObserveDuringAPartition(t *testing.T) {
	l, err := Open("split-brain", "en", 0)
	if err != nil {
		t.Fatal(err)
	}
	var cut int
	for i, s := range l.Steps {
		if s.IsPause() {
			cut = i + 1
			break
		}
	}
	run, err := l.RunTo(cut)
	if err != nil {
		t.Fatal(err)
	}
	w := run.World()
	p := NewPacer(60)
	p.Observe(w)
	heartbeatDrops := 0
	for range 100 {
		before := w.HistoryLen()
		run.Resume()
		if _, err := run.Advance(w.Now() + sim.Time(10*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		real := false
		for i := before; i < w.HistoryLen(); i++ {
			e := w.EventAt(i)
			hb := e.Msg.Type == pb.MsgHeartbeat || e.Msg.Type == pb.MsgHeartbeatResp
			switch {
			case (e.Kind == sim.EvSend || e.Kind == sim.EvDrop) && !hb:
				real = true
			case e.Kind == sim.EvDrop && hb:
				heartbeatDrops++
			}
		}
		if fresh := p.Observe(w); fresh && !real {
			t.Fatalf("at %s Observe reports a fresh message, but only heartbeats were sent or dropped", w.Now())
		}
	}
	if heartbeatDrops == 0 {
		t.Fatal("no heartbeat was dropped: the partition is not in this second")
	}
}
