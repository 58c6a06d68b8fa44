package etcdcompare

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/snapshot"
)

// snapshotSession writes the keys both sides snapshot: puts, an
// overwrite, a delete and a compaction, so that the key bucket holds
// history and a tombstone, and the meta bucket the compaction revisions.
// (No leases: a real etcd draws lease IDs from the clock.)
var snapshotSession = []string{
	"put /registry/pods/default/web v1",
	"put /registry/pods/default/nginx v1",
	"put /registry/configmaps/kube-system/cm1 hello",
	"put /registry/pods/default/web v2",
	"del /registry/configmaps/kube-system/cm1",
	"put /registry/leases/kube-node-lease/n1 renewed",
	"compaction 4",
	"put /registry/pods/default/web v3",
}

// etcdBin returns RAFTSIM_ETCD's directory, or skips.
func etcdBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("RAFTSIM_ETCD")
	if bin == "" {
		t.Skip("RAFTSIM_ETCD is not set; make etcd-compare builds etcd, etcdctl and etcdutl and runs this")
	}
	bin, err := filepath.Abs(bin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(bin, "etcdutl")); err != nil {
		t.Fatalf("%v (build-etcd.sh builds etcdutl beside etcd)", err)
	}
	return bin
}

func run(t *testing.T, r runner, line string) string {
	t.Helper()
	out, err := r.Run(Step{Command: line})
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return out
}

// etcdutl runs the real etcdutl and returns its standard output.
func etcdutl(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "etcdutl"), args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("etcdutl %v: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}

// getJSON is what both sides answer to `get "" --prefix -w json` from m1.
func getJSON(t *testing.T, r runner) string {
	t.Helper()
	return run(t, r, `get "" --prefix -w json --endpoints=`+strings.TrimPrefix(ClientURL("m1"), "http://"))
}

// revisionOf reads the revision from `endpoint status -w json`.
func revisionOf(t *testing.T, r runner) int64 {
	rev, _ := statusOf(t, r)
	return rev
}

// statusOf reads the revision and the raft index from `endpoint status -w
// json`.
func statusOf(t *testing.T, r runner) (int64, uint64) {
	t.Helper()
	out := run(t, r, "endpoint status -w json --endpoints="+strings.TrimPrefix(ClientURL("m1"), "http://"))
	var st []struct {
		Status struct {
			Header struct {
				Revision int64 `json:"revision"`
			} `json:"header"`
			RaftIndex uint64 `json:"raftIndex"`
		} `json:"Status"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || len(st) != 1 {
		t.Fatalf("endpoint status: %v\n%s", err, out)
	}
	return st[0].Status.Header.Revision, st[0].Status.RaftIndex
}

// TestSnapshotsWithRealEtcd checks raftsim's snapshots against the real
// etcd v3.6.16, etcdctl and etcdutl (issue 21's three checks):
//
//  1. the same keys written to a real cluster and to raftsim, each saved
//     with snapshot save from m1: the real etcdutl snapshot status reports
//     the same hash, revision, key count, size and version for both files
//     (the real member is defragmented first: raftsim writes its snapshot
//     as a defragmented etcd's is laid out; docs/semantics.md);
//  2. raftsim started from the real snapshot answers `get --prefix -w
//     json` and reports the revision in `endpoint status` as the real
//     cluster does;
//  3. raftsim's snapshot restored by the real etcdutl snapshot restore on
//     three real members, started: the same `get --prefix -w json`.
func TestSnapshotsWithRealEtcd(t *testing.T) {
	bin := etcdBin(t)
	dir := t.TempDir()
	realFile, simFile := filepath.Join(dir, "real.db"), filepath.Join(dir, "raftsim.db")
	m1 := " --endpoints=" + strings.TrimPrefix(ClientURL("m1"), "http://")

	real, err := StartReal(bin, filepath.Join(dir, "real"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range snapshotSession {
		run(t, real, line)
	}
	run(t, real, "defrag"+m1)
	realSaved := run(t, real, "snapshot save "+realFile+m1)
	realGet, realRev := getJSON(t, real), revisionOf(t, real)
	real.Stop()

	s, err := StartSim()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range snapshotSession {
		run(t, s, line)
	}
	got := strings.ReplaceAll(run(t, s, "snapshot save "+simFile+m1), simFile, realFile)
	if !strings.HasSuffix(realSaved, got) {
		t.Errorf("snapshot save printed %q; etcdctl printed %q", got, realSaved)
	}

	t.Run("etcdutl-status", func(t *testing.T) {
		want := etcdutl(t, bin, "snapshot", "status", realFile, "-w", "json")
		got := etcdutl(t, bin, "snapshot", "status", simFile, "-w", "json")
		if got != want {
			t.Errorf("etcdutl snapshot status of raftsim's snapshot:\n%s\nof the real etcd's:\n%s", got, want)
		}
		t.Logf("both: %s", got)
		// raftsim's own snapshot status prints what etcdutl prints, in
		// every format (fields: seen to fail when it printed the simple
		// line).
		for _, format := range []string{"json", "fields", "table", "simple"} {
			want := etcdutl(t, bin, "snapshot", "status", simFile, "-w", format)
			own := run(t, s, "snapshot status "+simFile+" -w "+format)
			if strings.TrimSpace(own) != strings.TrimSpace(want) {
				t.Errorf("-w %s: raftsim's snapshot status says\n%s\netcdutl says\n%s", format, own, want)
			}
		}
	})

	t.Run("start-from-real-snapshot", func(t *testing.T) {
		from := startFrom(t, realFile)
		if got := getJSON(t, from); got != realGet {
			t.Errorf("get --prefix -w json:\nraftsim from the snapshot: %s\nthe real etcd: %s", got, realGet)
		}
		if got := revisionOf(t, from); got != realRev {
			t.Errorf("endpoint status revision: raftsim from the snapshot %d, the real etcd %d", got, realRev)
		}
	})

	t.Run("etcdutl-restore", func(t *testing.T) {
		restored := filepath.Join(dir, "restored")
		var initial []string
		for _, m := range Members {
			initial = append(initial, m+"="+PeerURL(m))
		}
		for _, m := range Members {
			etcdutl(t, bin, "snapshot", "restore", simFile, "--name", m, "--initial-cluster", strings.Join(initial, ","),
				"--initial-cluster-token", Token, "--initial-advertise-peer-urls", PeerURL(m),
				"--data-dir", filepath.Join(restored, m))
		}
		c, err := StartRealOn(bin, restored)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Stop()
		want := getJSON(t, s)
		if got := getJSON(t, c); got != want {
			t.Errorf("get --prefix -w json:\nreal etcd on raftsim's restored snapshot: %s\nraftsim: %s", got, want)
		}
		// raftsim restoring its own snapshot starts as the real restored
		// cluster did: the same revision and raft index.
		from := startFrom(t, simFile)
		wantRev, wantIndex := statusOf(t, c)
		if rev, index := statusOf(t, from); rev != wantRev || index != wantIndex {
			t.Errorf("restored: raftsim at revision %d, raft index %d; the real etcd at %d, %d", rev, index, wantRev, wantIndex)
		}
	})
}

// startFrom starts raftsim's twin cluster restored from a snapshot file.
func startFrom(t *testing.T, file string) *SimCluster {
	t.Helper()
	snap, err := snapshot.Open(file, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	kv, err := server.RestoreKV(&snap.State, snap.Records)
	if err != nil {
		t.Fatal(err)
	}
	cfg := SimConfig()
	cfg.InitialKV, cfg.InitialClusterVersion = kv, snap.ClusterVersion
	s, err := StartSimWith(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
