//go:build !js

package guitest

// The build constraint: the test signals a process group, which js/wasm has not.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// raftsim serve --window saves its session when it is interrupted, as the
// headless serve does: Ctrl-C in a terminal signals raftsim and the window
// together (the process group), kill PID signals raftsim alone, which
// passes the signal on. Either way the window closes, the session is in
// --save, and raftsim exits 130.
func TestServeWindowSavesWhenInterrupted(t *testing.T) {
	dir := bins(t)
	for k, tc := range []struct {
		name  string
		group bool
		sig   syscall.Signal
	}{{"Ctrl-C", true, syscall.SIGINT}, {"kill", false, syscall.SIGTERM}} {
		t.Run(tc.name, func(t *testing.T) {
			work := t.TempDir()
			save := filepath.Join(work, "s.yaml")
			var out bytes.Buffer
			cmd := exec.Command(filepath.Join(dir, "raftsim"), "serve", "--window", "--port", strconv.Itoa(24790+10*k), "--save", save)
			cmd.Stdout, cmd.Stderr = &out, &out
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// Serving: the window has started and printed its endpoints.
			time.Sleep(3 * time.Second)
			target := cmd.Process.Pid
			if tc.group {
				target = -target
			}
			if err := syscall.Kill(target, tc.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-done:
			case <-time.After(time.Minute):
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				t.Fatalf("still running a minute after %v:\n%s", tc.sig, out.String())
			}
			if code := cmd.ProcessState.ExitCode(); code != 130 {
				t.Errorf("exit %d, want 130:\n%s", code, out.String())
			}
			b, err := os.ReadFile(save)
			if err != nil || !bytes.Contains(b, []byte("cluster:")) {
				t.Fatalf("the session was not saved (%v):\n%s\noutput:\n%s", err, b, out.String())
			}
			if !strings.Contains(out.String(), "saved 0 commands up to ") {
				t.Errorf("no word of the save:\n%s", out.String())
			}
		})
	}
}
