package lincheck

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
)

// The search walks the part's calls and returns in order, keeping every
// configuration the history so far allows: the state of the part's keys,
// and which of the operations still in flight have already been placed.
// This is Lowe's "just-in-time" linearization (Testing for linearizability,
// 2017), the idea behind Knossos's linear checker:
//
//   - At a call, nothing changes: the new operation is in flight, not yet
//     placed, in every configuration.
//   - At the return of an operation o, o must have been placed. Each
//     configuration where it was not is extended by every sequence of
//     unplaced operations in flight that ends with o and that the model
//     allows (a read must see the state); where it was, it stands. An
//     optional write may also never be placed: at its return it leaves
//     the configurations where it was not placed as they are.
//   - No configuration left means that no order explains o: the history
//     is not linearizable.
//
// Every linearization of the history so far corresponds to a
// configuration kept, and every configuration kept to a linearization, so
// the answer is exact. The configurations are deduplicated, and only those
// of the current position are kept, so memory follows the operations in
// flight and the states they can leave, not the history's length; time is
// the number of configurations times the sequences tried at each return.
// Both are counted as steps against a budget.

type searchResult struct {
	result Result
	op     int // Violation: the operation (in part.ops) no order explains
	reason string
	steps  int
	// final are, if the part wants them and it is linearizable, the
	// states it may end in.
	final [][]int32
}

// entry is a call or a return, at its position.
type entry struct {
	pos    uint64
	op     int
	isCall bool
}

func (p *part) search(budget int) searchResult {
	entries := make([]entry, 0, 2*len(p.ops))
	for i, o := range p.ops {
		entries = append(entries, entry{o.call, i, true}, entry{o.ret, i, false})
	}
	// NB: positions are distinct, except where rule 3 gave writes the
	// return of a read; at one position, returns go by operation.
	slices.SortFunc(entries, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.pos, b.pos), boolOrder(a.isCall, b.isCall), cmp.Compare(a.op, b.op))
	})
	maxOpen, open := 0, 0
	for _, e := range entries {
		if e.isCall {
			open++
			maxOpen = max(maxOpen, open)
		} else {
			open--
		}
	}

	s := &searcher{p: p, budget: budget, m: len(p.keys), w: (maxOpen + 63) / 64,
		slotOf: make([]int, len(p.ops)), opIn: make([]int, 0, maxOpen)}
	for i := range s.slotOf {
		s.slotOf[i] = -1
	}
	if r, bad := s.indexUses(); bad {
		return r
	}
	s.cur = newConfigSet(s.m, s.w)
	s.next = newConfigSet(s.m, s.w)
	s.seen = newConfigSet(s.m, s.w)
	if p.from == nil {
		s.cur.add(make([]int32, s.m), make([]uint64, s.w)) // every key absent, nothing placed
	}
	for _, st := range p.from {
		s.cur.add(st, make([]uint64, s.w))
	}
	for _, e := range entries {
		s.pos = e.pos
		if e.isCall {
			s.call(e.op)
			continue
		}
		if r, done := s.ret(e.op); done {
			return r
		}
	}
	res := searchResult{result: Linearizable, steps: s.steps}
	if p.wantFinal {
		for i := range s.cur.len() {
			st, _ := s.cur.at(i)
			res.final = append(res.final, slices.Clone(st))
		}
	}
	return res
}

// uses are the operations that read a value of a key and that write it,
// and the latest of their calls.
type uses struct {
	readers, writers            []int
	lastReadCall, lastWriteCall uint64
}

// indexUses finds every value's readers and writers. A read of a value no
// operation writes is a violation found at once, before any search.
func (s *searcher) indexUses() (searchResult, bool) {
	s.uses = map[keyValue]*uses{}
	at := func(kv keyValue) *uses {
		u := s.uses[kv]
		if u == nil {
			u = &uses{}
			s.uses[kv] = u
		}
		return u
	}
	for i, o := range s.p.ops {
		for _, kv := range o.reads {
			u := at(kv)
			u.readers = append(u.readers, i)
			u.lastReadCall = max(u.lastReadCall, o.call)
		}
		for _, kv := range o.writes {
			u := at(kv)
			u.writers = append(u.writers, i)
			u.lastWriteCall = max(u.lastWriteCall, o.call)
		}
	}
	for i, o := range s.p.ops {
		for _, kv := range o.reads {
			switch {
			case kv.val == present:
			case kv.val == impossible:
				return searchResult{result: Violation, op: i, reason: "it returned a key outside what it asked for"}, true
			case kv.val != 0 && len(s.uses[kv].writers) == 0 && !s.p.startsWith(kv.key, kv.val):
				return searchResult{result: Violation, op: i, reason: "it saw a value that no write wrote"}, true
			}
		}
	}
	return searchResult{}, false
}

