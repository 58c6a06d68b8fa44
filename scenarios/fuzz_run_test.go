package scenarios

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/raftsim/raftsim/sim"
)

// FuzzRun parses arbitrary scenarios and runs the ones that parse, for at
// most a minute of virtual time: whatever the file says, the runner and the
// simulator must end with a result or an error, never a panic or a hang.
func FuzzRun(f *testing.F) {
	for _, name := range lessonOrder() {
		data, err := library.ReadFile("library/" + name + ".yaml")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("name: x\ncluster: {members: 1}\nsteps:\n  - put: {via: n1, key: k, value: v, as: w}\n  - expect: {op: {w: ok}, within: 1s}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// A hang would stall the fuzzer silently; crash instead, so that it
		// keeps the input. (Wall time is fine here: it only guards the test.)
		watchdog := time.AfterFunc(20*time.Second, func() {
			os.WriteFile(filepath.Join(os.TempDir(), "raftsim-fuzz-hang.yaml"), data, 0o644)
			panic("FuzzRun: an input ran for more than 20s of wall time")
		})
		defer watchdog.Stop()
		s, err := Parse("fuzz.yaml", data)
		if err != nil {
			return
		}
		if !boundedForFuzzing(s) {
			return
		}
		r, err := NewRunner(s, RunOptions{Transcript: &bytes.Buffer{}})
		if err != nil {
			return
		}
		st, err := r.Advance(sim.Time(time.Minute))
		if st == Failed && err == nil {
			t.Fatal("failed without an error")
		}
		if st != Failed && r.World().Violation() != nil && !waitsForViolation(s) {
			t.Fatalf("a violation that did not fail the run: %v", r.World().Violation())
		}
	})
}

// boundedForFuzzing keeps fuzzed runs small: a few members, and ticks and
// timeouts of ordinary size, so that a minute of virtual time is quick.
func boundedForFuzzing(s *Scenario) bool {
	c := s.Config
	return len(c.Members) <= 7 && c.Tick >= 10*time.Millisecond && c.ElectionTicks <= 100 &&
		c.Network.Latency.Max <= time.Second
}

// waitsForViolation reports whether the scenario's last step waits for a
// safety violation (violation:), after which the run ends without failing.
func waitsForViolation(s *Scenario) bool {
	if len(s.Steps) == 0 {
		return false
	}
	for _, c := range s.Steps[len(s.Steps)-1].Conds {
		if c.Kind == CondViolation {
			return true
		}
	}
	return false
}
