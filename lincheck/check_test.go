package lincheck

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// h builds histories tersely: positions are given as the order of events.
func put(k, v string, call, ret uint64) Operation {
	return Operation{Kind: Put, Key: k, Value: v, Call: call, Return: ret, Name: fmt.Sprintf("put %s=%s", k, v)}
}

func lost(k, v string, call uint64) Operation {
	return Operation{Kind: Put, Key: k, Value: v, Call: call, Outcome: Indeterminate, Name: fmt.Sprintf("put %s=%s (timed out)", k, v)}
}

func del(k string, call, ret uint64) Operation {
	return Operation{Kind: Delete, Key: k, Call: call, Return: ret, Name: "delete " + k}
}

func get(k, v string, call, ret uint64) Operation {
	op := Operation{Kind: Get, Key: k, Call: call, Return: ret, Name: fmt.Sprintf("get %s→%s", k, v)}
	if v != "" {
		op.Result = []KV{{k, v}}
	}
	return op
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		ops  []Operation
		want Result
	}{
		{"read your write", []Operation{put("k", "1", 1, 2), get("k", "1", 3, 4)}, Linearizable},
		{"stale read after a finished write", []Operation{put("k", "1", 1, 2), get("k", "", 3, 4)}, Violation},
		// The case porcupine got wrong when given times only: the read
		// is sent at the very instant the write's ack arrives, but after
		// it in the simulation's order (positions 2, then 3).
		{"stale read sent the instant a write was acked", []Operation{put("k", "1", 1, 2), get("k", "", 3, 4)}, Violation},
		{"concurrent read may see the old value", []Operation{put("k", "1", 1, 4), get("k", "", 2, 3)}, Linearizable},
		{"concurrent read may see the new value", []Operation{put("k", "1", 1, 4), get("k", "1", 2, 3)}, Linearizable},
		{"a timed-out write may have happened", []Operation{lost("k", "1", 1), get("k", "1", 3, 4)}, Linearizable},
		{"a timed-out write may not have happened", []Operation{lost("k", "1", 1), get("k", "", 3, 4)}, Linearizable},
		{"a timed-out write cannot be undone", []Operation{lost("k", "1", 1), get("k", "1", 3, 4), get("k", "", 5, 6)}, Violation},
		{"a read cannot see a write sent after it returned", []Operation{get("k", "1", 1, 2), lost("k", "1", 3)}, Violation},
		{"value went back in time", []Operation{put("k", "1", 1, 2), put("k", "2", 3, 4), get("k", "2", 5, 6), get("k", "1", 7, 8)}, Violation},
		{"delete", []Operation{put("k", "1", 1, 2), del("k", 3, 4), get("k", "", 5, 6)}, Linearizable},
		{"prefix delete", []Operation{put("/a/x", "1", 1, 2), put("/a/y", "2", 3, 4),
			{Kind: Delete, Key: "/a/", End: "/a0", Call: 5, Return: 6}, get("/a/x", "", 7, 8)}, Linearizable},
		{"prefix get sees both keys", []Operation{put("/a/x", "1", 1, 2), put("/a/y", "2", 3, 4),
			{Kind: Get, Key: "/a/", End: "/a0", Call: 5, Return: 6, Result: []KV{{"/a/x", "1"}, {"/a/y", "2"}}}}, Linearizable},
		{"prefix get misses a key", []Operation{put("/a/x", "1", 1, 2), put("/a/y", "2", 3, 4),
			{Kind: Get, Key: "/a/", End: "/a0", Call: 5, Return: 6, Result: []KV{{"/a/y", "2"}}}}, Violation},
		{"prefix get returns a key outside its prefix", []Operation{put("/b", "1", 1, 2),
			{Kind: Get, Key: "/a/", End: "/a0", Call: 5, Return: 6, Result: []KV{{"/b", "1"}}}}, Violation},
		{"an empty prefix get of nothing", []Operation{{Kind: Get, Key: "/z/", End: "/z0", Call: 1, Return: 2}}, Linearizable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Check(tc.ops, Options{})
			if v.Result != tc.want {
				t.Fatalf("got %s, want %s", v, tc.want)
			}
			if v.Result == Violation && (v.Op < 0 || v.Reason == "" || v.Key == "") {
				t.Fatalf("a violation without its operation, key or reason: %+v", v)
			}
		})
	}
}

