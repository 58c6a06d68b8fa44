package lincheck

import (
	"cmp"
	"container/heap"
	"math"
	"slices"
)

// The register check decides a part of one key whose puts all write
// distinct values, directly and without a search, in O(n log n). Each read
// of a value then names the one write it saw (the reads-from relation is
// known), and linearizability of a register with a known reads-from
// relation is decidable in polynomial time (Gibbons and Korach, Testing
// shared memories, 1997). The check below follows the zone formulation of
// that result (Golab, Li and Shah, Analyzing consistency properties for fun
// and profit, 2011) and extends it to deletes, which all write the same
// thing, absence, so that a read of an absent key does not name the delete
// it saw.
//
// A cluster is a put and the reads that saw its value. In any
// linearization a cluster's operations are contiguous (the values are
// distinct: once overwritten, a value never comes back) with the put
// first. Let f be the earliest return and s the latest call among them:
//
//   - If f < s, the cluster is forward: every linearization places some of
//     it at or before f and some at or after s, so it occupies [f, s] whole,
//     and nothing else may be placed inside. It can be placed in exactly
//     [f, s] (its put just before f, each read where [f, s] meets its
//     interval), so two forward clusters must not overlap.
//   - If s < f, the cluster is backward: it can be placed at any one
//     instant of [s, f], all of it there; it needs an instant of [s, f]
//     that no forward cluster holds.
//
// For puts and gets alone these two conditions (and that no read returns
// before its put is sent) are the whole answer. Deletes and reads of an
// absent key live in the time the forward clusters leave free: a read of
// absence needs an instant of its interval, outside every cluster, with a
// delete (or the start of the history) before it and no put between. A
// sweep over time places them greedily, each choice one that any
// linearization can be rearranged to make:
//
//   - a read of absence is placed as soon as the key is absent (reads
//     change nothing);
//   - a backward cluster is placed as late as it can be (its f, or just
//     before the forward cluster that holds f), or earlier just before a
//     delete or a forward cluster is placed, where it hides nothing; its
//     placing makes the key present;
//   - a delete is placed at the latest instant it can be (a delete in free
//     time harms nothing and makes the key absent), or earlier when a read
//     of absence is about to run out of time and the key is not absent:
//     then the pending delete with the earliest deadline is used (the
//     usual exchange argument: any other choice can be swapped for it).
//
// A delete of unknown outcome is placed the same way: at its deadline it
// may as well take effect, since a delete in free time harms nothing.
//
// The sweep runs after reduce (reduce.go): a put of unknown outcome is then
// dropped (nobody saw its value) or required, with the return of the first
// read that saw it (rule 2; its value is its own), and a delete of unknown
// outcome is optional with the return of the last read of absence (rule 3).
// Cross-checked against the definition, the search and porcupine on random
// histories (register_test.go).

// regItem is something the sweep places in the time the forward clusters
// leave free: a backward cluster, a delete or a read of absence.
type regItem struct {
	kind      regKind
	op        int // a delete or a read: its index in part.ops; a cluster: its put's
	cl        int // a backward cluster: its index in clusters
	avail     int64
	deadline  int64
	required  bool
	placed    bool // a delete or a cluster placed; a read served
	pendingAt int  // a delete: its index in the heap, or -1
}

type regKind uint8

const (
	regRead regKind = iota
	regDelete
	regBackward
)

// regEvent is one moment of the sweep.
type regEvent struct {
	at    int64
	class regClass
	item  int // the item or the forward cluster it concerns
}

// regClass orders what happens at one instant: what must be placed by it
// comes first, then the start of a forward cluster, then its end, then
// what becomes possible.
type regClass uint8

const (
	dueRead regClass = iota
	dueDelete
	dueBackward
	forwardStart
	forwardEnd
	available
)

type regCluster struct {
	put   int // its put, in part.ops
	reads []int
	f, s  int64
}

