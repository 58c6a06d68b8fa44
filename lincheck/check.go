package lincheck

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Kind is what an operation does.
type Kind uint8

// The kinds of operation.
const (
	Put    Kind = iota + 1 // sets Key to Value
	Delete                 // removes the keys in its range
	Get                    // reads the keys in its range
	Txn                    // a transaction: Steps, in order, as one
)

// AllFrom, as an End, makes a range of every key from Key on (etcd's
// range end "\x00").
const AllFrom = "\x00"

// Outcome says what the client knows of an operation.
type Outcome uint8

// The outcomes.
const (
	// Done: the operation returned; it took effect (a write) or answered
	// (a read) at some instant between its Call and its Return.
	Done Outcome = iota
	// Indeterminate: a write whose client stopped waiting (a timeout, a
	// cancellation, the end of the run). It may take effect at any instant
	// after its Call, or never; Return is not used.
	Indeterminate
)

// KV is one key and its value, as a Get returns them.
type KV struct{ Key, Value string }

// Operation is one client operation of the history.
type Operation struct {
	Kind  Kind
	Key   string
	Value string // Put
	// End makes a Get or a Delete a range: "" is Key alone, AllFrom every
	// key from Key on, anything else the keys in [Key, End).
	End string
	// KeysOnly makes a Get compare the keys it returned, not their values.
	KeysOnly bool
	// Steps are what a Txn did: the Puts, Deletes and Gets (with their
	// Results) of the branch it took, in order. Only a Txn that returned
	// can be checked: one of unknown outcome may have taken either branch.
	Steps []Operation

	// Call and Return are the positions of the call and the return in the
	// order in which everything happened: an operation whose Return is
	// below another's Call came before it. Positions are distinct.
	Call, Return uint64
	Outcome      Outcome

	// Result is what a Get returned, in key order: the key and its value,
	// or nothing for a key that does not exist.
	Result []KV

	// Name describes the operation in a verdict, like
	// `get "k" by apiserver-1 [r2]`.
	Name string
}

// Result is a verdict's answer.
type Result uint8

// The answers.
const (
	Linearizable Result = iota
	Violation           // no order of the operations explains what the clients saw
	Unknown             // the search ran past its budget: no answer either way
)

var resultNames = [...]string{"linearizable", "NOT linearizable", "unknown"}

func (r Result) String() string {
	if int(r) < len(resultNames) {
		return resultNames[r]
	}
	return "result(" + strconv.Itoa(int(r)) + ")"
}

// Verdict is the answer for a whole history.
type Verdict struct {
	Result Result
	// Key is, for a Violation or an Unknown, the key where it was found
	// (the first key, in order, of a set of keys checked together).
	Key string
	// Reason says, for a Violation, which operation no order explains,
	// and for an Unknown, why the search stopped.
	Reason string
	// Op is, for a Violation, the index of the operation no order
	// explains; otherwise -1.
	Op int
	// Steps is how many search steps the check took.
	Steps int
	// Dropped counts the writes of unknown outcome that the reductions
	// showed can be left out without changing the verdict.
	Dropped int
	// Parts counts the sets of keys checked apart, and Registers those of
	// them decided by the register check (register.go) rather than the
	// search.
	Parts, Registers int
}

// Options bound a check.
type Options struct {
	// Budget bounds the search steps of the whole check; 0 means
	// DefaultBudget.
	Budget int
	// PartBudget bounds the steps spent on one set of keys checked
	// together; 0 means DefaultPartBudget.
	PartBudget int
	// Initial is what the store holds before the first operation, by key
	// (a store restored from a snapshot); a key it does not name starts
	// absent. nil starts with every key absent.
	Initial map[string]string

	noRegister bool // the tests' way to have every part searched
}

// The default budgets: a few seconds of search. A history from a
// simulated etcd, reduced, takes a few steps per operation.
const (
	DefaultBudget     = 50_000_000
	DefaultPartBudget = 20_000_000
)

