package console

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	buildOut  []byte
)

// raftsimBinary builds cmd/raftsim once per test run.
func raftsimBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "raftsim-console-test")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "raftsim")
		cmd := exec.Command("go", "build", "-o", binPath, "github.com/raftsim/raftsim/cmd/raftsim")
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("building raftsim: %v\n%s", buildErr, buildOut)
	}
	return binPath
}

// TestSavedSessionReplays is the promise of save: a session run through
// `raftsim shell` (its trace written with --trace), saved with save, and
// replayed with `raftsim run --trace` gives a byte-identical trace.
func TestSavedSessionReplays(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := raftsimBinary(t)
	dir := t.TempDir()
	script := strings.Join([]string{
		"put /registry/pods/default/nginx v1",
		"put foo bar --via apiserver-2 &",
		"load --for 2s --rate 20 --mix put=2,get=1,txn=1 &",
		"watch /registry --prefix &",
		"crash @leader",
		"get foo --consistency=s --endpoints=etcd-4",
		"put /registry/pods/default/redis v2",
		"endpoint health",
		"partition etcd-1,etcd-2 etcd-3,etcd-4,etcd-5",
		"put lost x --endpoints=etcd-1 &",
		"link etcd-4 etcd-5 --latency 30ms-40ms --loss 1%",
		"wait 1500ms",
		"heal",
		"restart etcd-3",
		"member add etcd-6 --learner",
		"member promote etcd-6",
		"move-leader etcd-6",
		"stall etcd-2 200ms",
		"clock etcd-1 1.3",
		"say a caption: saved too",
		"del /registry --prefix",
		"tick 3",
		"save session.yaml",
	}, "\n") + "\n"
	shell := exec.Command(bin, "shell", "--seed", "7", "--trace", "shell.jsonl")
	shell.Dir = dir
	shell.Stdin = strings.NewReader(script)
	var out bytes.Buffer
	shell.Stdout, shell.Stderr = &out, &out
	if err := shell.Run(); err != nil {
		t.Fatalf("raftsim shell: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "seed=7") || !strings.Contains(out.String(), "saved ") {
		t.Fatalf("the session did not print its seed or did not save:\n%s", out.String())
	}
	for i := range 2 {
		run := exec.Command(bin, "run", "session.yaml", "--trace", "run.jsonl", "-q")
		run.Dir = dir
		if b, err := run.CombinedOutput(); err != nil {
			t.Fatalf("raftsim run session.yaml: %v\n%s", err, b)
		}
		want, err := os.ReadFile(filepath.Join(dir, "shell.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, "run.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("replay %d: the trace differs from the session's (%d vs %d bytes); first difference at line %d\n%s",
				i+1, len(got), len(want), firstDiffLine(got, want), out.String())
		}
		if bytes.Count(want, []byte("\n")) < 1000 {
			t.Fatalf("the trace is suspiciously short: %d lines", bytes.Count(want, []byte("\n")))
		}
	}
}

func firstDiffLine(a, b []byte) int {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range min(len(la), len(lb)) {
		if !bytes.Equal(la[i], lb[i]) {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}
