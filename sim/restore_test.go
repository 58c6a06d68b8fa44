package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/raftsim/raftsim/server"
)

// restoredWorld runs the operator's disaster recovery on a three-member
// cluster: a snapshot after a=1, b=2, then c=3 and a=10, two hosts lost
// for good, and the snapshot restored on every host into a new cluster.
func restoredWorld(t *testing.T, seed uint64) *World {
	t.Helper()
	cfg := SandboxConfig()
	cfg.Seed, cfg.Members, cfg.Clients = seed, cfg.Members[:3], nil
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	step := func(c Command) *Op {
		t.Helper()
		op, err := w.Do(c)
		if err != nil {
			t.Fatalf("%s: %v", c.Kind, err)
		}
		return op
	}
	runFor := func(d time.Duration) {
		t.Helper()
		if err := w.RunUntil(w.Now().Add(d)); err != nil {
			t.Fatal(err)
		}
	}
	runFor(2 * time.Second)
	step(Command{Kind: CmdPut, Via: "etcd-1", Req: server.Put("a", "1")})
	step(Command{Kind: CmdPut, Via: "etcd-1", Req: server.Put("b", "2")})
	runFor(time.Second)
	step(Command{Kind: CmdSnapshotSave, Node: "etcd-1", File: "yesterday.db"})
	step(Command{Kind: CmdPut, Via: "etcd-2", Req: server.Put("c", "3")})
	step(Command{Kind: CmdPut, Via: "etcd-3", Req: server.Put("a", "10")})
	runFor(time.Second)
	step(Command{Kind: CmdLose, Node: "etcd-2"})
	step(Command{Kind: CmdLose, Node: "etcd-3"})
	step(Command{Kind: CmdCrash, Node: "etcd-1"})
	cluster := "etcd-1=http://etcd-1:2380,etcd-2=http://etcd-2:2380,etcd-3=http://etcd-3:2380"
	for _, n := range []string{"etcd-1", "etcd-2", "etcd-3"} {
		step(Command{Kind: CmdSnapshotRestore, Restore: &RestoreSpec{File: "yesterday.db", Name: n, InitialCluster: cluster,
			Token: "restored", PeerURL: "http://" + n + ":2380", DataDir: "/var/lib/etcd-restored"}})
	}
	for _, n := range []string{"etcd-1", "etcd-2", "etcd-3"} {
		step(Command{Kind: CmdRestart, Node: n, DataDir: "/var/lib/etcd-restored"})
	}
	runFor(3 * time.Second)
	return w
}

// TestRestoreIsEtcdutls: the restored members and cluster have the IDs
// the real etcdutl v3.6.16 gives the same --initial-cluster and token
// (read from its log: etcdutl snapshot restore ... --initial-cluster-token
// restored), the store is the snapshot's (a=1, b=2, no c, revision 3),
// the new cluster takes writes, and the linearizability check, which
// checks each raft group from the store it began with, passes: the writes
// lost with the old cluster were lost by the operator's choice. (Seen to
// fail with every operation checked as one group: get a = 1 after a
// put a = 10 acknowledged.)
func TestRestoreIsEtcdutls(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			w := restoredWorld(t, seed)
			want := map[string]uint64{"etcd-1": 0x17999137b8f7e37, "etcd-2": 0xe437f98b82cf446e, "etcd-3": 0x77697f7dfeb31482}
			for n, id := range want {
				if got := w.byName[n].memberID; got != id {
					t.Errorf("%s: member ID %x, etcdutl's is %x", n, got, id)
				}
				if got := w.byName[n].clusterID(); got != 0x97fdb5d7c3a278e5 {
					t.Errorf("%s: cluster ID %x, etcdutl's is 97fdb5d7c3a278e5", n, got)
				}
			}
			get := func(k string) *Op {
				op, err := w.Do(Command{Kind: CmdGet, Via: "etcd-2", Req: server.Get(k, false)})
				if err != nil {
					t.Fatal(err)
				}
				return op
			}
			a, c := get("a"), get("c")
			put, err := w.Do(Command{Kind: CmdPut, Via: "etcd-3", Req: server.Put("d", "4")})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.RunUntil(w.Now().Add(2 * time.Second)); err != nil {
				t.Fatal(err)
			}
			if a.Status != OpOK || len(a.KVs()) != 1 || string(a.KVs()[0].Value) != "1" || a.Revision() < 3 {
				t.Errorf("get a: %s %v at revision %d, want a=1 from revision 3 on", a.Status, a.KVs(), a.Revision())
			}
			if c.Status != OpOK || len(c.KVs()) != 0 {
				t.Errorf("get c: %s %v, want nothing: c was written after the snapshot", c.Status, c.KVs())
			}
			if put.Status != OpOK || put.Revision() != 4 {
				t.Errorf("put d: %s at revision %d, want OK at 4", put.Status, put.Revision())
			}
			if l := w.CheckLinearizability(); !l.OK {
				t.Errorf("linearizability: %s %s", l.Result, l.Detail)
			}
			var told []string
			for _, e := range w.History() {
				if e.Kind == EvFault && strings.Contains(e.Text, "after the snapshot") {
					told = append(told, e.Text)
				}
			}
			if len(told) != 2 || !strings.Contains(told[0], "writes acknowledged after the snapshot and gone: 2 (a, c)") {
				t.Errorf("the transcript says %q, want the 2 writes lost (a, c) and the leases", told)
			}
		})
	}
}