// TestViolationNamesTheOperation: the verdict says which read no order
// explains, on which key.
func TestViolationNamesTheOperation(t *testing.T) {
	ops := []Operation{put("a", "1", 1, 2), put("k", "1", 3, 4), get("k", "", 5, 6)}
	v := Check(ops, Options{})
	want := `NOT linearizable: on key "k", get k→: it saw the key absent, and no delete can have made it so`
	if v.String() != want || v.Op != 2 {
		t.Fatalf("got %q (op %d), want %q (op 2)", v, v.Op, want)
	}
}

// TestReductionsDropUnreadWrites: rule 1 leaves out timed-out writes whose
// values nobody read, and the verdict stands.
func TestReductionsDropUnreadWrites(t *testing.T) {
	var ops []Operation
	for i := range 30 {
		ops = append(ops, lost("k", fmt.Sprint("lost", i), uint64(i+1)))
	}
	ops = append(ops, put("k", "v", 100, 101), get("k", "v", 102, 103))
	v := Check(ops, Options{})
	if v.Result != Linearizable || v.Dropped != 30 {
		t.Fatalf("got %s with %d dropped, want linearizable with 30 dropped", v, v.Dropped)
	}
	// lost3 may take effect after v, but then v cannot come back.
	ops = append(ops, get("k", "lost3", 104, 105), get("k", "v", 106, 107))
	if v := Check(ops, Options{}); v.Result != Violation || v.Dropped != 29 {
		t.Fatalf("got %s with %d dropped, want a violation with 29 dropped", v, v.Dropped)
	}
}

// TestIdenticalTimedOutWrites: rule 4 keeps n writes of one value to n+1
// choices. Forty identical timed-out writes, each read at one point, with
// other writes between: without the rule the search would meet 2^40
// placed-sets.
func TestIdenticalTimedOutWrites(t *testing.T) {
	var ops []Operation
	for i := range 40 {
		ops = append(ops, lost("k", "same", uint64(i+1)))
	}
	pos := uint64(100)
	for i := range 40 {
		ops = append(ops, get("k", "same", pos, pos+1), put("k", fmt.Sprint(i), pos+2, pos+3))
		pos += 4
	}
	v := Check(ops, Options{Budget: 200_000})
	if v.Result != Linearizable {
		t.Fatalf("got %s after %d steps", v, v.Steps)
	}
	t.Logf("%d steps", v.Steps)
}

// TestBudget: a history whose search passes its budget says so, with the
// key, rather than running on; the same history with a larger budget is
// decided.
func TestBudget(t *testing.T) {
	// 24 concurrent writes nobody reads, and a write that a later read
	// sees: every order of the 24 before it is a configuration to keep.
	var ops []Operation
	for i := range 24 {
		ops = append(ops, put("k", fmt.Sprint(i), uint64(i+1), uint64(1000+i)))
	}
	ops = append(ops, put("k", "last", 500, 501), get("k", "last", 2000, 2001))
	// The register check decides it at once; the search is what has a
	// budget.
	if v := Check(ops, Options{Budget: 5000}); v.Result != Linearizable || v.Registers != 1 {
		t.Fatalf("the register check: got %s (%d parts decided by it), want linearizable", v, v.Registers)
	}
	v := Check(ops, Options{Budget: 5000, noRegister: true})
	if v.Result != Unknown || v.Key != "k" || !strings.Contains(v.Reason, "budget of 5000 steps") {
		t.Fatalf("got %s, want unknown on key k past a budget of 5000 steps", v)
	}
	if again := Check(ops, Options{Budget: 5000, noRegister: true}); again != v {
		t.Fatalf("the same check gave %+v, then %+v", v, again)
	}
}

