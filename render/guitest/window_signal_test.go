//go:build !js

package guitest

// The build constraint: the tests signal processes, which js/wasm has not.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/raftsim/raftsim/scenarios"
)

// Every wait ends on a signal (issue 29), in the window too: a seek far
// ahead (--start-at, what a link's t= asks) and a long wait typed in the
// command box stop at the next instant on SIGINT or SIGTERM, and the
// window ends as every interrupted command does, exit 130, keeping its
// work (the shot due, the session). How soon is measured and logged;
// hangLimit only tells a hang from a stop.

// hangLimit is generous: the shot that the command box's test keeps is
// read back from the GPU, which under xvfb's software GL on a loaded
// machine (load 30 on 2 cores) took up to 5 s; the seek ends in 0.25-0.5 s
// there.
const hangLimit = 10 * time.Second

// window is a window process under test.
type window struct {
	cmd  *exec.Cmd
	out  string // stdout and stderr
	done chan struct{}
}

func startWindow(t *testing.T, work string, bin string, args ...string) *window {
	t.Helper()
	w := &window{out: filepath.Join(work, "out"), done: make(chan struct{})}
	f, err := os.Create(w.out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w.cmd = exec.Command(filepath.Join(bins(t), bin), args...)
	w.cmd.Dir, w.cmd.Stdout, w.cmd.Stderr = work, f, f
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { w.cmd.Wait(); close(w.done) }()
	t.Cleanup(func() {
		syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
		<-w.done
	})
	return w
}

func (w *window) output() string { b, _ := os.ReadFile(w.out); return string(b) }

// cpu is the CPU time the process group's processes have used (raftsim
// and the window it runs).
func (w *window) cpu() time.Duration {
	var total time.Duration
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		var pgrp int
		var utime, stime int64
		fmt.Sscan(f[2], &pgrp)
		if pgrp != w.cmd.Process.Pid {
			continue
		}
		fmt.Sscan(f[11], &utime)
		fmt.Sscan(f[12], &stime)
		total += time.Duration(utime+stime) * 10 * time.Millisecond
	}
	return total
}

// busy waits until the processes have used d of CPU time: well into the
// seek or the wait.
func (w *window) busy(t *testing.T, d time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); w.cpu() < d; {
		select {
		case <-w.done:
			t.Fatalf("ended before the signal:\n%s", w.output())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("not busy after two minutes:\n%s", w.output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// signal sends sig (to the whole group, as a terminal's Ctrl-C does, or
// to the first process alone, as kill PID does) and returns the exit code.
func (w *window) signal(t *testing.T, sig syscall.Signal, group bool) int {
	t.Helper()
	target := w.cmd.Process.Pid
	if group {
		target = -target
	}
	sent := time.Now()
	if err := syscall.Kill(target, sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.done:
		t.Logf("%v: ended %v after the signal", sig, time.Since(sent).Round(time.Millisecond))
	case <-time.After(hangLimit):
		t.Fatalf("%v: still running %v after the signal:\n%s", sig, hangLimit, w.output())
	}
	return w.cmd.ProcessState.ExitCode()
}

var signals = []struct {
	name  string
	sig   syscall.Signal
	group bool
}{{"Ctrl-C", syscall.SIGINT, true}, {"kill", syscall.SIGTERM, false}}

// raftsim --start-at 999h seeks the sandbox to 999 hours before its first
// frame; a signal ended it only by its default action (raftsim-gui) or
// not at all (kill PID of raftsim left the window seeking).
func TestWindowSeekInterrupted(t *testing.T) {
	for _, tc := range signals {
		t.Run(tc.name, func(t *testing.T) {
			work := t.TempDir()
			w := startWindow(t, work, "raftsim", "--start-at", "999h")
			w.busy(t, 1500*time.Millisecond)
			if code := w.signal(t, tc.sig, tc.group); code != 130 {
				t.Fatalf("exit %d, want 130:\n%s", code, w.output())
			}
			want := fmt.Sprintf("raftsim-gui: interrupted by %s at virtual time ", map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[tc.sig])
			if out := w.output(); !strings.Contains(out, want) || !strings.Contains(out, "while it sought 999h0m0s; nothing to save") {
				t.Fatalf("the output does not say where the seek stopped:\n%s", out)
			}
		})
	}
}

// A wait of 100 hours typed in the command box: the window stops it, takes
// the shot that was due of what it shows, saves the session (its put), and
// exits 130.
func TestWindowCommandBoxWaitInterrupted(t *testing.T) {
	for _, tc := range signals {
		t.Run(tc.name, func(t *testing.T) {
			work := t.TempDir()
			w := startWindow(t, work, "raftsim-gui", "--screenshot-at", "1s", "--out", "shot.png",
				"--input", "key::", "--input", "type:put a b", "--input", "key:enter", "--input", "type:wait 100h", "--input", "key:enter")
			w.busy(t, 2500*time.Millisecond)
			if code := w.signal(t, tc.sig, tc.group); code != 130 {
				t.Fatalf("exit %d, want 130:\n%s", code, w.output())
			}
			out := w.output()
			if !strings.Contains(out, "wrote shot.png at virtual time ") || !strings.Contains(out, "; the session is saved in raftsim-session-t") {
				t.Fatalf("the output does not say what was kept:\n%s", out)
			}
			readPNG(t, filepath.Join(work, "shot.png"))
			saved, _ := filepath.Glob(filepath.Join(work, "raftsim-session-t*.yaml"))
			if len(saved) != 1 {
				t.Fatalf("saved sessions: %v", saved)
			}
			s, err := scenarios.Load(saved[0])
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(saved[0]); !bytes.Contains(b, []byte("key: a")) {
				t.Fatalf("the saved session lacks the put (%d steps):\n%s", len(s.Steps), b)
			}
		})
	}
}
