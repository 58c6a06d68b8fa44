package export_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/raftsim/raftsim/export"
	"github.com/raftsim/raftsim/sim"
)

// TestShiVizLog parses the log with the documented regular expression (in
// Go's spelling) and checks what ShiViz checks: each host's own clock
// counts its events 1, 2, 3..., and every receive's clock is at least the
// clock of its send (so the send happened before); and that every message
// the trace delivered is in it, heartbeats aside.
func TestShiVizLog(t *testing.T) {
	w := runLesson(t, "follower-forwarding")
	var b bytes.Buffer
	if err := export.ShiViz(&b, w, export.ShiVizOptions{}); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(strings.ReplaceAll(export.ShiVizRegex, "(?<", "(?P<"))
	matches := re.FindAllStringSubmatch(b.String(), -1)
	if lines := strings.Count(b.String(), "\n"); len(matches) == 0 || 2*len(matches) != lines {
		t.Fatalf("the regular expression matched %d events in %d lines", len(matches), lines)
	}
	last := map[string]int{}
	type sendClock struct{ clock map[string]int }
	var receives, sends int
	pending := map[string][]map[string]int{} // event text of a send → its clocks
	for _, m := range matches {
		event, host, clockText := m[re.SubexpIndex("event")], m[re.SubexpIndex("host")], m[re.SubexpIndex("clock")]
		var clock map[string]int
		if err := json.Unmarshal([]byte(clockText), &clock); err != nil {
			t.Fatalf("a clock that is not JSON: %q", clockText)
		}
		if clock[host] != last[host]+1 {
			t.Fatalf("%s: its clock goes from %d to %d", host, last[host], clock[host])
		}
		last[host] = clock[host]
		if i := strings.Index(event, " → "); i > 0 && strings.Contains(event, "Msg") {
			sends++
			key := strings.TrimSpace(event[strings.Index(event, "s ")+1:])
			pending[key] = append(pending[key], clock)
		}
		if i := strings.Index(event, " ← "); i > 0 && strings.Contains(event, "Msg") {
			receives++
			// "t  to ← from  what" was sent as "t  from → to  what".
			body := strings.TrimSpace(event[strings.Index(event, "s ")+1:])
			to, rest, _ := strings.Cut(body, " ← ")
			from, what, _ := strings.Cut(rest, "  ")
			ss := pending[from+" → "+to+"  "+what]
			if len(ss) == 0 {
				t.Fatalf("a receive with no send before it: %q", event)
			}
			for h, n := range ss[0] {
				if clock[h] < n {
					t.Fatalf("%q: its clock %v is not after its send's %v", event, clock, ss[0])
				}
			}
		}
	}
	wantSends, wantDelivers := 0, 0
	for i := range w.HistoryLen() {
		if e := w.EventAt(i); !e.IsHeartbeat() {
			switch e.Kind {
			case sim.EvSend:
				wantSends++
			case sim.EvDeliver:
				wantDelivers++
			}
		}
	}
	if sends != wantSends || receives != wantDelivers {
		t.Errorf("the log has %d sends and %d receives of raft messages; the trace %d and %d", sends, receives, wantSends, wantDelivers)
	}
}
