package scenarios

import (
	"bytes"
	"strings"
	"testing"
)

// settingTrace runs s and returns its trace's events.
func settingTrace(t *testing.T, s *Scenario) []byte {
	t.Helper()
	var b bytes.Buffer
	r, err := NewRunner(s, RunOptions{Trace: &b})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestSettingDefaults: the value a label gives a key the file does not
// set is its default: the scenario with it written in runs the same,
// event for event.
func TestSettingDefaults(t *testing.T) {
	base := []byte("name: d\nsteps:\n  - expect: {leader: any, within: 3s}\n  - put: {via: \"@follower\", key: k, value: v, as: w}\n  - expect: {op: {w: ok}, within: 2s}\n")
	s, err := Parse("d.yaml", base)
	if err != nil {
		t.Fatal(err)
	}
	want := settingTrace(t, s)
	checked := 0
	for _, key := range CompareKeys() {
		st, err := ParseSetting("--compare", key+"=x")
		if err != nil {
			t.Fatal(err)
		}
		v := FileValue(base, st)
		if v == "unset" {
			continue
		}
		if st, err = ParseSetting("--compare", key+"="+v); err != nil {
			t.Fatal(err)
		}
		got, err := ParseWith("d.yaml", base, []Setting{st})
		if err != nil {
			t.Errorf("%s=%s: %v", key, v, err)
			continue
		}
		if !bytes.Equal(settingTrace(t, got), want) {
			t.Errorf("%s=%s, the default a label shows, runs otherwise than the default", key, v)
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("only %d keys have a default", checked)
	}
}

// TestCompareLessonErrors: compare: and pane: are checked with positions.
func TestCompareLessonErrors(t *testing.T) {
	head := "name: c\ncluster: {members: 3}\n"
	cases := []struct{ body, want string }{
		{"compare:\n  - {pane: a, settings: {pre_vote: false}}\nsteps:\n  - wait: 1s\n", "c.yaml:4:3: compare: 1 panes: want 2 to 4"},
		{"compare:\n  - {pane: a, settings: {pre_vote: false}}\n  - {pane: a, settings: {pre_vote: true}}\nsteps:\n  - wait: 1s\n", `c.yaml:5:12: pane "a" is listed twice`},
		{"compare:\n  - {pane: a, settings: {prevote: false}}\n  - {pane: b, settings: {pre_vote: true}}\nsteps:\n  - wait: 1s\n", `c.yaml:4:26: unknown key "prevote" in pane settings`},
		{"compare:\n  - {pane: a, settings: {pre_vote: maybe}}\n  - {pane: b, settings: {pre_vote: true}}\nsteps:\n  - wait: 1s\n", `c.yaml:4:36: pre_vote: want true or false, found "maybe"`},
		{"compare:\n  - {pane: a, settings: {pre_vote: false}}\n  - {pane: b, settings: {pre_vote: true}}\nsteps:\n  - {wait: 1s, pane: c}\n", `c.yaml:7:22: pane: unknown pane "c" (compare: has a, b)`},
		// A step's pane: without compare: is an unknown key.
		{"steps:\n  - {wait: 1s, pane: c}\n", `unknown key "pane" in a step`},
	}
	for _, c := range cases {
		_, err := Parse("c.yaml", []byte(head+c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.body, err, c.want)
		}
	}
	// The panes each have their own steps and settings.
	s, err := Parse("c.yaml", []byte(head+"compare:\n  - {pane: a, settings: {pre_vote: false}}\n  - {pane: b, settings: {pre_vote: true, latency: 1ms}, caption: {en: B}}\nsteps:\n  - wait: 1s\n  - {wait: 2s, pane: a}\n  - {wait: 3s, pane: [b]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	a, b := s.Panes[0], s.Panes[1]
	if a.Scenario.Config.PreVote || !b.Scenario.Config.PreVote || b.Scenario.Config.Network.Latency.Max.String() != "1ms" {
		t.Errorf("settings: a %+v, b %+v", a.Scenario.Config, b.Scenario.Config)
	}
	if len(a.Scenario.Steps) != 2 || a.Scenario.Steps[1].Wait.String() != "2s" || len(b.Scenario.Steps) != 2 || b.Scenario.Steps[1].Wait.String() != "3s" {
		t.Errorf("steps: a %d, b %d", len(a.Scenario.Steps), len(b.Scenario.Steps))
	}
	if a.Label.En != "pre_vote: false" || b.Label.En != "B" {
		t.Errorf("labels %q, %q", a.Label.En, b.Label.En)
	}
}
