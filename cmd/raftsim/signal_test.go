//go:build !js

package main

// The build constraint: these tests send signals to process groups, which js/wasm has not.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/raftsim/raftsim/interrupt"
	"github.com/raftsim/raftsim/swarm"
	"github.com/raftsim/raftsim/trace"
)

// The signal tests start raftsim (this test binary, acting as raftsim) as
// a process, let it work, send it SIGINT mid-run, and check what it left:
// the summary that says it was interrupted, the files it flushed, exit 130.

// started is a raftsim process under test.
type started struct {
	cmd            *exec.Cmd
	stdout, stderr string // file names
}

// startRaftsim starts raftsim with args in dir, its standard output and
// error going to files there, and stdin from stdin ("" for none).
func startRaftsim(t *testing.T, dir, stdin string, args ...string) *started {
	t.Helper()
	s := &started{stdout: filepath.Join(dir, "stdout"), stderr: filepath.Join(dir, "stderr")}
	out, err := os.Create(s.stdout)
	if err != nil {
		t.Fatal(err)
	}
	errf, err := os.Create(s.stderr)
	if err != nil {
		t.Fatal(err)
	}
	s.cmd = exec.Command(os.Args[0], args...)
	s.cmd.Env = append(os.Environ(), asRaftsim+"=1")
	s.cmd.Dir, s.cmd.Stdout, s.cmd.Stderr = dir, out, errf
	// Its own process group, which a test can signal whole, as a
	// terminal's Ctrl-C signals the foreground group.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if stdin != "" {
		s.cmd.Stdin = strings.NewReader(stdin)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out.Close()
	errf.Close()
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			s.cmd.Process.Kill()
			s.cmd.Wait()
		}
	})
	return s
}

// waitUntil polls until ok says the process is far enough into its work.
func (s *started) waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting until %s; stderr: %s", what, s.read(t, s.stderr))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// interrupt sends SIGINT and returns the exit code.
func (s *started) interrupt(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return s.cmd.ProcessState.ExitCode()
	case <-time.After(time.Minute):
		s.cmd.Process.Kill()
		t.Fatal("still running a minute after the signal")
	}
	return 0
}

func (s *started) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(b)
}

// fileHas reports whether the file holds at least n bytes.
func fileHas(name string, n int64) func() bool {
	return func() bool {
		fi, err := os.Stat(name)
		return err == nil && fi.Size() >= n
	}
}

// longScenario never ends on its own in a test's time: half an hour of
// load (360,000 requests, within the 400,000 of a run without compaction).
const longScenario = `name: long
cluster: {members: 3}
steps:
  - expect: {leader: any, within: 5s}
  - load: {for: 30m, rate: 200, keys: 100, mix: {put: 1, get: 1}}
`

// run: the transcript so far, the summary, the trace with its header and
// every event up to the instant it stopped, exit 130.
func TestRunInterrupted(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "long.yaml"), []byte(longScenario), 0o644); err != nil {
			t.Fatal(err)
		}
		p := startRaftsim(t, dir, "", "run", "long.yaml", "--trace", "t.jsonl")
		p.waitUntil(t, "the transcript shows the load", fileHas(p.stdout, 200_000))
		code := p.interrupt(t, sig)
		stdout, stderr := p.read(t, p.stdout), p.read(t, p.stderr)
		if code != exitInterrupted {
			t.Fatalf("%v: exit %d, want %d; stderr: %s", sig, code, exitInterrupted, stderr)
		}
		lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
		if n := len(lines); n < 3 || !strings.HasPrefix(lines[n-2], "seed=1  virtual time ") ||
			!strings.HasPrefix(lines[n-1], "interrupted by "+map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[sig]+" at virtual time ") {
			t.Fatalf("%v: the transcript does not end with the summary of an interrupted run:\n%s", sig, strings.Join(lines[max(0, len(lines)-3):], "\n"))
		}
		if !strings.Contains(stderr, "run: interrupted by") {
			t.Fatalf("%v: stderr %q does not say it was interrupted", sig, stderr)
		}
		// The trace is whole: a header, then events up to the end.
		f, err := os.Open(filepath.Join(dir, "t.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		_, events, err := trace.ReadAll(f)
		f.Close()
		if err != nil {
			t.Fatalf("%v: the trace of an interrupted run: %v", sig, err)
		}
		if len(events) < 1000 {
			t.Fatalf("%v: the trace holds %d events", sig, len(events))
		}
		// No spool is left behind.
		if left, _ := filepath.Glob(filepath.Join(dir, ".raftsim-*")); len(left) > 0 {
			t.Fatalf("left behind: %v", left)
		}
	}
}

// spoolGrew reports whether the trace being spooled in dir holds at
// least n bytes: a piped shell buffers its output, so the spool is what
// shows it is working.
func spoolGrew(dir string, n int64) func() bool {
	return func() bool {
		spools, _ := filepath.Glob(filepath.Join(dir, ".raftsim-trace-*"))
		return len(spools) == 1 && fileHas(spools[0], n)()
	}
}

