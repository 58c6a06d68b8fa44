//go:build !js

package scenarios

// The build constraint: it reads a child process's rusage.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// kubeChild names the snapshot TestKubeSnapshotChild opens, in the child
// process TestKubeSnapshotPeakRSS starts; kubeChildMembers says how many
// members restore it.
const kubeChild, kubeChildMembers = "RAFTSIM_KUBE_CHILD", "RAFTSIM_KUBE_CHILD_MEMBERS"

// kubeScenario is the scenario that opens a snapshot: its members restored
// from it elect a leader and commit a put.
func kubeScenario(members int, file string) string {
	return fmt.Sprintf("name: big\ncluster: {members: %d, from_snapshot: %s}\nsteps:\n"+
		"  - expect: {leader: any, within: 10s}\n"+
		"  - put: {via: n1, key: /registry/pods/ns-0/new, value: v, as: w}\n"+
		"  - expect: {op: {w: ok}, within: 10s}\n", members, file)
}

// TestKubeSnapshotChild is the child process of TestKubeSnapshotPeakRSS:
// it runs kubeScenario on the snapshot kubeChild names.
func TestKubeSnapshotChild(t *testing.T) {
	path := os.Getenv(kubeChild)
	if path == "" {
		t.Skip("run by TestKubeSnapshotPeakRSS")
	}
	members, _ := strconv.Atoi(os.Getenv(kubeChildMembers))
	src := kubeScenario(members, filepath.Base(path))
	s, err := Parse(filepath.Join(filepath.Dir(path), "s.yaml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRunner(s, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(); err != nil {
		t.Fatal(err)
	}
	if r.Held() != 2 {
		t.Fatalf("%d of 2 expectations held", r.Held())
	}
}

// TestKubeSnapshotPeakRSS opens a 100 MB Kubernetes-shaped snapshot,
// written by the project's own writer, with three and with five members,
// each in a child process, and bounds the child's peak resident memory
// (its rusage) by issue 30's aim: 1.5 times the file plus 300 MB. Time is
// bounded only against a hang (10 minutes); docs/scenarios.md's limits
// give the measured times. RAFTSIM_KUBE_SNAPSHOT_MB measures another size
// by hand.
func TestKubeSnapshotPeakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 100 MB snapshot")
	}
	mb := int64(100)
	if v, err := strconv.Atoi(os.Getenv("RAFTSIM_KUBE_SNAPSHOT_MB")); err == nil && os.Getenv("RAFTSIM_KUBE_SNAPSHOT") == "" {
		mb = int64(v)
	}
	path := filepath.Join(t.TempDir(), "kube.db")
	size, n := writeKubeSnapshot(t, path, mb<<20)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, members := range []int{3, 5} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		cmd := exec.CommandContext(ctx, exe, "-test.run", "^TestKubeSnapshotChild$", "-test.count", "1")
		cmd.Env = append(os.Environ(), kubeChild+"="+path, kubeChildMembers+"="+strconv.Itoa(members))
		start := time.Now()
		out, err := cmd.CombinedOutput()
		took := time.Since(start)
		cancel()
		if err != nil {
			t.Fatalf("%d members: %v\n%s", members, err, out)
		}
		peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
		t.Logf("%d MB, %d records, %d members: %.1fs, peak RSS %d MB", size>>20, n, members, took.Seconds(), peak>>20)
		if limit := size*3/2 + 300<<20; peak > limit {
			t.Errorf("%d members restored from a %d MB snapshot peaked at %d MB, more than the %d MB (1.5 times the file and 300 MB) allowed",
				members, size>>20, peak>>20, limit>>20)
		}
	}
}
