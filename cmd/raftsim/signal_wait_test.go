//go:build !js

package main

// The build constraint: these tests send signals, which js/wasm has not.

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/raftsim/raftsim/interrupt"
	"github.com/raftsim/raftsim/scenarios"
)

// Every wait ends on a signal (issue 29): these send SIGINT and SIGTERM
// to raftsim while it is deep in a wait that used to outlast them, and
// check that it ends soon, exits 130 and keeps its work. How soon is
// measured and logged; the bound asserted (hangLimit) is only there to
// tell a hang from a stop, not to time anything.

// hangLimit is how long after a signal a command may take to end before
// the test calls it a hang. The fixed commands end within a fraction of a
// second; the broken ones went on for minutes or for ever.
const hangLimit = 3 * time.Second

// interruptTimed sends sig and returns the exit code and how long the
// process took to end; past hangLimit it is killed and the test fails.
func (s *started) interruptTimed(t *testing.T, sig syscall.Signal) (int, time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	sent := time.Now()
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		took := time.Since(sent)
		t.Logf("%v: ended %v after the signal", sig, took.Round(time.Millisecond))
		return s.cmd.ProcessState.ExitCode(), took
	case <-time.After(hangLimit):
		s.cmd.Process.Kill()
		<-done
		t.Fatalf("%v: still running %v after the signal; stdout ends: %s; stderr: %s", sig, hangLimit, tail(s.read(t, s.stdout), 300), s.read(t, s.stderr))
	}
	return 0, 0
}

// checkServeKept checks what an interrupted serve left: exit 130, a line
// that says so, the session saved (and a scenario that loads). NB: no
// --trace, which serve writes from its history at exit, and a session of
// hours takes tens of seconds to write (see docs/scenarios.md).
func checkServeKept(t *testing.T, p *started, dir string, sig syscall.Signal, code int) {
	t.Helper()
	stdout, stderr := p.read(t, p.stdout), p.read(t, p.stderr)
	if code != exitInterrupted {
		t.Fatalf("%v: exit %d, want %d; stdout ends: %s; stderr: %s", sig, code, exitInterrupted, tail(stdout, 300), stderr)
	}
	if want := "raftsim serve: interrupted by " + interrupt.Name(sig) + " at "; !strings.Contains(stderr, want) || !strings.Contains(stderr, "the session is saved in s.yaml") {
		t.Fatalf("%v: stderr %q does not say it was interrupted and saved", sig, stderr)
	}
	if !strings.Contains(stdout, "saved ") {
		t.Fatalf("%v: stdout does not say the session was saved: %s", sig, tail(stdout, 300))
	}
	if _, err := scenarios.Load(filepath.Join(dir, "s.yaml")); err != nil {
		t.Fatalf("%v: the saved session: %v", sig, err)
	}
}

// A console wait in serve: `wait 100h` at serve's console ran the world
// for the whole of it and no signal ended it.
func TestServeConsoleWaitInterrupted(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		dir := t.TempDir()
		sc, _ := servedScenario(t, dir, "http")
		p := startRaftsim(t, dir, "put a b\nwait 100h\n", "serve", sc, "--save", "s.yaml")
		p.waitUntil(t, "serve serves", func() bool { return strings.Contains(p.read(t, p.stdout), "time runs at") })
		p.waitUntil(t, "the wait is under way", cpuAtLeast(p.cmd.Process.Pid, 1500*time.Millisecond))
		code, _ := p.interruptTimed(t, sig)
		checkServeKept(t, p, dir, sig, code)
		if stdout := p.read(t, p.stdout); !strings.Contains(stdout, "interrupted at ") {
			t.Fatalf("%v: the console does not say where the wait stopped: %s", sig, tail(stdout, 300))
		}
	}
}

// A world that has fallen behind the wall clock: a load of 10,000
// requests a second at ten times the wall clock's pace is more than the
// world can do, so each advance to the wall clock's instant has more to
// do than the one before, and the signal was seen only between them.
func TestServeFallenBehindInterrupted(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		dir := t.TempDir()
		sc, _ := servedScenario(t, dir, "http")
		p := startRaftsim(t, dir, "load --for 40s --rate 10000\n", "serve", sc, "--rate", "10", "--save", "s.yaml")
		p.waitUntil(t, "serve serves", func() bool { return strings.Contains(p.read(t, p.stdout), "time runs at") })
		p.waitUntil(t, "the load is well under way", cpuAtLeast(p.cmd.Process.Pid, 4*time.Second))
		code, _ := p.interruptTimed(t, sig)
		checkServeKept(t, p, dir, sig, code)
	}
}
