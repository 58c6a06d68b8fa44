package sim

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/server"
)

// The packed history gives back every event as it was recorded, in order,
// across chunk boundaries, for every kind of event and every width of
// field, read forwards, backwards or at random.
func TestHistoryGivesBackWhatWasRecorded(t *testing.T) {
	defer func(b int) { chunkBytes = b }(chunkBytes)
	chunkBytes = 64 << 10
	const n = 100_000 // enough to fill several chunks of every store
	rng := rand.New(rand.NewPCG(1, 2))
	w := &World{}
	var want []Event
	var sent []Event // the send of each message, by ID-1
	facts := []EventKind{EvRole, EvPersist, EvCommit, EvApply, EvSnapshot, EvConf, EvRequest, EvReply, EvWatch, EvFault, EvCaption, EvViolation}
	types := []pb.MessageType{pb.MsgApp, pb.MsgAppResp, pb.MsgHeartbeat, pb.MsgHeartbeatResp, pb.MsgProp, pb.MsgSnap, pb.MsgVote}
	for len(want) < n {
		switch r := rng.IntN(100); {
		case r < 30: // same instant
		case r < 95:
			w.now += Time(rng.Int64N(int64(20 * time.Millisecond)))
		case r < 99:
			w.now += Time(5*time.Second) + Time(rng.Int64N(int64(time.Hour))) // a delay beyond 32 bits of ns
		default:
			w.now += Time(rng.Int64N(1 << 20))
		}
		switch r := rng.IntN(10); {
		case r < 4 || len(sent) == 0: // a send, or a drop for an unknown destination
			typ := types[rng.IntN(len(types))]
			m := &pb.Message{Type: &typ, Term: new(rng.Uint64N(1 << 32)), Commit: new(rng.Uint64N(1 << 32)), Reject: new(rng.IntN(2) == 0)}
			if rng.IntN(3) == 0 { // heartbeats repeat the body of the last one
				m.Term, m.Commit, m.Reject = new(uint64(7)), new(uint64(9)), new(false)
			}
			if typ == pb.MsgAppResp { // it carries a reject hint where others carry a commit index
				m.Commit, m.RejectHint = nil, new(rng.Uint64N(1<<32))
			}
			if typ == pb.MsgSnap {
				m.Snapshot = &pb.Snapshot{Metadata: &pb.SnapshotMetadata{Index: new(rng.Uint64N(1 << 32)), Term: new(rng.Uint64N(1 << 32))}}
			} else {
				m.Index, m.LogTerm = new(rng.Uint64N(1<<32)), new(rng.Uint64N(1<<32))
				for range rng.IntN(3) {
					m.Entries = append(m.Entries, &pb.Entry{})
				}
			}
			from, to := 1+rng.Uint64N(1<<16-1), 1+rng.Uint64N(1<<16-1)
			arrive := w.now + Time(rng.Int64N(1<<30))*1000
			forwarded, unknown := typ == pb.MsgProp, rng.IntN(50) == 0
			id := w.recordSend(from, to, m, arrive, forwarded, unknown)
			e := Event{At: w.now, Kind: EvSend, Node: from, Peer: to, Msg: summarize(id, m, arrive)}
			e.Msg.Forwarded = forwarded
			sent = append(sent, e)
			if unknown {
				e.Kind, e.Reason, e.Msg.Forwarded, e.Msg.ArriveAt = EvDrop, netmodel.DropUnknown, false, 0
			}
			want = append(want, e)
		case r < 7: // a delivery or a drop of an earlier message
			e := sent[rng.IntN(len(sent))]
			e.At, e.Msg.Forwarded, e.Msg.ArriveAt = w.now, false, 0
			why := netmodel.DropReason(rng.IntN(5))
			w.recordArrival(e.Msg.ID, why)
			if e.Kind, e.Reason = EvDrop, why; why == netmodel.NotDropped {
				e.Kind, e.Node, e.Peer = EvDeliver, e.Peer, e.Node
			}
			want = append(want, e)
		case r < 8: // a request or an answer whose text its operation says
			op := &Op{ID: uint64(len(w.ops) + 1), Kind: OpPut, Req: server.Put("k"+itoa(rng.Uint64N(9)), "v"), Status: OpOK}
			op.header.Revision = 3
			w.ops = append(w.ops, op)
			e := Event{At: w.now, Kind: EvRequest, Op: op.ID, Node: rng.Uint64N(1 << 16), Text: describeOp(i18n.En, op)}
			if rng.IntN(2) == 0 {
				e.Kind, e.Text = EvReply, describeResult(i18n.En, op)
			}
			w.recordOp(e.Kind, op, e.Node)
			want = append(want, e)
		default:
			e := Event{Kind: facts[rng.IntN(len(facts))], Node: rng.Uint64N(1 << 16)}
			maybe := func(limit uint64) uint64 {
				if rng.IntN(2) == 0 {
					return 0
				}
				return rng.Uint64N(limit)
			}
			e.Term, e.Lead, e.Index, e.N, e.Op = maybe(1<<32), maybe(1<<16), maybe(1<<32), int(maybe(1<<31)), maybe(1<<32)
			e.Peer, e.Role = maybe(1<<16), raft.StateType(maybe(4))
			if rng.IntN(3) == 0 {
				e.Text = "text " + itoa(rng.Uint64())
			}
			w.record(e)
			e.At = w.now
			want = append(want, e)
		}
	}
	if w.HistoryLen() != len(want) {
		t.Fatalf("%d events recorded, the history holds %d", len(want), w.HistoryLen())
	}
	check := func(i int) {
		t.Helper()
		if got := w.EventAt(i); got != want[i] {
			t.Fatalf("event %d:\n got %+v\nwant %+v", i, got, want[i])
		}
	}
	for i := range want {
		check(i)
	}
	for i := len(want) - 1; i >= len(want)-3*blockLen; i-- {
		check(i)
	}
	for range 2000 {
		check(rng.IntN(len(want)))
	}
	h := &w.history
	for _, c := range []struct {
		name string
		full int
	}{
		{"events", len(h.events.chunks) - 5}, // 4, 8, 16, 32 and 64 KiB
		{"msgs", len(h.msgs.chunks) - h.msgs.grown},
		{"bodies", len(h.bodies.chunks) - h.bodies.grown},
	} {
		if c.full < 2 {
			t.Errorf("the %s fill %d full-size chunks: the test does not cross a boundary between them", c.name, c.full)
		}
	}
}

