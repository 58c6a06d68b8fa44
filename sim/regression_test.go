package sim

// Regression tests from a review: each asserts what the contract asks for,
// and each failed before its fix. Each test's comment describes the bug as
// it was found.

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"go.etcd.io/raft/v3/tracker"

	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/server"
)

func reviewWorld(t *testing.T, members int, tweak func(*Config)) *World {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Members = nil
	for i := 1; i <= members; i++ {
		cfg.Members = append(cfg.Members, fmt.Sprintf("n%d", i))
	}
	if tweak != nil {
		tweak(&cfg)
	}
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func reviewLeader(t *testing.T, w *World) *member {
	t.Helper()
	for i := 0; i < 100; i++ {
		if l := w.leader(); l != nil {
			return l
		}
		if err := w.Advance(100 * time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal("no leader after 10s")
	return nil
}

// reviewFollower returns the first member that is not lead.
func reviewFollower(w *World, lead *member) *member {
	for _, m := range w.members {
		if m != lead {
			return m
		}
	}
	return nil
}

func mustDo(t *testing.T, w *World, c Command) *Op {
	t.Helper()
	op, err := w.Do(c)
	if err != nil {
		t.Fatalf("%s: %v", c.Kind, err)
	}
	return op
}

// noPanic runs f and fails the test, instead of crashing the binary, when
// it panics.
func noPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s panicked: %v", what, r)
		}
	}()
	f()
}

// remove_member of the last voter is accepted by the leader, and applying
// it panics inside raft (confchange: "removed all voters"; raft.go:1967
// panics on the error). User input must not panic.
func TestRemovingTheLastVoterIsRefused(t *testing.T) {
	w := reviewWorld(t, 1, nil)
	reviewLeader(t, w)
	noPanic(t, "remove_member of the only voter", func() {
		if _, err := w.Do(Command{Kind: CmdRemoveMember, Node: "n1"}); err != nil {
			t.Logf("refused (good): %v", err)
			return
		}
		_ = w.Advance(time.Second)
	})
}

// A stall (or any duration) near time.Duration's limit overflows virtual
// time: the stall ends "at" a negative time, which RunUntil then processes
// at once, moving the clock backwards. The scenario parser and the sim
// accept any non-negative duration.
func TestHugeStallNeverMovesTimeBackwards(t *testing.T) {
	w := reviewWorld(t, 3, nil)
	reviewLeader(t, w)
	mustDo(t, w, Command{Kind: CmdStall, Node: "n1", For: time.Duration(math.MaxInt64 - 1)})
	start := w.HistoryLen()
	if err := w.Advance(time.Second); err != nil {
		t.Fatal(err)
	}
	prev := w.EventAt(start - 1).At
	for i := start; i < w.HistoryLen(); i++ {
		e := w.EventAt(i)
		if e.At < prev {
			t.Fatalf("virtual time went backwards: event %d at %s after %s: %s", i, e.At, prev, w.Describe(e))
		}
		prev = e.At
	}
	if in, _ := w.Info("n1"); !in.Stalled {
		t.Fatalf("n1 should still be stalled")
	}
}

// clock rate 1e-12 (accepted by the scenario parser: > 0 and <= 100) makes
// float64(Tick)/rate overflow int64; the conversion is implementation-
// defined (amd64: MinInt64, arm64: MaxInt64), so a very slow clock becomes
// a 1µs tick on amd64 and an overflowing schedule on arm64.
func TestClockRateIsBounded(t *testing.T) {
	w := reviewWorld(t, 3, nil)
	reviewLeader(t, w)
	if _, err := w.Do(Command{Kind: CmdClock, Node: "n1", Rate: 1e-12}); err == nil {
		t.Fatal("a clock rate of 1e-12 was accepted")
	}
	mustDo(t, w, Command{Kind: CmdClock, Node: "n1", Rate: MinClockRate})
	m := w.byName["n1"]
	if m.tickEvery < Time(w.cfg.Tick) {
		t.Fatalf("rate 1e-12 should slow n1's ticks, but it now ticks every %s (was %s)", time.Duration(m.tickEvery), w.cfg.Tick)
	}
}

