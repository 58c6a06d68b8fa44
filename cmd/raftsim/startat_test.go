package main

import (
	"bytes"
	"net/url"
	"strings"
	"testing"

	"github.com/raftsim/raftsim/cmd/internal/guiflags"
	"github.com/raftsim/raftsim/scenarios"
)

// A link's t=, link --at and --start-at have a scenario's limit on virtual
// time (issue 29: `raftsim --start-at 100000h` ran out of memory at
// 1.76 GB; `raftsim link split-brain --at 100000h` printed such a link).
// Refused before any window opens, so this needs no display.
func TestStartAtHasTheRunTimeLimit(t *testing.T) {
	if guiflags.MaxStartAt != scenarios.MaxRunTime {
		t.Fatalf("guiflags.MaxStartAt %s, scenarios.MaxRunTime %s", guiflags.MaxStartAt, scenarios.MaxRunTime)
	}
	for _, args := range [][]string{
		{"link", "split-brain", "--at", "100000h"},
		{"--start-at", "100000h"},
		{"play", "split-brain", "--start-at", "1000h1s"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(args, strings.NewReader(""), &stdout, &stderr)
		if code != exitBadInput || stdout.Len() != 0 || !strings.Contains(stderr.String(), "more than 1000h") {
			t.Errorf("raftsim %s: exit %d, stdout %q, stderr %q; want exit 2 and the limit named", strings.Join(args, " "), code, stdout.String(), stderr.String())
		}
	}
	if _, _, err := guiflags.FromQuery(url.Values{"t": {"100000h"}}, nil); err == nil || !strings.Contains(err.Error(), "more than 1000h") {
		t.Errorf("t=100000h: %v", err)
	}
}
