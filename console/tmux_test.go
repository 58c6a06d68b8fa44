package console

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestTerminalUnderTmux drives `raftsim shell` in a real terminal: the
// prompt, line editing history (the up arrow brings back the last command),
// a background write, and a foreground watch that streams it until Ctrl-C.
func TestTerminalUnderTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and drives a terminal")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("RAFTSIM_REQUIRE_GUI") != "" {
			t.Fatal("tmux is not installed, and RAFTSIM_REQUIRE_GUI is set")
		}
		t.Skip("tmux is not installed")
	}
	bin := raftsimBinary(t)
	sock := fmt.Sprintf("raftsim-test-%d", os.Getpid())
	session := "shell"
	tm := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(tmux, append([]string{"-L", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	tm("new-session", "-d", "-s", session, "-x", "160", "-y", "60", "-c", t.TempDir(), "env", "TERM=xterm", bin, "shell")
	defer exec.Command(tmux, "-L", sock, "kill-server").Run()
	screen := func() string { return tm("capture-pane", "-p", "-t", session, "-S", "-200") }
	// waitFor polls the screen (wall-clock bounded: the terminal is real).
	waitFor := func(what string, ok func(string) bool) string {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			s := screen()
			if ok(s) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s; the screen:\n%s", what, s)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	has := func(sub string) func(string) bool { return func(s string) bool { return strings.Contains(s, sub) } }
	count := func(sub string, n int) func(string) bool {
		return func(s string) bool { return strings.Count(s, sub) >= n }
	}
	keys := func(k ...string) { tm(append([]string{"send-keys", "-t", session}, k...)...) }

	s := waitFor("the banner and the prompt", has("raftsim 0.225997s>"))
	if !strings.Contains(s, "seed=1") {
		t.Errorf("the session did not print its seed:\n%s", s)
	}

	keys("put foo bar", "Enter")
	waitFor("OK", count("\nOK", 1))

	// History: the up arrow brings the put back; Enter runs it again.
	keys("Up")
	s = waitFor("the recalled line", func(s string) bool {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		last := lines[len(lines)-1]
		return strings.HasPrefix(last, "raftsim ") && strings.HasSuffix(strings.TrimSpace(last), "> put foo bar")
	})
	keys("Enter")
	waitFor("the second OK", count("\nOK", 2))

	// Ctrl-C at the prompt clears the line instead of ending the session.
	keys("get nothing-to-see", "C-c", "get foo", "Enter")
	waitFor("the get", has("foo\nbar"))

	// A streaming watch: a write in the background, then a foreground watch
	// that shows it as virtual time passes, until Ctrl-C.
	keys("put /w/a 1 &", "Enter")
	waitFor("the background job", has("[1] put started in the background"))
	keys("watch /w --prefix", "Enter")
	waitFor("the streamed event", has("PUT\n/w/a\n1"))
	// Virtual time goes on at wall-clock pace while the watch runs.
	time.Sleep(300 * time.Millisecond)
	keys("C-c")
	s = waitFor("the prompt after the watch", func(s string) bool {
		i := strings.Index(s, "PUT\n/w/a\n1")
		return i >= 0 && strings.Contains(s[i:], "raftsim ")
	})
	after := s[strings.Index(s, "PUT\n/w/a\n1"):]
	var prompt string
	for _, l := range strings.Split(after, "\n") {
		if i := strings.Index(l, "raftsim "); i >= 0 {
			prompt = l[i:] // the terminal may have echoed ^C before it
		}
	}
	var secs float64
	if _, err := fmt.Sscanf(prompt, "raftsim %fs>", &secs); err != nil || secs < 0.45 {
		t.Errorf("after a streaming watch the prompt should show time gone by; got %q; the screen:\n%s", prompt, s)
	}

	// A long wait shows its progress after a few seconds of wall time, and
	// Ctrl-C stops it and not the session (issue 24: `wait 999h` ran for
	// 15 minutes with no progress and no way out).
	keys("wait 999h", "Enter")
	waitFor("the progress of the wait", has("Ctrl-C stops it"))
	s = screen()
	if !regexp.MustCompile(`wait 999h: [0-9hms.]+ of 999h \([0-9.]+%\) in [0-9.]+s, about [0-9hms.]+ left; Ctrl-C stops it`).MatchString(s) {
		t.Errorf("the progress line does not say how far the wait has gone:\n%s", s)
	}
	keys("C-c")
	waitFor("the wait interrupted", has("interrupted at "))
	keys("get foo", "Enter")
	waitFor("the session going on", count("foo\nbar", 2))

	t.Logf("the screen:\n%s", screen())
	keys("exit", "Enter")
	deadline := time.Now().Add(10 * time.Second)
	for exec.Command(tmux, "-L", sock, "has-session", "-t", session).Run() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the shell did not exit; the screen:\n%s", screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
