package console

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

// TestSaveWritesASessionThatReplays: save writes the session one step at
// a time, as serve writes its own (session: true), so that a session over
// the 1 MiB that bounds hand-written scenarios still loads for raftsim
// run. Before, save marshalled the whole session as a plain scenario,
// which raftsim run refused past 1 MiB. (Seen to fail so.)
func TestSaveWritesASessionThatReplays(t *testing.T) {
	w, err := sim.New(sim.SandboxConfig())
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	c := New(w, Options{Out: &out, Mode: Blocking, Dir: t.TempDir()})
	if err := c.Start("sandbox"); err != nil {
		t.Fatal(err)
	}
	value := strings.Repeat("v", 400_000)
	for _, line := range []string{"put a " + value, "put b " + value, "put c " + value, "save big.yaml"} {
		if err := c.Exec(line); err != nil {
			t.Fatalf("%.20s: %v", line, err)
		}
	}
	path := filepath.Join(c.opts.Dir, "big.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(data) <= scenarios.MaxFileBytes {
		t.Fatalf("the session is %d bytes, want it over %d", len(data), scenarios.MaxFileBytes)
	}
	s, err := scenarios.Load(path)
	if err != nil {
		t.Fatalf("the saved session of %d bytes does not load: %v", len(data), err)
	}
	if n := len(s.Steps); n != 4 { // three puts and the final wait
		t.Errorf("the saved session has %d steps, want 4", n)
	}
}