// History is a history to check: Len operations, the i-th of which Op
// returns. Check reads each a few times and keeps none, so a caller with a
// long history need not hold it twice.
type History interface {
	Len() int
	Op(i int) *Operation
}

// Ops is a History held in a slice.
type Ops []Operation

// Len returns the number of operations.
func (o Ops) Len() int { return len(o) }

// Op returns the i-th operation.
func (o Ops) Op(i int) *Operation { return &o[i] }

// Check decides whether ops are linearizable. The answer depends only on
// ops and opts: never on the machine or the wall clock.
func Check(ops []Operation, opts Options) Verdict { return CheckHistory(Ops(ops), opts) }

// CheckHistory is Check on a History.
func CheckHistory(h History, opts Options) Verdict {
	v, _ := check(h, opts, nil, false)
	return v
}

// check is CheckHistory with the values each key may start with (from;
// a key it does not name starts absent). With final it also returns, for
// each key that is a part of its own, the values it may end with.
func check(h History, opts Options, from map[string][]string, final bool) (Verdict, map[string][]string) {
	if opts.Budget <= 0 {
		opts.Budget = DefaultBudget
	}
	if opts.PartBudget <= 0 {
		opts.PartBudget = DefaultPartBudget
	}
	if len(opts.Initial) > 0 {
		from = withInitial(from, opts.Initial)
	}
	v := Verdict{Op: -1}
	var unknown *Verdict
	var finals map[string][]string
	left := opts.Budget
	ps := partition(h, slices.Collect(maps.Keys(from)))
	for pi := range ps.keysOf {
		if len(ps.opsOf[pi]) == 0 {
			continue
		}
		p := ps.build(pi, from)
		p.wantFinal = final && len(p.keys) == 1
		v.Parts++
		v.Dropped += p.reduce()
		res, ok := searchResult{}, false
		if p.tooManyStarts {
			res, ok = searchResult{result: Unknown, reason: fmt.Sprintf("its keys may start in more than %d states", maxStartStates)}, true
		} else if !opts.noRegister {
			res, ok = p.registerCheck()
		}
		if ok && !p.tooManyStarts {
			v.Registers++
		} else if !ok {
			res = p.search(min(left, opts.PartBudget))
		}
		v.Steps += res.steps
		left -= res.steps
		switch res.result {
		case Violation:
			v.Result, v.Key, v.Op = Violation, p.keys[0], p.ops[res.op].idx
			name := h.Op(v.Op).Name
			if name == "" {
				name = "operation " + strconv.Itoa(v.Op)
			}
			v.Reason = name + ": " + res.reason
			return v, nil
		case Unknown:
			if unknown == nil {
				u := Verdict{Result: Unknown, Key: p.keys[0], Reason: res.reason}
				unknown = &u
			}
		case Linearizable:
			if p.wantFinal {
				if finals == nil {
					finals = map[string][]string{}
				}
				finals[p.keys[0]] = p.valuesOf(res.final)
			}
		}
	}
	if unknown != nil {
		v.Result, v.Key, v.Reason = Unknown, unknown.Key, unknown.Reason
	}
	return v, finals
}

// withInitial returns from with each key of initial that from does not
// name starting at its initial value.
func withInitial(from map[string][]string, initial map[string]string) map[string][]string {
	out := make(map[string][]string, len(from)+len(initial))
	maps.Copy(out, from)
	for k, v := range initial {
		if _, ok := out[k]; !ok {
			out[k] = []string{v}
		}
	}
	return out
}

// String describes the verdict in a line.
func (v Verdict) String() string {
	switch v.Result {
	case Linearizable:
		return "linearizable"
	case Violation:
		return fmt.Sprintf("NOT linearizable: on key %q, %s", v.Key, v.Reason)
	}
	return fmt.Sprintf("unknown: on key %q, %s", v.Key, v.Reason)
}
