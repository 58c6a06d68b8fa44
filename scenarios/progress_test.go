package scenarios

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/raftsim/raftsim/sim"
)

// A scenario's watch with progress_notify and its watch_progress steps
// show progress as etcd v3.6 sends it: the answer to a progress request
// carries the store's current revision (not the watch's), after the
// watch's events; a progress_notify watch gets a periodic notification
// at the end of each interval (etcd's 10 minutes, plus up to a tenth of
// jitter) in which it was sent no events: here not the first (its event
// came in it), but the second.
// The steps survive a write and a parse. (Seen to fail before progress
// was modelled: there was no watch_progress step.)
func TestWatchProgressSteps(t *testing.T) {
	src := `name: progress
cluster: {members: 3}
steps:
  - wait: 1s
  - watch: {via: n1, key: foo, progress_notify: true, as: w1}
  - watch: {via: n1, key: other, as: w2}
  - wait: 100ms
  - put: {via: n2, key: foo, value: v}
  - put: {via: n2, key: bar, value: v}
  - put: {via: n2, key: bar, value: v}
  - wait: 500ms
  - watch_progress: [w1, w2]
  - wait: 100ms
  - put: {via: n2, key: bar, value: v}
  - wait: 23m
`
	s, err := Parse("progress.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	run := func(s *Scenario) *sim.World {
		r, err := NewRunner(s, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Run(); err != nil {
			t.Fatal(err)
		}
		return r.World()
	}
	w := run(s)
	describe := func(w *sim.World) string {
		var out []string
		for _, p := range w.Op("w1").Progress() {
			out = append(out, fmt.Sprintf("rev %d after %d events all=%v", p.Header.Revision, p.After, p.All))
		}
		return strings.Join(out, "; ")
	}
	// The store starts at 1: the puts make 2, 3, 4, then 5.
	want := "rev 4 after 1 events all=true; rev 5 after 1 events all=false"
	if got := describe(w); got != want {
		t.Fatalf("progress notifications: %s, want %s", got, want)
	}
	ps := w.Op("w1").Progress()
	if d := time.Duration(ps[1].At - w.Op("w1").Start); d < 20*time.Minute || d > 22*time.Minute+time.Second {
		t.Errorf("the periodic notification came %s after the watch, want two intervals: 20m to 22m", d)
	}
	if len(w.Op("w2").Progress()) != 0 {
		t.Errorf("w2 got progress notifications: %+v", w.Op("w2").Progress())
	}
	data, err := MarshalWith(MarshalOptions{End: w.Now()}, s.Config, w.Commands())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "watch_progress:") || !strings.Contains(string(data), "progress_notify: true") {
		t.Fatalf("the written session lacks its progress steps:\n%s", data)
	}
	again, err := Parse("again.yaml", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if got := describe(run(again)); got != want {
		t.Fatalf("replayed: %s, want %s", got, want)
	}

	for _, bad := range []struct{ step, err string }{
		{"watch_progress: [nope]", `progress.yaml:4:22: watch_progress: no earlier watch has label "nope"`},
		{"watch_progress: []", "progress.yaml:4:21: watch_progress: want the label of a watch"},
	} {
		src := "name: progress\ncluster: {members: 3}\nsteps:\n  - " + bad.step + "\n"
		if _, err := Parse("progress.yaml", []byte(src)); err == nil || !strings.Contains(err.Error(), bad.err) {
			t.Errorf("%s: %v, want %s", bad.step, err, bad.err)
		}
	}
}
