package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// With no display, the window commands say so, point at the headless
// command and fail, without starting (or panicking in) the GUI binary.
func TestGUIWithoutDisplay(t *testing.T) {
	t.Setenv("DISPLAY", "")
	for _, args := range [][]string{nil, {"play", "split-brain", "--seed", "3"}} {
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(""), &out, &errb)
		if code == 0 {
			t.Errorf("%q: exit 0 without a display", args)
		}
		msg := errb.String()
		if !strings.Contains(msg, "needs a display") || !strings.Contains(msg, "raftsim run") {
			t.Errorf("%q: stderr %q does not explain the missing display and suggest raftsim run", args, msg)
		}
		if len(args) > 1 && !strings.Contains(msg, "raftsim run split-brain") {
			t.Errorf("%q: stderr %q does not suggest running the same scenario headless", args, msg)
		}
	}
}

// play with no name is the lesson picker, a window too.
func TestPlayWithNoNameIsThePicker(t *testing.T) {
	t.Setenv("DISPLAY", "")
	var out, errb bytes.Buffer
	code := run([]string{"play", "--lang", "zh"}, strings.NewReader(""), &out, &errb)
	if code == exitOK || !strings.Contains(errb.String(), "needs a display") || !strings.Contains(errb.String(), "raftsim lessons") {
		t.Errorf("play with no name and no display: exit %d, stderr %q", code, errb.String())
	}
}

// With a display but no raftsim-gui anywhere, it says where it looked.
func TestGUIBinaryMissing(t *testing.T) {
	t.Setenv("DISPLAY", ":99")
	t.Setenv("PATH", t.TempDir())
	var out, errb bytes.Buffer
	code := run(nil, strings.NewReader(""), &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), "cannot find raftsim-gui") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// Help needs no display: `raftsim play --help` prints the window's flags
// itself, and raftsim-gui prints its help (or says that it has no display)
// instead of dying in ebiten's init.
func TestHelpWithoutDisplay(t *testing.T) {
	t.Setenv("DISPLAY", "")
	for _, args := range [][]string{{"play", "--help"}, {"play", "-h"}, {"play", "split-brain", "--help"}} {
		var out, errb bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, &errb); code != exitOK {
			t.Errorf("%q: exit %d, stderr %q", args, code, errb.String())
		}
		if !strings.Contains(out.String(), "Usage:") || !strings.Contains(out.String(), "--lang") {
			t.Errorf("%q printed no help:\n%s", args, out.String())
		}
	}
	if testing.Short() {
		t.Skip("-short: not building raftsim-gui")
	}
	bin := filepath.Join(t.TempDir(), "raftsim-gui")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/raftsim/raftsim/cmd/raftsim-gui").CombinedOutput(); err != nil {
		t.Fatalf("building raftsim-gui: %v\n%s", err, out)
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "DISPLAY=") })
	gui := func(args ...string) (string, string, int) {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), code
	}
	for _, h := range []string{"--help", "-h"} {
		out, errs, code := gui(h)
		if code != 0 || !strings.Contains(out, "Usage:") || !strings.Contains(out, "--screenshot-at") || strings.Contains(errs, "panic") {
			t.Errorf("raftsim-gui %s without a display: exit %d\nstdout: %s\nstderr: %s", h, code, out, errs)
		}
	}
	_, errs, code := gui("play", "split-brain")
	if code != 1 || !strings.Contains(errs, "needs a display") || strings.Contains(errs, "panic") {
		t.Errorf("raftsim-gui play without a display: exit %d, stderr %s", code, errs)
	}
}
