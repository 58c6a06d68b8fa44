package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestExportPorcupineShowsATimeout exports the history of leader-crash,
// whose second write is lost with the old leader and times out, as
// porcupine's page, and loads it in headless Chromium: the page's script
// must draw every write, the timed-out one as a box that runs to the end
// of the history (its outcome is unknown, so it may take effect at any
// time after it was sent).
func TestExportPorcupineShowsATimeout(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("RAFTSIM_REQUIRE_GUI") == "1" {
			t.Fatal("chromium is not installed (make deps installs it)")
		}
		t.Skip("chromium is not installed")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "history.html")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"export", "leader-crash", "--porcupine", page}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--dump-dom", "file://"+page)
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	// Each drawn operation is a rect followed by its text.
	box := regexp.MustCompile(`<rect height="30" width="([0-9.]+)" x="([0-9.]+)"[^>]*class="history-rect"[^>]*></rect><text[^>]*>([^<]*)</text>`)
	ends := map[string]float64{}
	for _, m := range box.FindAllStringSubmatch(string(dom), -1) {
		w, _ := strconv.ParseFloat(m[1], 64)
		x, _ := strconv.ParseFloat(m[2], 64)
		ends[m[3]] = x + w
	}
	put := func(v string) string { return `put("/registry/leases/kube-node-lease/node-1", "` + v + `")` }
	for _, v := range []string{"renew-1", "renew-2", "renew-3"} {
		if _, ok := ends[put(v)]; !ok {
			t.Fatalf("the page does not draw %s (it drew %v)", put(v), ends)
		}
	}
	if lost := ends[put("renew-2")]; lost <= ends[put("renew-1")] || lost <= ends[put("renew-3")] {
		t.Errorf("the timed-out write ends at x=%.0f, not after the others (%v)", lost, ends)
	}
	if !strings.Contains(stdout.String(), "wrote "+page) {
		t.Errorf("stdout: %q", stdout.String())
	}
}

func TestExportNeedsSomethingToWrite(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"export", "leader-crash"}, nil, &stdout, &stderr); code != exitBadInput ||
		!strings.Contains(stderr.String(), "nothing to write") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	if code := run([]string{"export", "leader-crash", "--lamport", "x.svg", "--from", "2s", "--to", "1s"}, nil, &stdout, &stderr); code != exitBadInput {
		t.Errorf("a backward window: exit %d", code)
	}
}

// Without a display, --frames and --gif say what they need.
func TestExportFramesNeedADisplay(t *testing.T) {
	t.Setenv("DISPLAY", "")
	var stdout, stderr bytes.Buffer
	code := run([]string{"export", "first-election", "--gif", filepath.Join(t.TempDir(), "x.gif")}, nil, &stdout, &stderr)
	if code == 0 || !strings.Contains(stderr.String(), "needs a display") || !strings.Contains(stderr.String(), "xvfb-run") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}