// shell, piped: its buffered output is written (issue 24: a piped shell
// hit by SIGINT or SIGTERM printed nothing at all), the command running
// stops (within hangLimit; how soon is logged), the ones after it do not
// run, the trace is whole, exit 130.
func TestShellInterrupted(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		dir := t.TempDir()
		p := startRaftsim(t, dir, "put a b\nwait 999h\nget a\n", "shell", "--trace", "t.jsonl")
		p.waitUntil(t, "the wait has run a while", spoolGrew(dir, 4<<20))
		code, _ := p.interruptTimed(t, sig) // within hangLimit, and logged
		stdout, stderr := p.read(t, p.stdout), p.read(t, p.stderr)
		if code != exitInterrupted {
			t.Fatalf("%v: exit %d, want %d; stderr: %s", sig, code, exitInterrupted, stderr)
		}
		name := interrupt.Name(sig)
		for _, want := range []string{"> put a b\nOK\n", "> wait 999h\ninterrupted at ", "raftsim shell: interrupted by " + name + " at virtual time "} {
			if !strings.Contains(stdout, want) {
				t.Fatalf("%v: the output lacks %q:\n%s", sig, want, stdout)
			}
		}
		if strings.Contains(stdout, "get a") {
			t.Fatalf("%v: a command after the interrupted one ran:\n%s", sig, stdout)
		}
		if !strings.Contains(stderr, "shell: interrupted by "+name) {
			t.Fatalf("%v: stderr %q", sig, stderr)
		}
		f, err := os.Open(filepath.Join(dir, "t.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		_, events, err := trace.ReadAll(f)
		f.Close()
		if err != nil || len(events) < 10_000 {
			t.Fatalf("%v: the trace: %d events, %v", sig, len(events), err)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".raftsim-*")); len(left) > 0 {
			t.Fatalf("left behind: %v", left)
		}
	}
}

// A shell waiting for its next command (its input a pipe that stays
// open) still stops at once when signalled.
func TestShellInterruptedWaitingForInput(t *testing.T) {
	dir := t.TempDir()
	s := &started{stdout: filepath.Join(dir, "stdout"), stderr: filepath.Join(dir, "stderr")}
	s.cmd = exec.Command(os.Args[0], "shell")
	s.cmd.Env = append(os.Environ(), asRaftsim+"=1")
	s.cmd.Dir = dir
	out, _ := os.Create(s.stdout)
	errf, _ := os.Create(s.stderr)
	s.cmd.Stdout, s.cmd.Stderr = out, errf
	in, err := s.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out.Close()
	errf.Close()
	if _, err := in.Write([]byte("put a b\nsave s.yaml\n")); err != nil {
		t.Fatal(err)
	}
	s.waitUntil(t, "the save", fileHas(filepath.Join(dir, "s.yaml"), 1))
	if code := s.interrupt(t, syscall.SIGTERM); code != exitInterrupted {
		t.Fatalf("exit %d, want %d", code, exitInterrupted)
	}
	if stdout := s.read(t, s.stdout); !strings.Contains(stdout, "> put a b\nOK\n") || !strings.Contains(stdout, "interrupted by SIGTERM") {
		t.Fatalf("the output:\n%s", stdout)
	}
}

// swarm: the report of the seeds that finished, the results file with
// their lines (every one a seed that finished, in order) and the
// reproducers of their failures, exit 130 (issue 24: Ctrl-C during a swarm
// exited 130 with no summary and no --out file). Over worker processes,
// which Ctrl-C at a terminal reaches too: they are sent the signal as well.
func TestSwarmInterrupted(t *testing.T) {
	for _, workers := range []string{"1", "2"} {
		dir := t.TempDir()
		p := startRaftsim(t, dir, "", "swarm", "--seeds", "1-100000", "--workers", workers, "--bug", "apply-uncommitted", "--no-shrink", "--out", "r.jsonl")
		out := filepath.Join(dir, "r.jsonl")
		p.waitUntil(t, "a few seeds have finished", func() bool {
			// The results go into a temporary file beside r.jsonl
			// (package outfile), renamed into place at the end.
			tmp, _ := filepath.Glob(filepath.Join(dir, ".r.jsonl.raftsim-*"))
			for _, f := range tmp {
				if b, _ := os.ReadFile(f); bytes.Count(b, []byte("\n")) >= 6 {
					return true
				}
			}
			return false
		})
		if workers == "2" {
			// As a terminal's Ctrl-C does: the whole process group, the
			// workers too.
			if err := syscall.Kill(-p.cmd.Process.Pid, syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
		}
		code := p.interrupt(t, syscall.SIGINT)
		stdout, stderr := p.read(t, p.stdout), p.read(t, p.stderr)
		if code != exitInterrupted {
			t.Fatalf("workers %s: exit %d; stderr: %s", workers, code, stderr)
		}
		m := regexp.MustCompile(`(?m)^interrupted by SIGINT after (\d+) of 100000 seeds: the totals above are of the seeds that finished, and r.jsonl holds their results$`).FindStringSubmatch(stdout)
		if m == nil {
			t.Fatalf("workers %s: the report does not say it was interrupted:\n%s", workers, stdout)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		h, results, err := swarm.ReadResults(f, out)
		f.Close()
		if err != nil {
			t.Fatalf("workers %s: the results file: %v", workers, err)
		}
		if fmt.Sprint(len(results)) != m[1] || h.Seeds.Last != 100000 {
			t.Fatalf("workers %s: the report says %s seeds finished, the file holds %d", workers, m[1], len(results))
		}
		if !strings.Contains(stdout, fmt.Sprintf("%s seeds: ", m[1])) {
			t.Fatalf("workers %s: the totals are not of the %s seeds:\n%s", workers, m[1], stdout)
		}
		for _, r := range results {
			if r.Verdict.Failed() {
				if _, err := os.Stat(filepath.Join(dir, "swarm-repro", swarm.ReproFile(r.Seed))); err != nil {
					t.Fatalf("workers %s: seed %d failed, and its reproducer: %v", workers, r.Seed, err)
				}
			}
		}
	}
}

// cpuAtLeast reports whether the process has used at least d of CPU time:
// a command that prints nothing until its end is then well into its work.
func cpuAtLeast(pid int, d time.Duration) func() bool {
	return func() bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return false
		}
		// The fields after the command's name, which is in parentheses.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		var utime, stime int64
		fmt.Sscan(f[11], &utime)
		fmt.Sscan(f[12], &stime)
		return time.Duration(utime+stime)*10*time.Millisecond >= d
	}
}

