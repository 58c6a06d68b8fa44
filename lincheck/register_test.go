package lincheck

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// registerShape says what randomRegister makes: one key, puts of distinct
// values, deletes and gets, some writes timed out, some results changed.
type registerShape struct {
	ops           int // at most
	putOf10       int // of ten operations, how many are puts
	deleteOf10    int // and deletes (the rest are gets)
	lostOf3       int // of three writes, how many time out
	changeOneIn   int // one get in changeOneIn has its result changed
	spreadPercent int // how far apart calls and returns may lie, in percent of the history
	// deleteSpreadPercent is spreadPercent for deletes, if not 0.
	deleteSpreadPercent int
}

var (
	// smallRegisters have few operations, so that the brute force reaches
	// them all.
	smallRegisters = registerShape{ops: 9, putOf10: 4, deleteOf10: 2, lostOf3: 1, changeOneIn: 2, spreadPercent: 50}
	// deleteHeavy histories have as many deletes as puts, most writes of
	// unknown outcome, and short operations: reads of absence then depend
	// on which delete they saw.
	deleteHeavy = registerShape{ops: 11, putOf10: 3, deleteOf10: 3, lostOf3: 1, changeOneIn: 2, spreadPercent: 25}
	// longDeletes have deletes that overlap much else and short puts and
	// gets: which delete a read of absence is given then matters.
	longDeletes = registerShape{ops: 12, putOf10: 3, deleteOf10: 3, lostOf3: 0, changeOneIn: 3, spreadPercent: 8, deleteSpreadPercent: 100}
	// longer histories, up to 16 operations, where the brute force
	// still answers in a few milliseconds.
	longer = registerShape{ops: 16, putOf10: 4, deleteOf10: 2, lostOf3: 1, changeOneIn: 3, spreadPercent: 20}
)

// randomRegister makes a history of one key "a" (a key the reference
// store of check_test.go knows): its results come from a random valid
// order, and a few are then changed.
func randomRegister(rng *rand.Rand, shape registerShape) []Operation {
	n := 2 + rng.IntN(shape.ops-1)
	ops := make([]Operation, n)
	span := 4 * n
	for i := range ops {
		op := Operation{Key: "a"}
		spread := shape.spreadPercent
		switch x := rng.IntN(10); {
		case x < shape.putOf10:
			op.Kind, op.Value = Put, fmt.Sprint("v", i)
		case x < shape.putOf10+shape.deleteOf10:
			op.Kind = Delete
			if shape.deleteSpreadPercent > 0 {
				spread = shape.deleteSpreadPercent
			}
		default:
			op.Kind = Get
		}
		c := rng.IntN(span)
		op.Call, op.Return = uint64(c), uint64(c+1+rng.IntN(max(1, span*spread/100)))
		if op.Kind != Get && rng.IntN(3) < shape.lostOf3 {
			op.Outcome = Indeterminate
		}
		op.Name = fmt.Sprintf("%d:%v %s", i, op.Kind, op.Value)
		ops[i] = op
	}
	distinctPositions(ops)
	// Results from a random order that respects real time.
	type point struct {
		at  float64
		idx int
	}
	var order []point
	end := float64(2 * len(ops))
	for i, op := range ops {
		ret := float64(op.Return)
		if op.Outcome == Indeterminate {
			if rng.IntN(3) == 0 {
				continue
			}
			ret = end
		}
		order = append(order, point{float64(op.Call) + rng.Float64()*(ret-float64(op.Call)), i})
	}
	slices.SortFunc(order, func(a, b point) int { return cmp.Compare(a.at, b.at) })
	state := map[string]string{}
	for _, p := range order {
		op := &ops[p.idx]
		refApply(state, op, true)
		if op.Kind != Get || rng.IntN(shape.changeOneIn) != 0 {
			continue
		}
		switch x := rng.IntN(10); {
		case x < 6: // the value of another put
			j := rng.IntN(len(ops))
			if ops[j].Kind == Put {
				op.Result = []KV{{"a", ops[j].Value}}
			}
		case x < 9: // absent
			op.Result = nil
		default: // a value never written
			op.Result = []KV{{"a", "never"}}
		}
	}
	return ops
}

