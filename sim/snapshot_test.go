package sim

import (
	"testing"
	"time"

	"github.com/raftsim/raftsim/server"
)

// TestSnapshotStoresArePrunedAndStillThere snapshots at every entry
// (snapshot_every: 1) while a follower is cut off, so that the leader
// catches it up with a MsgSnap once it is back, then crashes and restarts
// it from its own snapshot: each raft snapshot refers to a frozen store
// the world keeps (snapshot.go), and the world must forget those nothing
// refers to (it made one for each snapshot of each member) while every
// one still referred to is there (a miss panics: the install and the
// restart would fail). Seen to fail with pruneSnapshots never run (the
// count of kept stores). NB: it passes with member.snapHeld left
// unmarked too: neither run leaves a MsgSnap inside raft across a
// pruning; swarm 1-2000 found no miss either.
func TestSnapshotStoresArePrunedAndStillThere(t *testing.T) {
	for _, latency := range []time.Duration{0, 3 * time.Millisecond} {
		t.Run(latency.String(), func(t *testing.T) { testSnapshotStores(t, latency) })
	}
}

// testSnapshotStores is TestSnapshotStoresArePrunedAndStillThere with
// disks that take latency to write: then a member applies while its
// write is in progress, and raft holds what it was handed longer
// (member.snapHeld). With latency the leader's log may not be compacted
// past the follower (no snapshot while a write is in progress), so the
// follower need not be caught up by a snapshot.
func testSnapshotStores(t *testing.T, latency time.Duration) {
	w := reviewWorld(t, 3, func(c *Config) { c.SnapshotEvery, c.DiskLatency = 1, latency })
	lead := reviewLeader(t, w)
	f := reviewFollower(w, lead)
	mustDo(t, w, Command{Kind: CmdIsolate, Node: f.name})
	for i := range 300 {
		mustDo(t, w, Command{Kind: CmdPut, Via: lead.name, Req: server.Put("k"+itoa(uint64(i)), "v")})
		if err := w.Advance(20 * time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	mustDo(t, w, Command{Kind: CmdHeal})
	if err := w.Advance(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	installed := false
	for i := range w.HistoryLen() {
		if e := w.EventAt(i); e.Kind == EvSnapshot && e.Node == f.id && e.Text == "installed" {
			installed = true
		}
	}
	if !installed && latency == 0 {
		_, ok := lead.srv.KV.Get("k299")
		t.Fatalf("the follower was not caught up by a snapshot (leader has k299: %v, violation %v, follower applied %d, leader %d)", ok, w.Violation(), f.applied, lead.applied)
	}
	mustDo(t, w, Command{Kind: CmdCrash, Node: f.name})
	mustDo(t, w, Command{Kind: CmdRestart, Node: f.name})
	for i := range 50 {
		mustDo(t, w, Command{Kind: CmdPut, Via: lead.name, Req: server.Put("j"+itoa(uint64(i)), "v")})
		if err := w.Advance(20 * time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Advance(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	if v := w.Violation(); v != nil {
		t.Fatal(v)
	}
	if _, ok := f.srv.KV.Get("k299"); !ok {
		t.Error("the restarted follower lacks k299")
	}
	if _, ok := f.srv.KV.Get("j49"); !ok {
		t.Error("the restarted follower lacks j49")
	}
	if w.snapSeq < 300 || len(w.snapKVs) > 200 {
		t.Errorf("%d frozen stores made, %d kept", w.snapSeq, len(w.snapKVs))
	}
	t.Logf("%d frozen stores made, %d kept", w.snapSeq, len(w.snapKVs))
}
