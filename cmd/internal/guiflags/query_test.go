package guiflags

import (
	"errors"
	"io"
	"net/url"
	"strings"
	"testing"
)

func decodeForTest(s string) ([]byte, error) {
	if s == "bad" {
		return nil, errors.New("the scenario parameter does not inflate")
	}
	return []byte("yaml:" + s), nil
}

func TestFromQuery(t *testing.T) {
	for _, c := range []struct {
		query, args, scenario, err string
	}{
		{query: "", args: ""},
		{query: "lesson=split-brain&lang=zh&seed=7&present=1", args: "play split-brain --lang zh --seed 7 --present=true"},
		{query: "lesson", args: "play"},
		{query: "lesson=&present", args: "play --present=true"},
		{query: "scenario=abc&t=6.512345678s", args: "play " + LinkedScenario + " --start-at 6.512345678s", scenario: "yaml:abc"},
		{query: "lesson=leader-crash&t=2.5&paused=0&speed=0.5&scale=1.5", args: "play leader-crash --paused=false --start-at 2.5s --speed 0.5 --scale 1.5"},
		{query: "lesson=a&scenario=b", err: "not both"},
		{query: "scenario=bad", err: "does not inflate"},
		{query: "lesson=x&lang=fr", err: "lang=fr: want en or zh"},
		{query: "seed=-1", err: "seed=-1: want a whole number"},
		{query: "present=maybe", err: "present=maybe: want 1 or 0"},
		{query: "t=-2s", err: "t=-2s"},
		{query: "t=soon", err: "t=soon"},
		{query: "speed=0", err: "speed=0: want a positive number"},
		{query: "lesson=a&lesson=b", err: "gives lesson 2 times"},
		{query: "lesson=a&zz=1&fbclid=2", err: `unknown link parameter "fbclid" (known: lesson, scenario`},
	} {
		q, err := url.ParseQuery(c.query)
		if err != nil {
			t.Fatal(err)
		}
		args, scen, err := FromQuery(q, decodeForTest)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("?%s: error %v, want one saying %q", c.query, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("?%s: %v", c.query, err)
			continue
		}
		if got := strings.Join(args, " "); got != c.args {
			t.Errorf("?%s: args %q, want %q", c.query, got, c.args)
		}
		if string(scen) != c.scenario {
			t.Errorf("?%s: scenario %q, want %q", c.query, scen, c.scenario)
		}
		// What FromQuery writes, the window's flag set reads.
		fs, _ := New(io.Discard)
		if err := fs.Parse(args); err != nil {
			t.Errorf("?%s: the flag set refuses %q: %v", c.query, args, err)
		}
	}
}