// dead reports whether overwriting kv, in a configuration with placed-set
// lin, leaves a read that can never be placed: one that sees kv is still
// to be placed, and no write of kv is. It blames that read.
func (s *searcher) dead(kv keyValue, lin []uint64, self int) bool {
	u := s.uses[kv]
	if u == nil || len(u.readers) == 0 || u.lastWriteCall > s.pos {
		return false
	}
	reader := -1
	for t, op := range s.opIn {
		if op < 0 || op == self || has(lin, t) {
			continue
		}
		o := &s.p.ops[op]
		if slices.Contains(o.writes, kv) {
			return false // a write of kv is still to be placed
		}
		if reader < 0 && slices.Contains(o.reads, kv) {
			reader = op
		}
	}
	if reader < 0 && u.lastReadCall > s.pos {
		// The first reader called after now (readers are in call order).
		i, _ := slices.BinarySearchFunc(u.readers, s.pos, func(r int, pos uint64) int { return cmp.Compare(s.p.ops[r].call, pos+1) })
		reader = u.readers[i]
	}
	if reader < 0 {
		return false
	}
	if s.blame < 0 {
		s.blame = reader
	}
	return true
}

func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1 // returns before calls: see the comment at the sort
	}
	return -1
}

type searcher struct {
	p        *part
	budget   int
	steps    int
	returned int // operations whose returns were handled
	m, w     int // keys in the part; words of a placed-set

	// The operations in flight: opIn[slot] is an operation (in p.ops), or
	// -1; slotOf[op] is its slot, or -1.
	opIn   []int
	slotOf []int

	pos   uint64 // the position being handled
	uses  map[keyValue]*uses
	blame int // a read that a dead end left no place for, or -1

	cur, next, seen *configSet
	stack           []int
	scratch, xst    []int32
	xlin            []uint64
}

func (s *searcher) call(op int) {
	slot := slices.Index(s.opIn, -1)
	if slot < 0 {
		slot = len(s.opIn)
		s.opIn = append(s.opIn, -1)
	}
	s.opIn[slot], s.slotOf[op] = op, slot
}

// ret handles the return of op. It returns true when the search is over.
func (s *searcher) ret(op int) (searchResult, bool) {
	o := &s.p.ops[op]
	slot := s.slotOf[op]
	if slot < 0 {
		// Only rule 2 makes a return come before its call: a read saw a
		// value before the only writes of it were sent.
		return searchResult{result: Violation, op: op, steps: s.steps,
			reason: "a read returned the value it wrote before it was sent"}, true
	}
	s.next.reset()
	s.seen.reset()
	s.blame = -1
	for i := 0; i < s.cur.len(); i++ {
		st, lin := s.cur.at(i)
		s.steps++
		if has(lin, slot) {
			s.next.addWithout(st, lin, slot)
			continue
		}
		if !o.required {
			s.next.add(st, lin) // it never took effect
		}
		// Every sequence of unplaced operations in flight that ends
		// with op.
		if s.seen.add(st, lin) {
			s.stack = append(s.stack[:0], s.seen.len()-1)
		} else {
			s.stack = s.stack[:0]
		}
		for len(s.stack) > 0 {
			x := s.stack[len(s.stack)-1]
			s.stack = s.stack[:len(s.stack)-1]
			// NB: a copy, as adding to seen may move its storage.
			xst, xlin := s.seen.at(x)
			s.xst, s.xlin = append(s.xst[:0], xst...), append(s.xlin[:0], xlin...)
			xst, xlin = s.xst, s.xlin
			for t, top := range s.opIn {
				if top < 0 {
					continue
				}
				if has(xlin, t) || s.twinWaits(top, xlin) {
					continue
				}
				s.steps++
				if s.steps > s.budget {
					return searchResult{result: Unknown, steps: s.steps, reason: fmt.Sprintf(
						"the search passed its budget of %d steps with %d of its %d operations checked, %d in flight",
						s.budget, s.returned, len(s.p.ops), s.inFlight())}, true
				}
				next, ok := s.apply(top, xst, xlin)
				if !ok {
					continue
				}
				set(xlin, t)
				if top == op {
					s.next.addWithout(next, xlin, slot)
				} else if s.seen.add(next, xlin) {
					s.stack = append(s.stack, s.seen.len()-1)
				}
				clearBit(xlin, t)
			}
		}
	}
	s.opIn[slot], s.slotOf[op] = -1, -1
	s.returned++
	s.cur, s.next = s.next, s.cur
	if s.cur.len() == 0 {
		if len(o.reads) == 0 && s.blame >= 0 {
			// A write that must take effect by its return hides the
			// value a read still to come needs: that read is at fault.
			op = s.blame
		}
		return searchResult{result: Violation, op: op, steps: s.steps,
			reason: "no order of the operations explains what it saw"}, true
	}
	return searchResult{}, false
}

