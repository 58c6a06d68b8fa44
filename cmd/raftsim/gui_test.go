package main

import (
	"bytes"
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

func TestPlayNeedsAName(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"play"}, strings.NewReader(""), &out, &errb); code != exitBadInput {
		t.Errorf("play with no name: exit %d, want %d (stderr %q)", code, exitBadInput, errb.String())
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
