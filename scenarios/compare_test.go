package scenarios

import (
	"bytes"
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
