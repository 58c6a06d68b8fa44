package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/raftsim/raftsim/cmd/internal/guiflags"
	"github.com/raftsim/raftsim/interrupt"
)

// guiBinary is the window's binary. It links ebiten, whose init panics
// without a display, so it lives apart from this headless one (DESIGN.md).
const guiBinary = "raftsim-gui"

// exitNoDisplay is the exit code when the window cannot open.
const exitNoDisplay = exitExpect

// sandboxCmd opens the window on the default sandbox; args are the GUI's
// flags (raftsim --seed 3 --screenshot-at 2s --out f.png).
func sandboxCmd(args []string, stdout, stderr io.Writer) error {
	return startGUI(args, os.Stdin, stdout, stderr)
}

// playCmd opens the window playing a scenario or a lesson, or with no
// name the lesson picker. Its flags
// (--seed, --lang, --scale, --screenshot-at, --out, ...) are the GUI's.
func playCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if guiflags.WantsHelp(args) {
		// Printed here, so that it works without a display.
		fs, _ := guiflags.New(stdout)
		guiflags.PrintUsage(stdout, fs)
		return nil
	}
	if len(args) > 0 && args[0] == "" {
		return badInput("usage: raftsim play [FILE|NAME] [--seed N] [--lang en|zh] [--scale F] [--screenshot-at DUR --out FILE.png]")
	}
	if err := checkPlayCompare(args); err != nil {
		return err
	}
	return startGUI(append([]string{"play"}, args...), stdin, stdout, stderr)
}

// hasDisplay reports whether a window can open here.
func hasDisplay() bool {
	switch runtime.GOOS {
	case "linux", "freebsd", "openbsd", "netbsd":
		return os.Getenv("DISPLAY") != ""
	}
	return true
}

// findGUI returns the path of raftsim-gui: next to this executable, or on
// PATH.
func findGUI() (string, error) {
	name := guiBinary
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return exec.LookPath(name)
}

// startGUI runs raftsim-gui with args and passes its exit code on.
func startGUI(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	// Refused here, before a window opens (and without a display).
	if fs, fl := guiflags.New(io.Discard); fs.Parse(args) == nil {
		if err := guiflags.CheckStartAt("--start-at", fl.StartAt); err != nil {
			return badInput("raftsim: %v", err)
		}
	}
	// The window ends itself on SIGINT or SIGTERM (exit 130, its session
	// kept): raftsim passes them on, so that kill PID of raftsim does not
	// leave the window running without it.
	sig := interrupt.Catch()
	defer sig.Stop()
	return runGUI(args, stdin, stdout, stderr, sig, true)
}

// runGUIUntil is startGUI for a window that works on its own (export's
// frames): a signal that stop catches ends it, at once.
func runGUIUntil(args []string, stdout, stderr io.Writer, stop *interrupt.Catcher) error {
	return runGUI(args, nil, stdout, stderr, stop, false)
}

// startGUIPassingSignals is startGUI for a window that ends itself on
// SIGINT or SIGTERM (raftsim serve --window, which saves its session
// first): they are caught here and passed on to it, so that raftsim does
// not end before the window has saved (Ctrl-C in a terminal reaches both;
// kill PID only raftsim).
func startGUIPassingSignals(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	sig := interrupt.Catch()
	defer sig.Stop()
	return runGUI(args, stdin, stdout, stderr, sig, true)
}

// findWindow returns the window's binary, or why it cannot open here:
// args are the window's, for what to suggest instead.
func findWindow(args []string) (string, error) {
	what := "raftsim shell (the sandbox, as a console), or raftsim run first-election"
	if len(args) > 0 && args[0] == "play" {
		what = "raftsim lessons, then raftsim run NAME"
		if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
			what = "raftsim run " + args[1]
		}
	}
	if !hasDisplay() {
		return "", &exitError{code: exitNoDisplay, err: fmt.Errorf(
			"raftsim: the window needs a display, and DISPLAY is not set.\n"+
				"  Run headless instead: %s\n"+
				"  (or start it under a virtual display: xvfb-run -a raftsim ...)", what)}
	}
	bin, err := findGUI()
	if err != nil {
		return "", &exitError{code: exitNoDisplay, err: fmt.Errorf(
			"raftsim: cannot find %s next to raftsim or on PATH (build it with 'make build'); headless: %s", guiBinary, what)}
	}
	return bin, nil
}

// runGUI runs the window; a signal that stop catches ends it at once, or,
// with pass, is passed on to it.
func runGUI(args []string, stdin io.Reader, stdout, stderr io.Writer, stop *interrupt.Catcher, pass bool) error {
	bin, err := findWindow(args)
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	if f, ok := file(stdout); ok {
		cmd.Stdout = f // the window writes to the terminal itself
	}
	if err = cmd.Start(); err == nil {
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
	wait:
		for {
			select {
			case err = <-done:
				break wait
			case <-stop.Done():
				if !pass {
					cmd.Process.Kill()
					err = <-done
					break wait
				}
				_ = cmd.Process.Signal(stop.Signal())
				stop.Rearm()
			}
		}
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code := ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal()) // as a shell reports a window a signal killed (a second Ctrl-C)
		}
		return &exitError{code: code, err: errors.New("")}
	}
	if err != nil {
		return &exitError{code: exitNoDisplay, err: fmt.Errorf("raftsim: starting %s: %w", bin, err)}
	}
	return nil
}