// registerCheck decides the part if it is a register of distinct values:
// each operation a single put, delete or read of its one key, no two puts
// of one value, none of a value the key may start with, and no read that
// returned only that the key exists. It reports false, deciding nothing,
// otherwise.
func (p *part) registerCheck() (searchResult, bool) {
	if len(p.keys) != 1 {
		return searchResult{}, false
	}
	puts := map[int32]int{}
	for i := range p.ops {
		o := &p.ops[i]
		if len(o.acts) != 1 {
			return searchResult{}, false
		}
		a := o.acts[0]
		switch {
		case a.write && a.val != 0:
			if _, dup := puts[a.val]; dup || p.startsWith(0, a.val) {
				return searchResult{}, false
			}
			puts[a.val] = i
		case !a.write && (a.val == present || a.val == impossible):
			return searchResult{}, false
		}
	}
	r, bad := p.newRegister(puts)
	if bad != nil {
		return *bad, true
	}
	if res := r.sweep(false); res.result != Linearizable || !p.wantFinal {
		return res, true
	}
	return searchResult{result: Linearizable, final: r.finals()}, true
}

// register is a part that registerCheck decides, set out for the sweep.
type register struct {
	p        *part
	clusters []regCluster
	forward  []int // the forward clusters, in time order
	items    []regItem
	start    int32 // the value the key starts with, 0 for absent
	// startWrites: some put or delete must take effect (the key may
	// not keep the value it started with to the end).
	startWrites bool
}

// The earliest instant, where the put of the value a key starts with is.
const beforeAll = math.MinInt64

// newRegister sets out the part's clusters and items, or returns a
// violation found in doing so.
func (p *part) newRegister(puts map[int32]int) (*register, *searchResult) {
	violation := func(op int, reason string) (*register, *searchResult) {
		return nil, &searchResult{result: Violation, op: op, reason: reason}
	}
	pos := func(x uint64) int64 { return int64(x) }
	r := &register{p: p, clusters: make([]regCluster, 0, len(puts)+1)}

	// The clusters, in order of their puts; a value the key starts with
	// is put before everything.
	clusterOf := make(map[int32]int, len(puts))
	for i := range p.ops {
		o := &p.ops[i]
		a := o.acts[0]
		switch {
		case a.write && a.val != 0:
			clusterOf[a.val] = len(r.clusters)
			r.clusters = append(r.clusters, regCluster{put: i, f: pos(o.ret), s: pos(o.call)})
		case a.write:
			r.items = append(r.items, regItem{kind: regDelete, op: i, avail: pos(o.call), deadline: pos(o.ret), required: o.required})
		case a.val == 0:
			r.items = append(r.items, regItem{kind: regRead, op: i, avail: pos(o.call), deadline: pos(o.ret), required: true})
		}
		r.startWrites = r.startWrites || a.write && o.required
	}
	for i := range p.ops {
		o := &p.ops[i]
		a := o.acts[0]
		if a.write || a.val == 0 {
			continue
		}
		c, ok := clusterOf[a.val]
		switch {
		case ok:
		case !p.startsWith(0, a.val):
			return violation(i, "it saw a value that no write wrote")
		case r.start != 0:
			// Two values the key may start with were read: it held
			// only one.
			return violation(i, "no order of the operations explains what it saw")
		default:
			r.start, c = a.val, len(r.clusters)
			clusterOf[a.val] = c
			r.clusters = append(r.clusters, regCluster{put: -1, f: beforeAll, s: beforeAll})
		}
		cl := &r.clusters[c]
		if cl.put >= 0 && o.ret < p.ops[cl.put].call {
			return violation(i, "it returned before the write of what it saw was sent")
		}
		cl.reads = append(cl.reads, i)
		cl.f, cl.s = min(cl.f, pos(o.ret)), max(cl.s, pos(o.call))
	}
	if r.start == 0 && !p.startsWith(0, 0) {
		// No read says which, and absence is not one: any value, unread.
		r.start = p.from[0][0]
	}

	// Forward clusters must not overlap.
	for c := range r.clusters {
		if cl := &r.clusters[c]; cl.f < cl.s {
			r.forward = append(r.forward, c)
		} else if cl.put >= 0 {
			r.items = append(r.items, regItem{kind: regBackward, op: cl.put, cl: c, avail: cl.s, deadline: cl.f, required: true})
		}
	}
	slices.SortFunc(r.forward, func(a, b int) int { return cmp.Compare(r.clusters[a].f, r.clusters[b].f) })
	for i := 1; i < len(r.forward); i++ {
		if prev, next := &r.clusters[r.forward[i-1]], &r.clusters[r.forward[i]]; next.f < prev.s {
			// The earlier value was read after the later one had been
			// written or read.
			return violation(lastCalled(p, prev), "no order of the operations explains what it saw")
		}
	}

	// What the forward clusters leave free: an item whose call falls
	// inside one becomes possible at its end; one whose return falls
	// inside one is due at its start.
	for i := range r.items {
		it := &r.items[i]
		in := r.holder(it.avail)
		if in >= 0 {
			it.avail = r.clusters[in].s
		}
		if h := r.holder(it.deadline); h >= 0 {
			it.deadline = r.clusters[h].f
		}
		if it.avail > it.deadline {
			// It lies inside the forward cluster in.
			switch {
			case !it.required:
				it.placed = true // it never took effect
				continue
			case it.kind == regRead:
				return violation(it.op, "it saw the key absent while another value had to be there")
			}
			// A put or a delete that had to take effect while the value
			// of in was still to be read: the read that saw it is the
			// one no order explains.
			return violation(lastCalled(p, &r.clusters[in]), "no order of the operations explains what it saw")
		}
	}
	return r, nil
}