// TestAgreesWithBruteForce checks the reductions and the search against
// the definition: every way to place the operations of a small random
// history (each optional write placed or not), in every order that
// respects real time. Many histories are made from a valid order and then
// perturbed, so both answers come up often.
func TestAgreesWithBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	counts := map[Result]int{}
	for iter := range 20000 {
		ops := randomHistory(rng, 2+rng.IntN(5), mild)
		want := bruteForce(ops)
		v := Check(ops, Options{})
		if v.Result == Unknown {
			t.Fatalf("history %d: unknown: %s", iter, v)
		}
		if (v.Result == Linearizable) != want {
			t.Fatalf("history %d: got %s, brute force says linearizable=%v:\n%s", iter, v, want, describe(ops))
		}
		counts[v.Result]++
	}
	t.Logf("%v", counts)
	if counts[Linearizable] < 2000 || counts[Violation] < 2000 {
		t.Fatalf("too few of one answer to mean much: %v", counts)
	}
}

func describe(ops []Operation) string {
	var b strings.Builder
	for _, op := range ops {
		ret := fmt.Sprint(op.Return)
		if op.Outcome == Indeterminate {
			ret = "?"
		}
		fmt.Fprintf(&b, "  %s [%d, %s] end=%q keysOnly=%v result=%v steps=%v\n", op.Name, op.Call, ret, op.End, op.KeysOnly, op.Result, op.Steps)
	}
	return b.String()
}

var (
	testKeys   = []string{"a", "ab", "b"}
	testValues = []string{"1", "2", "3"}
)

// randomStep makes a put, a delete or a get, over one key or a range:
// [a, b) holds a and ab, and ab on is ab and b.
func randomStep(rng *rand.Rand) Operation {
	op := Operation{Key: testKeys[rng.IntN(len(testKeys))]}
	ranged := func() {
		switch rng.IntN(3) {
		case 0:
			op.Key, op.End = "a", "b"
		case 1:
			op.Key, op.End = "ab", AllFrom
		}
	}
	switch x := rng.IntN(10); {
	case x < 4:
		op.Kind, op.Value = Put, testValues[rng.IntN(len(testValues))]
	case x < 5:
		op.Kind = Delete
		ranged()
	default:
		op.Kind = Get
		ranged()
		op.KeysOnly = rng.IntN(5) == 0
	}
	return op
}

// historyShape says what randomHistory makes.
type historyShape struct {
	values      []string // what puts write
	txnOneIn    int      // one operation in txnOneIn is a transaction
	lostOf3     int      // of three writes, how many time out
	changeOneIn int      // one read in changeOneIn has its result changed
}

// mild is the shape of TestAgreesWithBruteForce's histories.
var mild = historyShape{values: testValues, txnOneIn: 6, lostOf3: 1, changeOneIn: 4}

// randomHistory makes n operations of the given shape, transactions among
// them, placed at random instants, with results from a random valid
// order, sometimes changed.
func randomHistory(rng *rand.Rand, n int, shape historyShape) []Operation {
	step := func() Operation {
		op := randomStep(rng)
		if op.Kind == Put {
			op.Value = shape.values[rng.IntN(len(shape.values))]
		}
		return op
	}
	perm := rng.Perm(2 * n)
	ops := make([]Operation, n)
	for i := range ops {
		c, r := uint64(perm[2*i]), uint64(perm[2*i+1])
		if c > r {
			c, r = r, c
		}
		op := step()
		if rng.IntN(shape.txnOneIn) == 0 {
			op = Operation{Kind: Txn}
			for range 1 + rng.IntN(3) {
				op.Steps = append(op.Steps, step())
			}
		}
		op.Call, op.Return = c, r
		if (op.Kind == Put || op.Kind == Delete) && rng.IntN(3) < shape.lostOf3 {
			op.Outcome = Indeterminate
		}
		op.Name = fmt.Sprintf("%d:%v %s=%s", i, op.Kind, op.Key, op.Value)
		ops[i] = op
	}
	fillResults(rng, ops, shape)
	return ops
}

