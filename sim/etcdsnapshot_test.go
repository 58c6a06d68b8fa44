//go:build !js

package sim

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/snapshot"
)

// TestSnapshotRestoresIntoANewCluster saves a member's backend as an etcd
// snapshot and starts a new cluster from the file: the same keys with
// their revisions and versions, the store's revision and compaction kept,
// the lease back with its TTL, and the index at which a restored cluster
// has started (one below a new cluster's: the cluster version is in the
// database already).
func TestSnapshotRestoresIntoANewCluster(t *testing.T) {
	w := reviewWorld(t, 3, nil)
	step := func(c Command) {
		t.Helper()
		if _, err := w.Do(c); err != nil {
			t.Fatal(err)
		}
		if err := w.Advance(200 * time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Advance(2e9); err != nil {
		t.Fatal(err)
	}
	step(Command{Kind: CmdPut, Via: "n1", Req: server.Put("a", "1")})
	step(Command{Kind: CmdPut, Via: "n1", Req: server.Put("a", "2")})
	step(Command{Kind: CmdPut, Via: "n1", Req: server.Put("b", "x")})
	step(Command{Kind: CmdDelete, Via: "n1", Req: server.Delete("b")})
	step(Command{Kind: CmdCompact, Via: "n1", Req: server.Request{Compaction: &etcdserverpb.CompactionRequest{Revision: 3}}})
	step(Command{Kind: CmdLeaseGrant, Via: "n1", Req: server.Request{LeaseGrant: &etcdserverpb.LeaseGrantRequest{TTL: 60}}})
	rev, kvs, _ := w.MemberKV("n2")

	st, records, err := w.SnapshotOf("n2")
	if err != nil {
		t.Fatal(err)
	}
	if st.ConsistentIndex == 0 || st.Term != 2 || len(st.Members) != 3 || len(st.ConfState.Voters) != 3 ||
		st.FinishedCompact != 3 || len(st.Leases) != 1 || st.Leases[0].TTL != 60 {
		t.Fatalf("state %+v", st)
	}
	file := filepath.Join(t.TempDir(), "n2.db")
	if _, err := snapshot.Write(file, st, records); err != nil {
		t.Fatal(err)
	}
	snap, err := snapshot.Open(file, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	kv, err := server.RestoreKV(&snap.State, snap.Records)
	if err != nil {
		t.Fatal(err)
	}
	restored := reviewWorld(t, 3, func(c *Config) { c.InitialKV, c.InitialClusterVersion = kv, snap.ClusterVersion })
	if err := restored.Advance(2e9); err != nil {
		t.Fatal(err)
	}
	for _, in := range restored.Infos() {
		gotRev, gotKVs, _ := restored.MemberKV(in.Name)
		if gotRev != rev || !reflect.DeepEqual(gotKVs, kvs) {
			t.Errorf("%s: revision %d %v, want %d %v", in.Name, gotRev, gotKVs, rev, kvs)
		}
		if in.Applied != 7 {
			t.Errorf("%s: applied %d, want 7", in.Name, in.Applied)
		}
		if !restored.LeaseAlive(in.Name, st.Leases[0].ID) {
			t.Errorf("%s: the lease is not back", in.Name)
		}
		if _, _, err := restored.HashKV(in.Name, 2); err == nil {
			t.Errorf("%s: revision 2 is readable; the compaction at 3 was lost", in.Name)
		}
	}
}
