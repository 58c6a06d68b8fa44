package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raftsim/raftsim/sim"
)

// raftsimIn runs raftsim in-process in dir and returns its exit code,
// standard output and standard error.
func raftsimIn(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestSwarmSameWithAnyWorkers: a campaign prints the same report, and
// writes the same reproducers, in this process or over 2 and 3 worker
// processes.
func TestSwarmSameWithAnyWorkers(t *testing.T) {
	t.Setenv(asRaftsim, "1")
	var first string
	var firstRepro []byte
	for _, workers := range []string{"1", "2", "3"} {
		dir := t.TempDir()
		code, out, stderr := raftsimIn(t, dir, "swarm", "--seeds", "1-24", "--bug", "apply-uncommitted", "--workers", workers)
		if code != 3 {
			t.Fatalf("workers %s: exit %d, want 3 (violations found)\n%s%s", workers, code, out, stderr)
		}
		repro, err := os.ReadFile(filepath.Join(dir, "swarm-repro", "swarm-seed-1.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if first == "" {
			first, firstRepro = out, repro
			continue
		}
		if out != first {
			t.Errorf("workers %s:\n%s\nworkers 1:\n%s", workers, out, first)
		}
		if !bytes.Equal(repro, firstRepro) {
			t.Errorf("workers %s: the reproducer of seed 1 differs", workers)
		}
	}
}

// TestSwarmMergeOfFourShards runs a campaign whole, and as 4 shards with
// --out, and merges the shards: `raftsim swarm merge` prints exactly what
// the whole campaign printed.
func TestSwarmMergeOfFourShards(t *testing.T) {
	dir := t.TempDir()
	args := []string{"swarm", "--seeds", "1-20", "--bug", "apply-uncommitted", "--workers", "1"}
	code, whole, stderr := raftsimIn(t, dir, args...)
	if code != 3 {
		t.Fatalf("exit %d\n%s%s", code, whole, stderr)
	}
	var files []string
	for k := 1; k <= 4; k++ {
		f := fmt.Sprintf("shard-%d.jsonl", k)
		if code, out, stderr := raftsimIn(t, dir, append(args, "--shard", fmt.Sprintf("%d/4", k), "--out", f)...); code != 3 && code != 0 {
			t.Fatalf("shard %d: exit %d\n%s%s", k, code, out, stderr)
		}
		files = append(files, f)
	}
	code, merged, stderr := raftsimIn(t, dir, append([]string{"swarm", "merge"}, files...)...)
	if code != 3 {
		t.Fatalf("merge: exit %d\n%s%s", code, merged, stderr)
	}
	if merged != whole {
		t.Errorf("merged:\n%s\nwhole:\n%s", merged, whole)
	}
	if code, _, stderr := raftsimIn(t, dir, "swarm", "merge", files[0], files[1], files[3]); code != 2 || !strings.Contains(stderr, "and 3 results files were given: give one for each shard") {
		t.Errorf("merging 3 of 4 shards: exit %d, %s", code, stderr)
	}
}

// TestSwarmFindsEveryBug: for each injected bug, the first seed that
// fails is found within 1,000, and its shrunk reproducer replays the
// violation with `raftsim run`: exit 3.
func TestSwarmFindsEveryBug(t *testing.T) {
	for _, bug := range sim.AllBugs() {
		t.Run(bug.String(), func(t *testing.T) {
			dir := t.TempDir()
			for seed := 1; seed <= 1000; seed++ {
				s := fmt.Sprint(seed)
				code, out, stderr := raftsimIn(t, dir, "swarm", "--seeds", s, "--bug", bug.String(), "--workers", "1", "--no-shrink")
				if code != 3 || !strings.Contains(out, "FAIL seed "+s+": safety violation") && !strings.Contains(out, "not linearizable") {
					continue
				}
				code, out, stderr = raftsimIn(t, dir, "swarm", "--seeds", s, "--bug", bug.String(), "--workers", "1")
				if code != 3 {
					t.Fatalf("seed %s: with shrinking, exit %d\n%s%s", s, code, out, stderr)
				}
				repro := filepath.Join("swarm-repro", "swarm-seed-"+s+".yaml")
				code, out, stderr = raftsimIn(t, dir, "run", "-q", repro)
				if code != 3 {
					t.Fatalf("seed %s: raftsim run %s: exit %d, want 3\n%s%s", s, repro, code, out, stderr)
				}
				t.Logf("seed %s: %s", s, strings.TrimSpace(stderr))
				return
			}
			t.Fatalf("no seed from 1 to 1000 fails with %s", bug)
		})
	}
}

// TestSwarmBadFlags: bad options are bad input, with the flag named.
func TestSwarmBadFlags(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ args, want string }{
		{"--seeds 10-1", "--seeds"},
		{"--shard 5/4", "--shard"},
		{"--members 0", "--members"},
		{"--faults crash,meteor", `unknown "meteor"`},
		{"--bug typo", "unknown bug"},
		{"--duration 0s", "--duration"},
	} {
		code, _, stderr := raftsimIn(t, dir, append([]string{"swarm"}, strings.Fields(c.args)...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("swarm %s: exit %d, %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
