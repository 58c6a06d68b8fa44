package scenarios

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"testing"

	"github.com/raftsim/raftsim/sim"
	"github.com/raftsim/raftsim/snapshot"
)

// writeKubeSnapshot writes a Kubernetes-shaped snapshot of about size
// bytes (snapshot.WriteKubeShaped).
func writeKubeSnapshot(t testing.TB, path string, size int64) (int64, int) {
	n, records, err := snapshot.WriteKubeShaped(path, size)
	if err != nil {
		t.Fatal(err)
	}
	return n, records
}

// TestKubeSnapshotGenerate writes a Kubernetes-shaped snapshot of
// RAFTSIM_KUBE_SNAPSHOT_MB MB to RAFTSIM_KUBE_SNAPSHOT (for measuring
// raftsim on it by hand, as docs/scenarios.md's limits do), or with
// RAFTSIM_SMALL_KEYS=N one of N small keys (snapshot.WriteSmallKeys).
func TestKubeSnapshotGenerate(t *testing.T) {
	out := os.Getenv("RAFTSIM_KUBE_SNAPSHOT")
	if out == "" {
		t.Skip("RAFTSIM_KUBE_SNAPSHOT names no file to write")
	}
	if keys, err := strconv.Atoi(os.Getenv("RAFTSIM_SMALL_KEYS")); err == nil {
		size, n, err := snapshot.WriteSmallKeys(out, keys) // many small keys instead
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes, %d records", out, size, n)
		return
	}
	mb, _ := strconv.Atoi(os.Getenv("RAFTSIM_KUBE_SNAPSHOT_MB"))
	size, n := writeKubeSnapshot(t, out, int64(max(mb, 1))<<20)
	t.Logf("%s: %d bytes, %d records", out, size, n)
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestKubeSnapshotOpensInBoundedMemory restores five members from a
// 100 MB Kubernetes-shaped snapshot and bounds the heap they keep once
// started: 3.5 times the file. Seen to fail before the members shared the
// decoded records (server.SharedKV): they kept 584 MB of a 98 MB file; 328
// MB with them, most of it each member's raft snapshot of the store
// (sim.snapshotData), which now refers to the store, frozen copy on write,
// instead (sim/snapshot.go). TestKubeSnapshotPeakRSS bounds the process's
// peak.
func TestKubeSnapshotOpensInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 100 MB snapshot")
	}
	path := filepath.Join(t.TempDir(), "kube.db")
	mb := int64(100)
	if v, err := strconv.Atoi(os.Getenv("RAFTSIM_KUBE_SNAPSHOT_MB")); err == nil && os.Getenv("RAFTSIM_KUBE_SNAPSHOT") == "" {
		mb = int64(v) // a larger one, measured by hand
	}
	size, n := writeKubeSnapshot(t, path, mb<<20)
	before := liveHeap()
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Members = 1, []string{"etcd-1", "etcd-2", "etcd-3", "etcd-4", "etcd-5"}
	if err := RestoreFrom(&cfg, path); err != nil {
		t.Fatal(err)
	}
	w, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Advance(3e9); err != nil {
		t.Fatal(err)
	}
	live := liveHeap() - before
	if out := os.Getenv("RAFTSIM_KUBE_HEAPPROFILE"); out != "" {
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		pprof.WriteHeapProfile(f)
		f.Close()
	}
	runtime.KeepAlive(w)
	t.Logf("file %d MB, %d records; 5 members keep %d MB", size>>20, n, live>>20)
	if limit := uint64(size) * 7 / 2; live > limit {
		t.Errorf("5 members restored from a %d MB snapshot keep %d MB, more than the %d MB (3.5 times the file) allowed", size>>20, live>>20, limit>>20)
	}
}