// twinWaits reports whether op is an optional write whose twin, an
// earlier write with the same effects, is in flight and not yet placed:
// rule 4 places twins in call order.
func (s *searcher) twinWaits(op int, lin []uint64) bool {
	t := s.p.ops[op].twin
	if t < 0 {
		return false
	}
	slot := s.slotOf[t]
	return slot >= 0 && !has(lin, slot)
}

// apply steps the model: it returns the state after op, or false if op is
// a read that does not see st, or a write that overwrites a value a read
// still to be placed needs and no write still to be placed can bring back
// (a dead end the search would otherwise explore to its last branch).
func (s *searcher) apply(op int, st []int32, lin []uint64) ([]int32, bool) {
	o := &s.p.ops[op]
	if len(o.writes) == 0 {
		for _, kv := range o.reads {
			if !kv.sees(st[kv.key]) {
				return nil, false
			}
		}
		return st, true
	}
	s.scratch = append(s.scratch[:0], st...)
	for _, a := range o.acts {
		switch {
		case a.write:
			s.scratch[a.key] = a.val
		case !a.sees(s.scratch[a.key]):
			return nil, false
		}
	}
	for _, kv := range o.writes {
		if old := st[kv.key]; old != kv.val && s.dead(keyValue{kv.key, old}, lin, op) {
			return nil, false
		}
	}
	return s.scratch, true
}

func (s *searcher) inFlight() int {
	n := 0
	for _, op := range s.opIn {
		if op >= 0 {
			n++
		}
	}
	return n
}

func has(lin []uint64, i int) bool { return lin[i/64]&(1<<(i%64)) != 0 }
func set(lin []uint64, i int)      { lin[i/64] |= 1 << (i % 64) }
func clearBit(lin []uint64, i int) { lin[i/64] &^= 1 << (i % 64) }

// configSet is a set of configurations (a state of m keys and a placed-set
// of w words), kept in insertion order, which makes the search's order,
// and so its step count, deterministic.
type configSet struct {
	m, w   int
	states []int32
	lins   []uint64
	index  map[string]struct{}
	key    []byte
}

func newConfigSet(m, w int) *configSet {
	return &configSet{m: m, w: w, index: map[string]struct{}{}}
}

func (c *configSet) len() int { return len(c.states) / max(c.m, 1) }

func (c *configSet) reset() {
	c.states, c.lins = c.states[:0], c.lins[:0]
	clear(c.index)
}

// at returns the i-th configuration; the slices alias the set's storage
// until the next add.
func (c *configSet) at(i int) ([]int32, []uint64) {
	return c.states[i*c.m : (i+1)*c.m : (i+1)*c.m], c.lins[i*c.w : (i+1)*c.w : (i+1)*c.w]
}

// add adds a configuration and reports whether it was new.
func (c *configSet) add(st []int32, lin []uint64) bool {
	c.key = c.key[:0]
	for _, v := range st {
		c.key = binary.LittleEndian.AppendUint32(c.key, uint32(v))
	}
	for _, v := range lin {
		c.key = binary.LittleEndian.AppendUint64(c.key, v)
	}
	if _, ok := c.index[string(c.key)]; ok {
		return false
	}
	c.index[string(c.key)] = struct{}{}
	c.states = append(c.states, st...)
	c.lins = append(c.lins, lin...)
	return true
}

// addWithout adds a configuration with slot taken out of its placed-set.
func (c *configSet) addWithout(st []int32, lin []uint64, slot int) bool {
	was := has(lin, slot)
	clearBit(lin, slot)
	added := c.add(st, lin)
	if was {
		set(lin, slot)
	}
	return added
}
