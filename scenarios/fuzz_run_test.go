package scenarios

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/raftsim/raftsim/sim"
)

// FuzzRun parses arbitrary scenarios and runs the ones that parse, for at
// most ten seconds of virtual time and fuzzEvents events: whatever the file
// says, the runner and the simulator must end with a result or an error,
// never a panic or a hang.
//
// NB: it sustains its rate only with small seeds and cheap inputs. With
// the lessons as seeds (2 to 10 KB each, up to 120 ms a run) and a minute
// of virtual time, the fuzzer's workers spent every second minimizing the
// new inputs it found, each by thousands of runs (issue 24: 37 executions
// in a minute, then none). The seeds are now a few lines each, a run is
// bounded by its events as well as its time (so a 1µs tick is fuzzed too),
// and make fuzz bounds minimization (-fuzzminimizetime, in executions).
func FuzzRun(f *testing.F) {
	for _, seed := range fuzzRunSeeds {
		f.Add([]byte(seed))
	}
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
		var r *Runner
		tooLong := func() bool { return r.World().HistoryLen() > fuzzEvents }
		r, err = NewRunner(s, RunOptions{Transcript: io.Discard, Stop: tooLong})
		if err != nil {
			return
		}
		st, err := r.Advance(sim.Time(10 * time.Second))
		if st == Failed && err == nil {
			t.Fatal("failed without an error")
		}
		if st != Failed && r.World().Violation() != nil && !waitsForViolation(s) {
			t.Fatalf("a violation that did not fail the run: %v", r.World().Violation())
		}
	})
}

// fuzzEvents bounds the events of one fuzzed run.
const fuzzEvents = 20_000

// fuzzRunSeeds are small scenarios, each a few of the format's features.
var fuzzRunSeeds = []string{
	"name: x\ncluster: {members: 1}\nsteps:\n  - put: {via: n1, key: k, value: v, as: w}\n  - expect: {op: {w: ok}, within: 1s}\n",
	"name: x\ncluster: {members: 3}\nsteps:\n  - expect: {leader: any, within: 3s}\n  - let: {old: \"@leader\"}\n  - crash: $old\n  - expect: {leader: any, within: 3s}\n  - restart: $old\n",
	"name: x\ncluster: {members: 3, pre_vote: false, check_quorum: false}\nsteps:\n  - expect: {leader: any, within: 3s}\n  - let: {l: \"@leader\"}\n  - isolate: $l\n  - wait: 2s\n  - heal: all\n  - expect: {converged: true, within: 3s}\n",
	"name: x\ncluster: {members: 5, tick: 1ms, election_ticks: 5}\nnetwork: {latency: 1ms-3ms, loss: 5%, duplicate: 5%}\nsteps:\n  - partition: [[n1, n2], [n3, n4, n5]]\n  - wait: 500ms\n  - heal: all\n",
	"name: x\ncluster: {members: 3}\nclients: [{name: c, endpoints: [n1, n2, n3], timeout: 1s}]\nsteps:\n  - watch: {via: c, key: /a, prefix: true, as: ch}\n  - put: {via: c, key: /a/1, value: v, as: w}\n  - get: {via: n2, key: /a/1, consistency: serializable, as: r}\n  - expect: {events: {ch: \">=1\"}, within: 2s}\n",
	"name: x\ncluster: {members: 3, snapshot_every: 3}\nsteps:\n  - load: {for: 5s, rate: 50, keys: 3, mix: {put: 2, get: 1, txn: 1}}\n  - add_member: {name: n4, learner: true}\n  - wait: 2s\n  - promote: n4\n  - transfer_leader: {to: n4}\n  - remove_member: n1\n",
	"name: x\ncluster: {members: 3, read_only: lease}\nsteps:\n  - expect: {leader: any, within: 3s}\n  - stall: {node: \"@leader\", for: 2s}\n  - clock: {node: n2, rate: 1.5}\n  - lease_grant: {via: n1, ttl: 5, as: l}\n  - expect: {op: {l: ok}, within: 9s}\n  - put: {via: n1, key: k, value: v, lease: l}\n  - expect_always: {leaders: 1, for: 1s}\n",
}

// boundedForFuzzing keeps fuzzed runs small: a few members and clients.
// (Their time and events are bounded by the run itself.)
func boundedForFuzzing(s *Scenario) bool {
	return len(s.Config.Members) <= 7 && len(s.Config.Clients) <= 10
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