// fillResults gives the gets of ops their results: it runs a random order
// that respects real time (sorting by a random point in each interval) and
// reads from it; one get in shape.changeOneIn then has its result changed.
func fillResults(rng *rand.Rand, ops []Operation, shape historyShape) {
	var end uint64 // after every call and return
	for _, op := range ops {
		end = max(end, op.Call+1, op.Return+1)
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
				continue // it never took effect
			}
			ret = float64(end)
		}
		order = append(order, point{float64(op.Call) + rng.Float64()*(ret-float64(op.Call)), i})
	}
	slices.SortFunc(order, func(a, b point) int { return cmp.Compare(a.at, b.at) })
	state := map[string]string{}
	change := func(op *Operation) {
		if op.Kind != Get || rng.IntN(shape.changeOneIn) != 0 {
			return
		}
		switch rng.IntN(3) {
		case 0: // a key missed
			if len(op.Result) > 0 {
				op.Result = op.Result[1:]
			}
		case 1: // another value, or a key outside the range
			k := op.Key
			if op.End != "" {
				k = testKeys[rng.IntN(len(testKeys))]
			}
			op.Result = []KV{{k, shape.values[rng.IntN(len(shape.values))]}}
		default: // nothing
			op.Result = nil
		}
	}
	for _, p := range order {
		op := &ops[p.idx]
		if op.Kind != Txn {
			refApply(state, op, true)
			change(op)
			continue
		}
		for j := range op.Steps {
			refApply(state, &op.Steps[j], true)
			change(&op.Steps[j])
		}
	}
}

func inRange(k string, op *Operation) bool {
	switch op.End {
	case "":
		return k == op.Key
	case AllFrom:
		return k >= op.Key
	}
	return k >= op.Key && k < op.End
}

// refApply is the sequential store, by the definition: it applies op to
// state, and says whether a get sees what it returned (with fill, it
// records what it sees instead).
func refApply(state map[string]string, op *Operation, fill bool) bool {
	switch op.Kind {
	case Put:
		state[op.Key] = op.Value
	case Delete:
		for _, k := range testKeys {
			if inRange(k, op) {
				delete(state, k)
			}
		}
	case Get:
		var got []KV
		for _, k := range testKeys {
			if v, ok := state[k]; ok && inRange(k, op) {
				got = append(got, KV{k, v})
			}
		}
		if fill {
			op.Result = got
			return true
		}
		if op.KeysOnly {
			return slices.EqualFunc(got, op.Result, func(a, b KV) bool { return a.Key == b.Key })
		}
		return slices.Equal(got, op.Result)
	case Txn:
		for j := range op.Steps {
			if !refApply(state, &op.Steps[j], fill) {
				return false
			}
		}
	}
	return true
}

// bruteForce decides linearizability by the definition.
func bruteForce(ops []Operation) bool {
	n := len(ops)
	var optional []int
	for i, op := range ops {
		if op.Outcome == Indeterminate {
			optional = append(optional, i)
		}
	}
	for mask := 0; mask < 1<<len(optional); mask++ {
		var in []int
		for i := range ops {
			if j := slices.Index(optional, i); j >= 0 && mask&(1<<j) == 0 {
				continue
			}
			in = append(in, i)
		}
		ret := func(i int) uint64 {
			if ops[i].Outcome == Indeterminate {
				return uint64(4 * n)
			}
			return ops[i].Return
		}
		ok := false
		permute(in, 0, func(p []int) bool {
			for a := range p {
				for b := a + 1; b < len(p); b++ {
					if ret(p[b]) < ops[p[a]].Call {
						return false // p[b] returned before p[a] was called
					}
				}
			}
			state := map[string]string{}
			for _, i := range p {
				if !refApply(state, &ops[i], false) {
					return false
				}
			}
			ok = true
			return true
		})
		if ok {
			return true
		}
	}
	return false
}

// permute calls f with each permutation of p until f returns true.
func permute(p []int, k int, f func([]int) bool) bool {
	if k == len(p) {
		return f(p)
	}
	for i := k; i < len(p); i++ {
		p[k], p[i] = p[i], p[k]
		if permute(p, k+1, f) {
			p[k], p[i] = p[i], p[k]
			return true
		}
		p[k], p[i] = p[i], p[k]
	}
	return false
}