// Two membership changes in a row: raft v3.7.0 silently replaces the second
// ConfChange with an empty entry while the first is unapplied
// (ProposeConfChange returns nil). etcd's client then waits for an answer
// that never comes and times out; the member it asked to add never joins,
// and (never started) is neither a follower nor in the way of converged.
func TestSecondConfChangeWhileOneIsPendingTimesOut(t *testing.T) {
	w := reviewWorld(t, 3, nil)
	reviewLeader(t, w)
	if err := w.Advance(6 * time.Second); err != nil { // etcd's strict check wants peers connected for 5s
		t.Fatal(err)
	}
	first := mustDo(t, w, Command{Kind: CmdAddMember, Node: "n4", Learner: true})
	second := mustDo(t, w, Command{Kind: CmdAddMember, Node: "n5"})
	if err := w.Advance(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	voters, learners, _ := w.Membership()
	if first.Status != OpOK || !slices.Contains(learners, "n4") {
		t.Fatalf("the first change: %s %q; learners %v", first.Status, first.Err, learners)
	}
	if second.Status != OpTimeout || slices.Contains(voters, "n5") {
		t.Fatalf("the second change: %s %q; voters %v (want a timeout, and no n5)", second.Status, second.Err, voters)
	}
	if !w.Converged() {
		t.Fatal("a member that never joined keeps the cluster from converging")
	}
}

// A MsgSnap that reaches a stalled member waits in its queue; if the member
// then crashes, the queue is discarded with no drop event and no
// ReportSnapshot(Failure). The leader's progress for it stays in
// StateSnapshot, so after the restart it is never caught up.
func TestSnapQueuedAtACrashedMemberIsReportedFailed(t *testing.T) {
	w := reviewWorld(t, 3, func(c *Config) { c.SnapshotEvery = 5 })
	lead := reviewLeader(t, w)
	f := reviewFollower(w, lead)
	mustDo(t, w, Command{Kind: CmdCrash, Node: f.name})
	for i := 0; i < 20; i++ {
		mustDo(t, w, Command{Kind: CmdPut, Via: lead.name, Req: server.Put("k", fmt.Sprint(i))})
		if err := w.Advance(50 * time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	mustDo(t, w, Command{Kind: CmdRestart, Node: f.name})
	// Run until the leader sends f a snapshot, then stall f before it lands.
	mark := w.HistoryLen()
	sent := false
	for step := 0; step < 10000 && !sent; step++ {
		if err := w.StepInstant(); err != nil {
			t.Fatal(err)
		}
		for ; mark < w.HistoryLen(); mark++ {
			e := w.EventAt(mark)
			if e.Kind == EvSend && e.Msg.Type == pb.MsgSnap && e.Peer == f.id {
				sent = true
			}
		}
	}
	if !sent {
		t.Fatal("no MsgSnap sent")
	}
	mustDo(t, w, Command{Kind: CmdStall, Node: f.name, For: time.Second})
	if err := w.Advance(500 * time.Millisecond); err != nil { // it lands in the queue
		t.Fatal(err)
	}
	mustDo(t, w, Command{Kind: CmdCrash, Node: f.name})
	mustDo(t, w, Command{Kind: CmdRestart, Node: f.name})
	if err := w.Advance(20 * time.Second); err != nil {
		t.Fatal(err)
	}
	var st string
	lead.rn.WithProgress(func(id uint64, _ raft.ProgressType, pr tracker.Progress) {
		if id == f.id {
			st = pr.State.String()
		}
	})
	in, _ := w.Info(f.name)
	if in.Applied < lead.applied {
		t.Fatalf("20s after restart %s has applied %d, the leader %d; the leader's progress for it is %s", f.name, in.Applied, lead.applied, st)
	}
}

// Duplicated MsgProp (network duplicate > 0) is appended twice, so a write
// takes effect twice: a put can reappear after a later put, and porcupine
// then calls a correct cluster NOT linearizable (exit 3). etcd's transport
// never duplicates, and etcd would not apply one request twice.
func TestProposalsAreNeverDuplicated(t *testing.T) {
	w := reviewWorld(t, 3, nil)
	lead := reviewLeader(t, w)
	f := reviewFollower(w, lead)
	// Follower → leader: duplicates always, second copy up to 3s late.
	mustDo(t, w, Command{Kind: CmdLink, From: f.name, To: lead.name, OneWay: true,
		Latency: &netmodel.Latency{Min: time.Millisecond, Max: 3 * time.Second},
		Dup:     &netmodel.Ratio{Num: 1, Den: 1}})
	applies := 0
	mustDo(t, w, Command{Kind: CmdPut, Via: f.name, Req: server.Put("k", "a"), Label: "a"})
	if err := w.Advance(6 * time.Second); err != nil {
		t.Fatal(err)
	}
	ents, err := lead.disk.Entries(lead.log.first, lead.lastIndex()+1, math.MaxUint64)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if len(e.GetData()) > 0 && e.GetType() == pb.EntryNormal {
			var r etcdserverpb.InternalRaftRequest
			if r.Unmarshal(e.GetData()) == nil && r.Put != nil && string(r.Put.Value) == "a" {
				applies++
			}
		}
	}
	if applies != 1 {
		t.Fatalf("one put was appended %d times to the leader's log", applies)
	}
}

// A watch delivers the changes its member applies, but a member that
// catches up by installing a snapshot skips every change in it without
// telling the watcher (etcd either replays them from MVCC or cancels the
// watch as compacted).
func TestSnapshotInstallEndsWatches(t *testing.T) {
	w := reviewWorld(t, 3, func(c *Config) { c.SnapshotEvery = 3 })
	lead := reviewLeader(t, w)
	f := reviewFollower(w, lead)
	watch := mustDo(t, w, Command{Kind: CmdWatch, Via: f.name, Req: server.Watch("k")})
	if err := w.Advance(100 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	mustDo(t, w, Command{Kind: CmdIsolate, Node: f.name})
	for i := 0; i < 10; i++ {
		mustDo(t, w, Command{Kind: CmdPut, Via: lead.name, Req: server.Put("k", fmt.Sprint(i))})
		if err := w.Advance(50 * time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	mustDo(t, w, Command{Kind: CmdHeal})
	if err := w.Advance(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	v, _ := w.KVGet(f.name, "k")
	t.Logf("watch %s, %d events; %s has k=%q", watch.Status, len(watch.Events()), f.name, v)
	if watch.Status == OpOK && len(watch.Events()) < 10 {
		t.Fatalf("watch still open with %d of 10 changes delivered, and %s has k=%q: changes skipped silently", len(watch.Events()), f.name, v)
	}
}

// The same duplicate, end to end: put a (via a follower), then put b, then a
// linearizable get returns a, because the late copy of a's MsgProp was
// appended after b. The client history is then NOT linearizable, which
// raftsim run reports as a safety violation (exit 3), for a cluster that did
// nothing wrong.
func TestDuplicationKeepsHistoriesLinearizable(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		w := reviewWorld(t, 3, func(c *Config) { c.Seed = seed })
		lead := reviewLeader(t, w)
		f := reviewFollower(w, lead)
		mustDo(t, w, Command{Kind: CmdLink, From: f.name, To: lead.name, OneWay: true,
			Latency: &netmodel.Latency{Min: time.Millisecond, Max: 3 * time.Second},
			Dup:     &netmodel.Ratio{Num: 1, Den: 1}})
		a := mustDo(t, w, Command{Kind: CmdPut, Via: f.name, Req: server.Put("k", "a")})
		for i := 0; i < 400 && a.Status == OpPending; i++ {
			_ = w.Advance(10 * time.Millisecond)
		}
		b := mustDo(t, w, Command{Kind: CmdPut, Via: lead.name, Req: server.Put("k", "b")})
		for i := 0; i < 400 && b.Status == OpPending; i++ {
			_ = w.Advance(10 * time.Millisecond)
		}
		_ = w.Advance(4 * time.Second)
		g := mustDo(t, w, Command{Kind: CmdGet, Via: lead.name, Req: server.Get("k", false)})
		_ = w.Advance(2 * time.Second)
		if v, _ := g.Found(); a.Status == OpOK && b.Status == OpOK && b.Start > a.End && v == "a" {
			lin := w.CheckLinearizability()
			t.Fatalf("seed %d: put a ok at %s, put b ok at %s, then get → %q; checker: %s", seed, a.End, b.End, v, lin.Result)
		}
	}
}

// tick: 500ns passes Config.check (and the scenario parser: any positive
// duration), and New panics in member.start: the tick phase is drawn with
// Int64N(tickEvery/µs) = Int64N(0). (raftsim run on a file with
// `tick: 500ns` dies with "panic: invalid argument to Int64N".)
func TestSubMicrosecondTickIsRefused(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Tick = 500 * time.Nanosecond
	noPanic(t, "New with tick 500ns", func() {
		if _, err := New(cfg); err != nil {
			t.Logf("refused (good): %v", err)
		}
	})
}

// campaign and snapshot refuse a stalled member ("a stalled process cannot
// campaign or snapshot until it resumes"), but transfer_leader, add_member,
// promote and remove_member drive a stalled leader's RawNode directly.
func TestStalledLeaderIsNotDriven(t *testing.T) {
	w := reviewWorld(t, 3, nil)
	lead := reviewLeader(t, w)
	mustDo(t, w, Command{Kind: CmdStall, Node: lead.name, For: 5 * time.Second})
	to := "n1"
	if lead.name == to {
		to = "n2"
	}
	if _, err := w.Do(Command{Kind: CmdTransferLeader, Node: to}); err == nil {
		t.Fatalf("transfer_leader was handed to %s while it is stalled (frozen process)", lead.name)
	}
}

// A member that crashes with requests in flight answers nothing: its watches
// get "EOF" at once, but pending reads and writes are dropped and the client
// waits for its full timeout (7s), where clientv3 sees the connection break
// (Unavailable) at once and, for a read, fails over to the next endpoint.
func TestCrashFailsPendingReadsOver(t *testing.T) {
	w := reviewWorld(t, 3, func(c *Config) {
		c.Clients = []ClientConfig{{Name: "etcdctl", Endpoints: []string{"n1", "n2", "n3"}}}
	})
	reviewLeader(t, w)
	mustDo(t, w, Command{Kind: CmdIsolate, Node: "n1"}) // n1 cannot get a read index
	_ = w.Advance(3 * time.Second)
	g := mustDo(t, w, Command{Kind: CmdGet, Via: "etcdctl", Req: server.Get("k", false)})
	_ = w.Advance(100 * time.Millisecond)
	mustDo(t, w, Command{Kind: CmdCrash, Node: "n1"})
	_ = w.Advance(2 * time.Second)
	if g.Status == OpPending {
		t.Fatalf("2s after its member crashed, the read is still pending (it will time out at 7s; member %s)", g.Member)
	}
}