// holder returns the forward cluster whose inside holds t, or -1.
func (r *register) holder(t int64) int {
	i, _ := slices.BinarySearchFunc(r.forward, t, func(c int, t int64) int { return cmp.Compare(r.clusters[c].f, t) })
	// forward[i-1] is the last that starts before t.
	if i > 0 && t < r.clusters[r.forward[i-1]].s {
		return r.forward[i-1]
	}
	return -1
}

// sweep places the items in the time the forward clusters leave free. With
// absentAtEnd it also asks that the key be absent after everything (a read
// of absence that comes last), for finals.
func (r *register) sweep(absentAtEnd bool) searchResult {
	violation := func(op int, reason string) searchResult {
		return searchResult{result: Violation, op: op, reason: reason}
	}
	items := slices.Clone(r.items)
	if absentAtEnd {
		items = append(items, regItem{kind: regRead, op: -1, avail: math.MaxInt64 - 1, deadline: math.MaxInt64, required: true})
	}
	events := make([]regEvent, 0, 2*len(items)+2*len(r.forward))
	for _, c := range r.forward {
		events = append(events, regEvent{r.clusters[c].f, forwardStart, c}, regEvent{r.clusters[c].s, forwardEnd, c})
	}
	for i := range items {
		it := &items[i]
		it.pendingAt = -1
		if it.placed {
			continue
		}
		due := dueRead
		switch it.kind {
		case regDelete:
			due = dueDelete
		case regBackward:
			due = dueBackward
		}
		events = append(events, regEvent{it.avail, available, i}, regEvent{it.deadline, due, i})
	}
	slices.SortFunc(events, func(a, b regEvent) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.class, b.class), cmp.Compare(a.item, b.item))
	})

	absent := r.start == 0 // the key starts absent, or with a value no one reads
	var waiting, backward []int
	deletes := &deleteHeap{items: items}
	placeBackward := func() {
		for _, i := range backward {
			items[i].placed = true
		}
		if len(backward) > 0 {
			absent = false
		}
		backward = backward[:0]
	}
	placeDelete := func(i int) {
		placeBackward()
		if items[i].pendingAt >= 0 {
			heap.Remove(deletes, items[i].pendingAt)
		}
		items[i].placed = true
		absent = true
		for _, r := range waiting {
			items[r].placed = true
		}
		waiting = waiting[:0]
	}
	for _, e := range events {
		switch e.class {
		case available:
			it := &items[e.item]
			if it.placed {
				continue
			}
			switch it.kind {
			case regRead:
				if absent {
					it.placed = true
				} else {
					waiting = append(waiting, e.item)
				}
			case regDelete:
				heap.Push(deletes, e.item)
			case regBackward:
				backward = append(backward, e.item)
			}
		case forwardStart:
			placeBackward()
			absent = false
		case forwardEnd:
		case dueRead:
			if items[e.item].placed {
				continue
			}
			if deletes.Len() == 0 {
				return violation(items[e.item].op, "it saw the key absent, and no delete can have made it so")
			}
			placeDelete(deletes.order[0])
		case dueDelete:
			if !items[e.item].placed {
				placeDelete(e.item)
			}
		case dueBackward:
			if !items[e.item].placed {
				placeBackward()
			}
		}
	}
	return searchResult{result: Linearizable}
}

