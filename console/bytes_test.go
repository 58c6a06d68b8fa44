package console

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

// A key or value that is not UTF-8 is any bytes to etcd, and stays the
// bytes typed: split does not turn a bad byte into U+FFFD, and save writes
// it so that the saved session replays it exactly (issue 24: such a key
// changed into U+FFFD on save).
func TestKeysThatAreNotUTF8(t *testing.T) {
	words, err := split("put 'k\xffey' v\xfe\\\xfd x\"\x80\"")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"put", "k\xffey", "v\xfe\xfd", "x\x80"}; strings.Join(words, "|") != strings.Join(want, "|") {
		t.Fatalf("split: %q, want %q", words, want)
	}
	w, err := sim.New(sim.SandboxConfig())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	dir := t.TempDir()
	c := New(w, Options{Out: &out, Dir: dir})
	if err := c.Start("sandbox"); err != nil {
		t.Fatal(err)
	}
	if err := c.RunScript(strings.NewReader("put k\xffey v\xfe\nget k\xffey\nsave s.yaml\n")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "\nk\xffey\nv\xfe\n") {
		t.Fatalf("get did not print the bytes put:\n%q", out.String())
	}
	s, err := scenarios.Load(filepath.Join(dir, "s.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, st := range s.Steps {
		if p := st.Req.Put; p != nil {
			found = true
			if string(p.Key) != "k\xffey" || string(p.Value) != "v\xfe" {
				t.Errorf("the saved put is %q = %q", p.Key, p.Value)
			}
		}
	}
	if !found {
		t.Fatal("the saved session has no put")
	}
}
