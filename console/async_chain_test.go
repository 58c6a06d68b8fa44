package console

import (
	"strings"
	"testing"
	"time"

	"github.com/raftsim/raftsim/sim"
)

// TestAsyncChainedRequestsPollOnce: in Async mode (serve's console) a verb
// that sends a request after another one answered (auth enable's root
// role and grant; --user's Authenticate, then the request) sends each once.
// Sending polls the console's jobs, the sending one among them: auth enable
// took the next step again from inside its own poll and ran off the end of
// its steps (a panic: index out of range), and a request with --user was
// sent twice.
func TestAsyncChainedRequestsPollOnce(t *testing.T) {
	w, err := sim.New(sim.SandboxConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.RunUntil(sim.Time(3 * time.Second)); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	c := New(w, Options{Out: &out, Mode: Async})
	for _, step := range []struct{ line, want string }{
		{"user add root:pw", "User root created"},
		{"auth enable", "Authentication Enabled"},
		{"put k v --user root:pw", "OK"},
		{"auth disable --user root:pw", "Authentication Disabled"},
	} {
		before := strings.Count(out.String(), step.want)
		if err := c.Exec(step.line); err != nil {
			t.Fatalf("%s: %v", step.line, err)
		}
		for i := 0; strings.Count(out.String(), step.want) == before; i++ {
			if i == 1000 {
				t.Fatalf("%s: no %q after 10s:\n%s", step.line, step.want, out.String())
			}
			if err := w.Advance(10 * time.Millisecond); err != nil {
				t.Fatal(err)
			}
			c.Poll()
		}
	}
	puts := 0
	for _, op := range w.Ops() {
		if op.Kind == sim.OpPut && op.Key() == "k" {
			puts++
		}
	}
	if puts != 1 {
		t.Errorf("put k v --user sent %d puts, want 1:\n%s", puts, out.String())
	}
}
