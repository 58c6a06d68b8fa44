package lincheck

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
)

// dfsBruteForce decides linearizability by the definition, as bruteForce
// does, but by a depth-first search over the orders real time allows
// (an operation may come next only if every required operation that
// returned before its call is placed), so that it reaches histories of a
// dozen operations. Optional writes may be left out.
func dfsBruteForce(ops []Operation) bool {
	n := len(ops)
	seen := map[string]bool{}
	var rec func(placed uint32, state map[string]string) bool
	rec = func(placed uint32, state map[string]string) bool {
		done := true
		for i, op := range ops {
			if placed&(1<<i) == 0 && op.Outcome == Done {
				done = false
			}
		}
		if done {
			return true
		}
		key := fmt.Sprint(placed, state)
		if seen[key] {
			return false
		}
		seen[key] = true
		for i := range n {
			if placed&(1<<i) != 0 {
				continue
			}
			ok := true
			for j, b := range ops {
				if j != i && placed&(1<<j) == 0 && b.Outcome == Done && b.Return < ops[i].Call {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			next := maps.Clone(state)
			if !refApply(next, &ops[i], false) {
				continue
			}
			if rec(placed|1<<i, next) {
				return true
			}
		}
		return false
	}
	return rec(0, map[string]string{})
}

// harsh histories have few values (so that timed-out writes share
// effects and rules 2 and 4 come into play), mostly timed-out writes, and
// many reads whose results were changed.
var harsh = historyShape{values: []string{"1", "2"}, txnOneIn: 8, lostOf3: 2, changeOneIn: 3}

// TestAdversarialAgreesWithBruteForce is TestAgreesWithBruteForce on
// harsh histories of up to ten operations. It meets rule 4's twins
// (timed-out writes with the same effects) some sixty times as often, and
// rule 2 six times as often; it fails, where the mild test passes, when
// rule 4 pairs writes by their key alone. (200,000 such histories, up to
// twelve operations, agreed when it was written.)
func TestAdversarialAgreesWithBruteForce(t *testing.T) {
	iters := 15000
	if testing.Short() {
		iters = 1500
	}
	rng := rand.New(rand.NewPCG(7, 11))
	counts := map[Result]int{}
	dropped := 0
	for iter := range iters {
		ops := randomHistory(rng, 3+rng.IntN(8), harsh)
		want := dfsBruteForce(ops)
		v := Check(ops, Options{})
		if v.Result == Unknown {
			t.Fatalf("history %d: unknown: %s", iter, v)
		}
		if (v.Result == Linearizable) != want {
			t.Fatalf("history %d: got %s, brute force says linearizable=%v:\n%s", iter, v, want, describe(ops))
		}
		counts[v.Result]++
		dropped += v.Dropped
	}
	t.Logf("%v, %d dropped", counts, dropped)
	if counts[Linearizable] < iters/5 || counts[Violation] < iters/5 {
		t.Fatalf("too few of one answer to mean much: %v", counts)
	}
}
