package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLinearizabilityHTMLInBrowser writes the client history of a lesson as
// porcupine's HTML page and loads it in headless Chromium: the page's script
// must run and draw every operation of the history.
func TestLinearizabilityHTMLInBrowser(t *testing.T) {
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
	if code := run([]string{"run", "stale-read", "-q", "--linearizability-html", page}, nil, &stdout, &stderr); code != 0 {
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
	// The operations only appear in the DOM once the page's script has
	// drawn them (in the file they sit inside a JSON string, escaped).
	for _, want := range []string{`put("/config/replicas", "3")`, `put("/config/replicas", "5")`,
		`get("/config/replicas") → [/config/replicas=5]`} {
		if !strings.Contains(string(dom), want) {
			t.Errorf("the rendered page lacks %s", want)
		}
	}
}