// An idle cluster's tick, a heartbeat round, costs about 210 bytes of
// history (docs/semantics.md and the README say so).
func TestIdleTickHistoryBytes(t *testing.T) {
	w, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Advance(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	h := &w.history
	size := func() int { return h.events.len() + h.msgs.n*12 + h.bodies.n*20 }
	before := size()
	const ticks = 1000
	if err := w.Advance(ticks * w.cfg.Tick); err != nil {
		t.Fatal(err)
	}
	if per := (size() - before) / ticks; per < 200 || per > 220 {
		t.Errorf("an idle tick costs %d bytes of history, want about 210", per)
	}
}

// Full-size chunks may live outside the Go heap (on Linux, in huge pages):
// what is written there reads back, as in the smaller chunks before them.
func TestChunksBeyondTheFirst(t *testing.T) {
	var c chunked[uint64]
	n := 3*chunkBytes/8 + 7
	for i := range n {
		*c.add() = uint64(i) * 2654435761
	}
	if full := len(c.chunks) - c.grown; full < 3 {
		t.Fatalf("%d items in %d full-size chunks, want 3 or more", n, full)
	}
	for i := range n {
		if got := *c.at(i); got != uint64(i)*2654435761 {
			t.Fatalf("item %d = %d", i, got)
		}
	}
}

// What the history says of an event never changes once it is recorded:
// read at the end, every event is what it was when it happened. (Answers
// are worked out from their operations when read, so this also checks that
// nothing changes an operation once it is answered.)
func TestHistoryNeverChangesOnceRecorded(t *testing.T) {
	w := reviewWorld(t, 3, func(c *Config) { c.SnapshotEvery = 4 })
	lead := reviewLeader(t, w)
	f := reviewFollower(w, lead)
	var seen []Event
	look := func() {
		for i := len(seen); i < w.HistoryLen(); i++ {
			seen = append(seen, w.EventAt(i))
		}
	}
	run := func(d time.Duration) {
		t.Helper()
		for end := w.Now().Add(d); w.Now() < end; {
			if err := w.StepInstant(); err != nil {
				t.Fatal(err)
			}
			look()
			if _, ok := w.NextEventAt(); !ok {
				break
			}
		}
	}
	mustDo(t, w, Command{Kind: CmdWatch, Via: f.name, Req: server.WatchPrefix("k"), Label: "watch"})
	for i := range 6 {
		mustDo(t, w, Command{Kind: CmdPut, Via: lead.name, Req: server.Put("k"+itoa(uint64(i)), "v")})
		run(50 * time.Millisecond)
	}
	mustDo(t, w, Command{Kind: CmdPartition, Groups: [][]string{{f.name}, {lead.name, "n3"}}})
	mustDo(t, w, Command{Kind: CmdPut, Via: lead.name, Req: server.Put("k", "new")})
	run(time.Second)
	mustDo(t, w, Command{Kind: CmdGet, Via: f.name, Req: server.Get("k", true)})  // stale
	mustDo(t, w, Command{Kind: CmdGet, Via: f.name, Req: server.Get("k", false)}) // times out
	mustDo(t, w, Command{Kind: CmdCancel, Label: "watch"})
	mustDo(t, w, Command{Kind: CmdDelete, Via: lead.name, Req: server.DeletePrefix("k")})
	run(8 * time.Second)
	mustDo(t, w, Command{Kind: CmdHeal})
	mustDo(t, w, Command{Kind: CmdCrash, Node: lead.name})
	mustDo(t, w, Command{Kind: CmdPut, Via: f.name, Req: server.Put("after", "crash")})
	run(10 * time.Second)
	look()
	stale := false
	for i, want := range seen {
		if got := w.EventAt(i); got != want {
			t.Errorf("event %d read at the end:\n got %+v\nwhen it happened %+v", i, got, want)
		}
		stale = stale || strings.Contains(want.Text, "STALE")
	}
	if !stale || len(seen) < 500 {
		t.Fatalf("%d events and no stale read: the test no longer covers what it says", len(seen))
	}
}

// A chunk that may live outside the Go heap refuses a type with pointers,
// which the garbage collector would not see there.
func TestChunksRefusePointers(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a chunked of strings was allowed")
		}
	}()
	var c chunked[string]
	c.add()
}