// finals returns the states a linearizable register may end in. A value
// may be last if its cluster can come after everything else: its earliest
// return is after every other call (then, the history being linearizable,
// so is the rest, which can go first). Absence may be last if the sweep
// can also place a read of absence after everything. NB: the stream asks
// only of windows with no write of unknown outcome.
func (r *register) finals() [][]int32 {
	if !r.startWrites {
		if len(r.items) == 0 && len(r.clusters) == 0 && r.p.from != nil {
			return r.p.from // nothing happened
		}
		return [][]int32{{r.start}}
	}
	// The two latest calls of distinct groups: a cluster's latest is its
	// s; a delete or a read of absence is a group of its own.
	type call struct {
		at    int64
		group int
	}
	first, second := call{beforeAll, -1}, call{beforeAll, -1}
	note := func(at int64, group int) {
		switch {
		case at > first.at:
			first, second = call{at, group}, first
		case at > second.at:
			second = call{at, group}
		}
	}
	for c := range r.clusters {
		note(r.clusters[c].s, c)
	}
	for i := range r.items {
		if it := &r.items[i]; it.kind != regBackward && it.required {
			note(int64(r.p.ops[it.op].call), len(r.clusters)+i)
		}
	}
	var out [][]int32
	for c := range r.clusters {
		cl := &r.clusters[c]
		if cl.put < 0 {
			continue // the value the key started with: something overwrites it
		}
		other := first
		if first.group == c {
			other = second
		}
		if cl.f > other.at {
			out = append(out, []int32{r.p.ops[cl.put].acts[0].val})
		}
	}
	if r.sweep(true).result == Linearizable {
		out = append(out, []int32{0})
	}
	return out
}

// lastCalled returns the operation of a cluster called last.
func lastCalled(p *part, cl *regCluster) int {
	last := cl.put
	for _, r := range cl.reads {
		if last < 0 || p.ops[r].call > p.ops[last].call {
			last = r
		}
	}
	return last
}

// deleteHeap holds the deletes that may be placed, earliest deadline
// first (ties by their order, so the sweep is deterministic).
type deleteHeap struct {
	items []regItem
	order []int
}

func (h *deleteHeap) Len() int { return len(h.order) }
func (h *deleteHeap) Less(a, b int) bool {
	x, y := &h.items[h.order[a]], &h.items[h.order[b]]
	return x.deadline < y.deadline || x.deadline == y.deadline && h.order[a] < h.order[b]
}
func (h *deleteHeap) Swap(a, b int) {
	h.order[a], h.order[b] = h.order[b], h.order[a]
	h.items[h.order[a]].pendingAt, h.items[h.order[b]].pendingAt = a, b
}
func (h *deleteHeap) Push(x any) {
	i := x.(int)
	h.items[i].pendingAt = len(h.order)
	h.order = append(h.order, i)
}
func (h *deleteHeap) Pop() any {
	i := h.order[len(h.order)-1]
	h.order = h.order[:len(h.order)-1]
	h.items[i].pendingAt = -1
	return i
}