// experiment: the table of the trials that finished, the files of them,
// a line that says so, exit 130.
func TestExperimentInterrupted(t *testing.T) {
	for _, workers := range []string{"1", "2"} {
		dir := t.TempDir()
		p := startRaftsim(t, dir, "", "experiment", "election-time", "--trials", "100000", "--workers", workers, "--out", "out")
		p.waitUntil(t, "trials have run", cpuAtLeast(p.cmd.Process.Pid, 500*time.Millisecond))
		code := p.interrupt(t, syscall.SIGINT)
		stdout, stderr := p.read(t, p.stdout), p.read(t, p.stderr)
		if code != exitInterrupted {
			t.Fatalf("workers %s: exit %d; stderr: %s", workers, code, stderr)
		}
		m := regexp.MustCompile(`(?m)^interrupted by SIGINT after (\d+) of 500000 trials: the results are of the trials that finished$`).FindStringSubmatch(stdout)
		if m == nil || !strings.Contains(stdout, "range (ms)  trials") {
			t.Fatalf("workers %s: the output:\n%s", workers, stdout)
		}
		csv, err := os.ReadFile(filepath.Join(dir, "out", "election-time.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if rows := fmt.Sprint(bytes.Count(csv, []byte("\n")) - 1); rows != m[1] {
			t.Fatalf("workers %s: %s trials finished, the CSV has %s", workers, m[1], rows)
		}
		for _, f := range []string{"election-time.png", "election-time.svg"} {
			if _, err := os.Stat(filepath.Join(dir, "out", f)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// export: what ran up to the signal is exported (the diagram, the log),
// the history's check is not (its page is not written), exit 130.
func TestExportInterrupted(t *testing.T) {
	dir := t.TempDir()
	long := "name: idle\ncluster: {members: 3}\nsteps:\n  - put: {via: n1, key: k, value: v}\n  - wait: 1000h\n"
	if err := os.WriteFile(filepath.Join(dir, "idle.yaml"), []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startRaftsim(t, dir, "", "export", "idle.yaml", "--lamport", "l.svg", "--shiviz", "s.log", "--porcupine", "p.html")
	p.waitUntil(t, "the run is under way", cpuAtLeast(p.cmd.Process.Pid, 300*time.Millisecond))
	code := p.interrupt(t, syscall.SIGINT)
	stdout, stderr := p.read(t, p.stdout), p.read(t, p.stderr)
	if code != exitInterrupted {
		t.Fatalf("exit %d; stdout: %s; stderr: %s", code, stdout, stderr)
	}
	for _, want := range []string{"wrote l.svg\n", "wrote s.log\n", "not written: p.html (the run was interrupted)\n", "\ninterrupted by SIGINT at virtual time "} {
		if !strings.Contains(stdout, want) {
			t.Fatalf("the output lacks %q:\n%s", want, stdout)
		}
	}
	svg, err := os.ReadFile(filepath.Join(dir, "l.svg"))
	if err != nil || !bytes.HasSuffix(bytes.TrimSpace(svg), []byte("</svg>")) {
		t.Fatalf("the diagram: %v, ends %q", err, svg[max(0, len(svg)-20):])
	}
	if _, err := os.Stat(filepath.Join(dir, "p.html")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the page of an unchecked history was left: %v", err)
	}
}