// TestRestoreForksAndReplays: a world after a restore forks (every member
// restarts from the data directory it runs from: the restored one), and
// its command log replays to the same history.
func TestRestoreForksAndReplays(t *testing.T) {
	w := restoredWorld(t, 7)
	f, err := w.Fork(w.Config())
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Advance(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	name, _, ok := f.FollowedLeader()
	if !ok {
		t.Fatal("the fork of a restored cluster has no leader")
	}
	if a, _ := f.KVGet(name, "a"); a != "1" {
		t.Errorf("the fork's leader has a=%q, want the snapshot's 1", a)
	}
	if got := f.byName["etcd-1"].clusterID(); got != 0x97fdb5d7c3a278e5 {
		t.Errorf("the fork runs cluster %x", got)
	}
	if err := w.Advance(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	checkReplaysEventForEvent(t, w)
}

// TestRestoreKeepsAnExistingDataDir: etcdutl snapshot restore into a data
// directory that exists (the one the member runs from, or one restored
// before) is refused with etcdutl's error, and loses nothing: the member
// restarts from its own data directory with its keys, and the restored
// one is kept. (Seen to fail with the check of the directory left out:
// the restore into /var/lib/etcd went through.)
func TestRestoreKeepsAnExistingDataDir(t *testing.T) {
	cfg := SandboxConfig()
	cfg.Members, cfg.Clients = cfg.Members[:3], nil
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	do := func(c Command) error {
		_, err := w.Do(c)
		return err
	}
	run := func() {
		if err := w.RunUntil(w.Now().Add(2 * time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	run()
	for _, c := range []Command{
		{Kind: CmdPut, Via: "etcd-1", Req: server.Put("a", "1")},
		{Kind: CmdSnapshotSave, Node: "etcd-1", File: "old.db"},
		{Kind: CmdPut, Via: "etcd-1", Req: server.Put("a", "2")},
	} {
		if err := do(c); err != nil {
			t.Fatal(err)
		}
		run()
	}
	if err := do(Command{Kind: CmdCrash, Node: "etcd-1"}); err != nil {
		t.Fatal(err)
	}
	restore := func(dir string) error {
		return do(Command{Kind: CmdSnapshotRestore, Restore: &RestoreSpec{File: "old.db", Name: "etcd-1", DataDir: dir}})
	}
	if err := restore(DefaultDataDir); err == nil || !strings.Contains(err.Error(), `data-dir "/var/lib/etcd" not empty`) {
		t.Fatalf("a restore into the member's own data directory: %v", err)
	}
	if err := restore("/restored"); err != nil {
		t.Fatal(err)
	}
	before := w.CommandCount()
	if err := restore("/restored"); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("a second restore into /restored: %v", err)
	}
	if w.CommandCount() != before {
		t.Errorf("a refused restore was logged")
	}
	if got := w.DataDirs("etcd-1"); strings.Join(got, " ") != "/var/lib/etcd /restored" {
		t.Errorf("data dirs %v", got)
	}
	if err := do(Command{Kind: CmdRestart, Node: "etcd-1"}); err != nil {
		t.Fatal(err)
	}
	run()
	if a, _ := w.KVGet("etcd-1", "a"); a != "2" {
		t.Errorf("etcd-1 restarted from its own data directory with a=%q, want 2", a)
	}
}

// checkReplaysEventForEvent replays w's configuration and recorded
// commands headless up to w's time and checks that the replay's history is
// w's, event for event.
func checkReplaysEventForEvent(t *testing.T, w *World) {
	t.Helper()
	r, err := Replay(w.Config(), w.Commands(), w.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.RunUntil(w.Now()); err != nil {
		t.Fatal(err)
	}
	if a, b := w.HistoryLen(), r.HistoryLen(); a != b {
		t.Fatalf("the replay ran %d events, the world %d", b, a)
	}
	for i := range w.HistoryLen() {
		if a, b := w.EventAt(i), r.EventAt(i); a != b {
			t.Fatalf("event %d: the replay has %+v, the world %+v", i, b, a)
		}
	}
}
