package lincheck

import (
	"cmp"
	"maps"
	"slices"
	"sort"
	"strings"
)

// part is a set of keys that no operation links to a key outside it, with
// the operations on them. Linearizability is compositional: a history is
// linearizable if and only if the history of each part is (Herlihy and
// Wing), so parts are checked apart and the cost follows the busiest one.
// A key is a part of its own unless a range or a transaction covers it
// with others.
type part struct {
	keys []string // in order
	ops  []pop    // in call order
	// from are the states the part may start in (each a value of every
	// key, 0 for absent), nil for one: every key absent. A stream's later
	// windows start where the earlier ones may have left the keys.
	from [][]int32
	// values are the values by their ids (values[0] is unused: absent).
	values []string
	// wantFinal asks the check for the states the part may end in.
	wantFinal bool
	// tooManyStarts: its keys may start in more than maxStartStates
	// states; the check answers unknown.
	tooManyStarts bool
}

// startsWith reports whether some state the part may start in has key k
// hold value v.
func (p *part) startsWith(k, v int32) bool {
	if p.from == nil {
		return v == 0
	}
	for _, st := range p.from {
		if st[k] == v {
			return true
		}
	}
	return false
}

// valuesOf returns the values of a one-key part's states, sorted, with
// Absent for absence.
func (p *part) valuesOf(states [][]int32) []string {
	out := make([]string, 0, len(states))
	for _, st := range states {
		if st[0] == 0 {
			out = append(out, Absent)
		} else {
			out = append(out, p.values[st[0]])
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// intern returns the id of a value, giving it one if it has none.
func (p *part) intern(ids map[string]int32, v string) int32 {
	id, ok := ids[v]
	if !ok {
		id = int32(len(p.values))
		ids[v] = id
		p.values = append(p.values, v)
	}
	return id
}

// keyValue is a key of a part (its index in part.keys) and a value (an
// index in the part's values; 0 means the key does not exist).
type keyValue struct{ key, val int32 }

// The values a read may see besides the values written.
const (
	impossible = -1 // what no state shows: a key outside the range a read asked for
	present    = -2 // any value: a keys-only read saw the key
)

// act is one step of an operation: a write or a read of one key.
type act struct {
	keyValue
	write bool
}

// pop is an operation as a part sees it.
type pop struct {
	idx       int // in the caller's slice
	call, ret uint64
	// required: it must be placed (a returned operation, or a write of
	// unknown outcome that a reduction showed must have taken effect).
	// Otherwise it is a write of unknown outcome: placed before ret, or
	// never.
	required bool
	dropped  bool  // left out by a reduction
	acts     []act // what it does, in order
	writes   []keyValue
	reads    []keyValue
	// twin is, for an optional write, the earlier optional write with the
	// very same effects and return, or -1 (see search.go).
	twin int
}

// sees reports whether a read of kv holds in a state where the key has
// value v.
func (kv keyValue) sees(v int32) bool {
	if kv.val == present {
		return v != 0
	}
	return v == kv.val
}

// parts are the history's parts, found before any is built: the keys of
// each, and which operations are its. Each part's operations are built
// only when it is checked, so the check's memory follows the largest part.
type parts struct {
	h      History
	keys   []string // every key, in order
	local  []int32  // key → its index in its part
	partOf []int32  // key → its part
	anchor []int32  // operation → a key of it, or -1
	keysOf [][]string
	opsOf  [][]int32
}

// partition finds the parts of h, in the order of their first keys. known
// are keys to count even if no operation names them (keys a stream's
// earlier windows left holding a value, which a range may read).
func partition(h History, known []string) *parts {
	n := h.Len()
	// Every key an operation names or a read returned.
	var keys []string
	eachStep(h, func(_ int, op *Operation) {
		if op.End == "" {
			keys = append(keys, op.Key)
		}
		for _, kv := range op.Result {
			keys = append(keys, kv.Key)
		}
	})
	keys = append(keys, known...)
	slices.Sort(keys)
	keys = slices.Compact(keys)

	// A range links the keys in it, which are consecutive in key order:
	// linked[i] joins keys i and i+1. A difference array marks them in
	// one pass whatever the ranges' sizes. A transaction links every key
	// it touches.
	uf := newUnionFind(len(keys))
	diff := make([]int, len(keys)+1)
	anchor := make([]int32, n) // a key of each operation, or -1
	for i := range anchor {
		anchor[i] = -1
	}
	link := func(i, k int) {
		if anchor[i] < 0 {
			anchor[i] = int32(k)
		} else {
			uf.union(int(anchor[i]), k)
		}
	}
	eachStep(h, func(i int, op *Operation) {
		lo, hi := keyRange(keys, op)
		if hi-lo >= 2 {
			diff[lo]++
			diff[hi-1]--
		}
		if lo < hi {
			link(i, lo)
		}
		// A key a read returned outside its range joins its part,
		// where it is a read no state explains.
		for _, kv := range op.Result {
			link(i, index(keys, kv.Key))
		}
	})
	for i, run := 0, 0; i+1 < len(keys); i++ {
		run += diff[i]
		if run > 0 {
			uf.union(i, i+1)
		}
	}

	// The parts, by their first key.
	ps := &parts{h: h, keys: keys, local: make([]int32, len(keys)), partOf: make([]int32, len(keys)), anchor: anchor}
	roots := map[int]int32{}
	for i, k := range keys {
		r := uf.find(i)
		pi, ok := roots[r]
		if !ok {
			pi = int32(len(ps.keysOf))
			roots[r] = pi
			ps.keysOf = append(ps.keysOf, nil)
		}
		ps.partOf[i] = pi
		ps.local[i] = int32(len(ps.keysOf[pi]))
		ps.keysOf[pi] = append(ps.keysOf[pi], k)
	}
	ps.opsOf = make([][]int32, len(ps.keysOf))
	for i := range n {
		op := h.Op(i)
		if op.Outcome != Done && op.Kind != Put && op.Kind != Delete {
			continue // a read that did not return says nothing, nor does a transaction of unknown branch
		}
		if anchor[i] < 0 {
			continue // it covers no key: a no-op, or an empty read that always holds
		}
		pi := ps.partOf[anchor[i]]
		ps.opsOf[pi] = append(ps.opsOf[pi], int32(i))
	}
	return ps
}

// build makes the part pi, its operations in call order. from, if not
// nil, gives the values each key may start with (a key it does not name
// starts absent; Absent stands for absence).
func (ps *parts) build(pi int, from map[string][]string) *part {
	p := &part{keys: ps.keysOf[pi], ops: make([]pop, 0, len(ps.opsOf[pi])), values: []string{""}}
	values := map[string]int32{}
	intern := func(v string) int32 { return p.intern(values, v) }
	if from != nil {
		p.from = startStates(p.keys, from, intern)
		p.tooManyStarts = p.from == nil
	}
	for _, i := range ps.opsOf[pi] {
		op := ps.h.Op(int(i))
		o := pop{idx: int(i), call: op.Call, ret: op.Return, required: op.Outcome == Done, twin: -1}
		if op.Kind == Txn {
			for j := range op.Steps {
				o.acts = appendActs(o.acts, &op.Steps[j], ps.keys, ps.local, intern)
			}
		} else {
			o.acts = appendActs(o.acts, op, ps.keys, ps.local, intern)
		}
		o.acts = slices.Clip(o.acts)
		// Its reads of keys it has not written yet see what others
		// wrote; the others see what it wrote last.
		if len(o.acts) == 1 {
			if a := o.acts[0]; a.write {
				o.writes = []keyValue{a.keyValue}
			} else {
				o.reads = []keyValue{a.keyValue}
			}
		} else {
			final := map[int32]int32{}
			for _, a := range o.acts {
				if _, mine := final[a.key]; a.write {
					final[a.key] = a.val
				} else if !mine {
					o.reads = append(o.reads, a.keyValue)
				}
			}
			for _, k := range slices.Sorted(maps.Keys(final)) {
				o.writes = append(o.writes, keyValue{k, final[k]})
			}
		}
		p.ops = append(p.ops, o)
	}
	slices.SortStableFunc(p.ops, func(a, b pop) int { return cmp.Compare(a.call, b.call) })
	return p
}

// Absent stands for an absent key among the values a stream's key may
// hold.
const Absent = "\x00absent"

// maxStartStates bounds the states a part may start in: each is a
// starting configuration of the search.
const maxStartStates = 1 << 12

// startStates returns every combination of the keys' starting values, or
// nil if there are more than maxStartStates.
func startStates(keys []string, from map[string][]string, intern func(string) int32) [][]int32 {
	states := [][]int32{make([]int32, len(keys))}
	for k, key := range keys {
		vals, ok := from[key]
		if !ok {
			continue // absent, as every state has it
		}
		if len(states)*len(vals) > maxStartStates {
			return nil
		}
		var next [][]int32
		for _, st := range states {
			for _, v := range vals {
				id := int32(0)
				if v != Absent {
					id = intern(v)
				}
				x := slices.Clone(st)
				x[k] = id
				next = append(next, x)
			}
		}
		states = next
	}
	return states
}

// appendActs appends what one Put, Delete or Get does.
func appendActs(acts []act, op *Operation, keys []string, local []int32, intern func(string) int32) []act {
	lo, hi := keyRange(keys, op)
	switch op.Kind {
	case Put:
		return append(acts, act{keyValue{local[lo], intern(op.Value)}, true})
	case Delete:
		for k := lo; k < hi; k++ {
			acts = append(acts, act{keyValue{local[k], 0}, true})
		}
	case Get:
		got := op.Result
		for k := lo; k < hi; k++ {
			kv := keyValue{local[k], 0}
			if j, ok := slices.BinarySearchFunc(got, keys[k], func(x KV, key string) int { return strings.Compare(x.Key, key) }); ok {
				kv.val = present
				if !op.KeysOnly {
					kv.val = intern(got[j].Value)
				}
			}
			acts = append(acts, act{kv, false})
		}
		for _, r := range got {
			if k := index(keys, r.Key); k < lo || k >= hi {
				acts = append(acts, act{keyValue{local[k], impossible}, false})
			}
		}
	}
	return acts
}

// eachStep calls f with each Put, Delete and Get of h, the steps of a
// transaction included, and the index of the operation.
func eachStep(h History, f func(int, *Operation)) {
	for i := range h.Len() {
		op := h.Op(i)
		if op.Kind != Txn {
			f(i, op)
			continue
		}
		for j := range op.Steps {
			f(i, &op.Steps[j])
		}
	}
}

// keyRange returns the keys an operation covers: keys[lo:hi].
func keyRange(keys []string, op *Operation) (int, int) {
	lo := sort.SearchStrings(keys, op.Key)
	switch {
	case op.Kind == Put || op.End == "":
		return lo, lo + 1
	case op.End == AllFrom:
		return lo, len(keys)
	}
	return lo, max(lo, sort.SearchStrings(keys, op.End))
}

// index returns the position of a key known to be in keys.
func index(keys []string, k string) int { return sort.SearchStrings(keys, k) }

type unionFind struct{ parent []int }

func newUnionFind(n int) *unionFind {
	u := &unionFind{parent: make([]int, n)}
	for i := range u.parent {
		u.parent[i] = i
	}
	return u
}

func (u *unionFind) find(i int) int {
	for u.parent[i] != i {
		u.parent[i] = u.parent[u.parent[i]]
		i = u.parent[i]
	}
	return i
}

// union joins the sets of a and b; the smaller root wins, so that the
// result does not depend on the order of the calls.
func (u *unionFind) union(a, b int) {
	ra, rb := u.find(a), u.find(b)
	if ra < rb {
		u.parent[rb] = ra
	} else if rb < ra {
		u.parent[ra] = rb
	}
}