// distinctPositions renumbers the calls and returns 0, 1, 2... in their
// order, keeping each call before its return.
func distinctPositions(ops []Operation) {
	type ev struct {
		at     uint64
		ret    bool
		op     int
		tiebrk int
	}
	var evs []ev
	for i, op := range ops {
		evs = append(evs, ev{op.Call, false, i, 2 * i}, ev{op.Return, true, i, 2*i + 1})
	}
	slices.SortFunc(evs, func(a, b ev) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.tiebrk, b.tiebrk)) })
	for p, e := range evs {
		if e.ret {
			ops[e.op].Return = uint64(p)
		} else {
			ops[e.op].Call = uint64(p)
		}
	}
}

// porcupineVerdict asks porcupine, with writes of unknown outcome open to
// the end (porcupine places every operation; one placed after everything
// else is one that never took effect). It reports false, true, or unknown
// (ok false) if porcupine gave up within the timeout.
func porcupineVerdict(ops []Operation, timeout time.Duration) (linearizable, ok bool) {
	const absent = "\x00absent"
	model := porcupine.Model{
		Init: func() any { return absent },
		Step: func(state, input, _ any) (bool, any) {
			in := input.(Operation)
			switch in.Kind {
			case Put:
				return true, in.Value
			case Delete:
				return true, absent
			}
			if len(in.Result) == 0 {
				return state == absent, state
			}
			return state == in.Result[0].Value, state
		},
		Equal: func(a, b any) bool { return a == b },
	}
	var hist []porcupine.Operation
	for _, op := range ops {
		ret := int64(op.Return)
		if op.Outcome == Indeterminate {
			ret = math.MaxInt64
		}
		hist = append(hist, porcupine.Operation{Input: op, Call: int64(op.Call), Return: ret})
	}
	res := porcupine.CheckOperationsTimeout(model, hist, timeout)
	return res == porcupine.Ok, res != porcupine.Unknown
}

// registerItersTimes multiplies the cross-check's histories: raise it by
// hand for a long campaign (25 gave 700,000 histories, all agreeing, in
// under a minute).
var registerItersTimes = 1

// TestRegisterAgreesWithBruteForce is the register check's cross-check:
// on many thousands of random one-key histories of distinct values, linearizable
// and not, it agrees with the definition (every order, dfsBruteForce),
// with the search, and with porcupine.
func TestRegisterAgreesWithBruteForce(t *testing.T) {
	for _, tc := range []struct {
		name  string
		shape registerShape
		iters int
	}{
		{"small", smallRegisters, 12000},
		{"delete-heavy", deleteHeavy, 8000},
		{"long-deletes", longDeletes, 8000},
		{"longer", longer, 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			iters := tc.iters * registerItersTimes
			if testing.Short() {
				iters /= 10
			}
			rng := rand.New(rand.NewPCG(23, uint64(len(tc.name))))
			counts := map[Result]int{}
			porcupineAnswered := 0
			for iter := range iters {
				ops := randomRegister(rng, tc.shape)
				want := dfsBruteForce(ops)
				v := Check(ops, Options{})
				if v.Registers != v.Parts {
					t.Fatalf("history %d: %d of %d parts decided by the register check:\n%s", iter, v.Registers, v.Parts, describe(ops))
				}
				if (v.Result == Linearizable) != want || v.Result == Unknown {
					t.Fatalf("history %d: got %s, the definition says linearizable=%v:\n%s", iter, v, want, describe(ops))
				}
				if s := Check(ops, Options{noRegister: true}); s.Result != v.Result {
					t.Fatalf("history %d: the register check says %s, the search %s:\n%s", iter, v, s, describe(ops))
				}
				if lin, ok := porcupineVerdict(ops, time.Second); ok {
					porcupineAnswered++
					if lin != want {
						t.Fatalf("history %d: porcupine says linearizable=%v, the definition %v:\n%s", iter, lin, want, describe(ops))
					}
				}
				counts[v.Result]++
			}
			t.Logf("%v; porcupine answered %d", counts, porcupineAnswered)
			if counts[Linearizable] < iters/8 || counts[Violation] < iters/8 {
				t.Fatalf("too few of one answer to mean much: %v", counts)
			}
		})
	}
}
