package lincheck

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
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

// adversarialHistory is randomHistory's harsher sibling: more operations,
// fewer values (so that timed-out writes share effects and rule 2 and
// rule 4 come into play), most writes timed out, and reads whose results
// are taken from a valid order and then often replaced by a value only a
// timed-out write wrote.
func adversarialHistory(rng *rand.Rand, n int) []Operation {
	values := []string{"1", "2"}
	perm := rng.Perm(2 * n)
	ops := make([]Operation, n)
	for i := range ops {
		c, r := uint64(perm[2*i]+1), uint64(perm[2*i+1]+1)
		if c > r {
			c, r = r, c
		}
		op := randomStep(rng)
		if op.Kind == Put {
			op.Value = values[rng.IntN(len(values))]
		}
		if rng.IntN(8) == 0 {
			op = Operation{Kind: Txn}
			for range 1 + rng.IntN(3) {
				s := randomStep(rng)
				if s.Kind == Put {
					s.Value = values[rng.IntN(len(values))]
				}
				op.Steps = append(op.Steps, s)
			}
		}
		op.Call, op.Return = c, r
		if (op.Kind == Put || op.Kind == Delete) && rng.IntN(3) != 0 {
			op.Outcome = Indeterminate
		}
		op.Name = fmt.Sprintf("%d:%v %s=%s", i, op.Kind, op.Key, op.Value)
		ops[i] = op
	}
	type point struct {
		at  float64
		idx int
	}
	var order []point
	for i, op := range ops {
		ret := float64(op.Return)
		if op.Outcome == Indeterminate {
			if rng.IntN(3) == 0 {
				continue
			}
			ret = float64(2*n + 1)
		}
		order = append(order, point{float64(op.Call) + rng.Float64()*(ret-float64(op.Call)), i})
	}
	slices.SortFunc(order, func(a, b point) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return 0
	})
	state := map[string]string{}
	perturb := func(op *Operation) {
		if op.Kind != Get || rng.IntN(3) != 0 {
			return
		}
		switch rng.IntN(3) {
		case 0:
			if len(op.Result) > 0 {
				op.Result = op.Result[1:]
			}
		case 1:
			k := op.Key
			if op.End != "" {
				k = testKeys[rng.IntN(len(testKeys))]
				if !inRange(k, op) {
					k = op.Key
				}
			}
			op.Result = []KV{{k, values[rng.IntN(len(values))]}}
		default:
			op.Result = nil
		}
	}
	for _, p := range order {
		op := &ops[p.idx]
		if op.Kind != Txn {
			refApply(state, op, true)
			perturb(op)
			continue
		}
		for j := range op.Steps {
			refApply(state, &op.Steps[j], true)
			perturb(&op.Steps[j])
		}
	}
	return ops
}

// TestAdversarialAgreesWithBruteForce is TestAgreesWithBruteForce on
// adversarialHistory's histories, up to ten operations: it meets rule 4's
// twins (timed-out writes of the same value) some sixty times as often,
// and rule 2 six times as often. (200,000 such histories, up to twelve
// operations, agreed when it was written.)
func TestAdversarialAgreesWithBruteForce(t *testing.T) {
	iters := 15000
	if testing.Short() {
		iters = 1500
	}
	rng := rand.New(rand.NewPCG(7, 11))
	counts := map[Result]int{}
	dropped := 0
	for iter := range iters {
		ops := adversarialHistory(rng, 3+rng.IntN(8))
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
