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

// partition splits ops into parts, in the order of their first keys.
func partition(ops []Operation) []*part {
	// Every key an operation names or a read returned.
	var keys []string
	eachStep(ops, func(_ int, op *Operation) {
		if op.End == "" {
			keys = append(keys, op.Key)
		}
		for _, kv := range op.Result {
			keys = append(keys, kv.Key)
		}
	})
	slices.Sort(keys)
	keys = slices.Compact(keys)

	// A range links the keys in it, which are consecutive in key order:
	// linked[i] joins keys i and i+1. A difference array marks them in
	// one pass whatever the ranges' sizes. A transaction links every key
	// it touches.
	uf := newUnionFind(len(keys))
	diff := make([]int, len(keys)+1)
	anchor := make([]int, len(ops)) // a key of each operation, or -1
	for i := range anchor {
		anchor[i] = -1
	}
	link := func(i, k int) {
		if anchor[i] < 0 {
			anchor[i] = k
		} else {
			uf.union(anchor[i], k)
		}
	}
	eachStep(ops, func(i int, op *Operation) {
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
	partOf := make([]int, len(keys))  // key → part
	local := make([]int32, len(keys)) // key → its index in its part
	var parts []*part
	roots := map[int]int{}
	for i, k := range keys {
		r := uf.find(i)
		pi, ok := roots[r]
		if !ok {
			pi = len(parts)
			roots[r] = pi
			parts = append(parts, &part{})
		}
		partOf[i] = pi
		local[i] = int32(len(parts[pi].keys))
		parts[pi].keys = append(parts[pi].keys, k)
	}
	values := make([]map[string]int32, len(parts))
	intern := func(pi int, v string) int32 {
		if values[pi] == nil {
			values[pi] = map[string]int32{}
		}
		id, ok := values[pi][v]
		if !ok {
			id = int32(len(values[pi]) + 1)
			values[pi][v] = id
		}
		return id
	}

	for i := range ops {
		op := &ops[i]
		if op.Outcome != Done && op.Kind != Put && op.Kind != Delete {
			continue // a read that did not return says nothing, nor does a transaction of unknown branch
		}
		if anchor[i] < 0 {
			continue // it covers no key: a no-op, or an empty read that always holds
		}
		pi := partOf[anchor[i]]
		o := pop{idx: i, call: op.Call, ret: op.Return, required: op.Outcome == Done, twin: -1}
		steps := []Operation{*op}
		if op.Kind == Txn {
			steps = op.Steps
		}
		for j := range steps {
			o.acts = appendActs(o.acts, &steps[j], keys, local, func(v string) int32 { return intern(pi, v) })
		}
		// Its reads of keys it has not written yet see what others
		// wrote; the others see what it wrote last.
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
		parts[pi].ops = append(parts[pi].ops, o)
	}
	for _, p := range parts {
		slices.SortStableFunc(p.ops, func(a, b pop) int { return cmp.Compare(a.call, b.call) })
	}
	return slices.DeleteFunc(parts, func(p *part) bool { return len(p.ops) == 0 })
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

// eachStep calls f with each Put, Delete and Get of ops, the steps of a
// transaction included, and the index of the operation in ops.
func eachStep(ops []Operation, f func(int, *Operation)) {
	for i := range ops {
		if ops[i].Kind != Txn {
			f(i, &ops[i])
			continue
		}
		for j := range ops[i].Steps {
			f(i, &ops[i].Steps[j])
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
