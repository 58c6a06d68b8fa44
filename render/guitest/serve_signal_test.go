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
			outPath := filepath.Join(work, "out")
			outFile, err := os.Create(outPath)
			if err != nil {
				t.Fatal(err)
			}
			defer outFile.Close()
			output := func() string { b, _ := os.ReadFile(outPath); return string(b) }
			cmd := exec.Command(filepath.Join(dir, "raftsim"), "serve", "--window", "--port", strconv.Itoa(24790+10*k), "--save", save)
			cmd.Stdout, cmd.Stderr = outFile, outFile
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// Serving: the window prints its endpoints from its first
			// update, after both processes catch the signals.
			for deadline := time.Now().Add(2 * time.Minute); !strings.Contains(output(), "kube-apiserver --etcd-servers="); {
				if time.Now().After(deadline) {
					syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
					t.Fatalf("the window never said it serves:\n%s", output())
				}
				time.Sleep(20 * time.Millisecond)
			}
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
				t.Fatalf("still running a minute after %v:\n%s", tc.sig, output())
			}
			if code := cmd.ProcessState.ExitCode(); code != 130 {
				t.Errorf("exit %d, want 130:\n%s", code, output())
			}
			b, err := os.ReadFile(save)
			if err != nil || !bytes.Contains(b, []byte("cluster:")) {
				t.Fatalf("the session was not saved (%v):\n%s\noutput:\n%s", err, b, output())
			}
			if !bytes.Contains(b, []byte("\nsession: true\n")) {
				t.Errorf("the session was not written as serve writes one (session: true, a step at a time):\n%s", b)
			}
			if !strings.Contains(output(), "saved 0 commands up to ") {
				t.Errorf("no word of the save:\n%s", output())
			}
		})
	}
}
