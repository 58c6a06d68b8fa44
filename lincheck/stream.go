package lincheck

import (
	"cmp"
	"slices"
)

// A Stream checks a history as it happens, keeping of it only what can
// still matter, so that a long run's check needs memory for the operations
// in flight, not for the run.
//
// Each key that only operations on it alone touch is checked in windows:
// when nothing is in flight on the key, everything before is decided (as
// Check would) and forgotten, and only the values the key may hold there
// are kept, to start the next window with. Keys that a range or a
// transaction over several keys links are kept whole and checked at the
// end, starting from where their own windows left them.
//
// Writes of unknown outcome are what a window must be careful with: one
// may take effect at any later time. A put or delete whose effect no read
// of the window saw is carried to the next window, as if sent at its
// start (taking effect inside the window unseen is the same as taking
// effect after it). A put whose value a read saw, and which is the only
// write of that value the key may hold, took effect in the window, and is
// checked there. Anything else (a delete of unknown outcome when a read saw
// the key absent, or a value written twice) makes the key kept whole from
// then on: which write a read saw is not known, so neither is what may
// still take effect.
//
// T is what the caller keeps of each operation to describe it in a
// verdict.
type Stream[T any] struct {
	opts  Options
	keys  map[string]*keyLog[T]
	order []*keyLog[T] // the keys in the order they were first seen
	// dirty are the keys with operations to check, in the order they got
	// them (so that the check does not depend on a map's order).
	dirty []*keyLog[T]
	// joint are the operations on keys that ranges or transactions over
	// several keys link, kept whole; jointRanges are those ranges, which
	// link keys first seen later.
	joint       []streamOp[T]
	jointRanges []span
	// untracked are the ranges of keys the caller stopped checking.
	untracked []span

	v   Verdict // so far: the counts, and a violation or unknown found
	bad *T      // the operation v blames, if a window found it
}

type streamOp[T any] struct {
	op   Operation
	data T
}

// keyLog is one key that only operations on it alone have touched.
type keyLog[T any] struct {
	key string
	ops []streamOp[T] // not yet checked
	// from are the values the key may hold where its last window ended
	// (Absent for absence); nil before any window: absent.
	from    []string
	joint   bool // linked with others: its operations go to joint
	whole   bool // kept whole to the end (see Stream)
	done    bool // a violation or unknown found on it, or untracked: not checked further
	isDirty bool
}

type span struct{ key, end string } // a key, or a range of keys, as an Operation names them

func (r span) has(k string) bool {
	switch r.end {
	case "":
		return k == r.key
	case AllFrom:
		return k >= r.key
	}
	return k >= r.key && k < r.end
}

// NewStream returns a Stream that checks with the options' budget of
// search steps for each window (PartBudget; the whole stream has no
// overall budget, so that a run's length alone never makes it unknown).
func NewStream[T any](opts Options) *Stream[T] {
	return &Stream[T]{opts: opts, keys: map[string]*keyLog[T]{}, v: Verdict{Op: -1}}
}

// Add gives the stream an operation that has ended: it returned, or its
// client gave up on a write (Outcome Indeterminate). Operations that
// Check would leave out (a read that did not return) are the caller's to
// leave out.
func (s *Stream[T]) Add(op Operation, data T) {
	if s.untrackedOp(&op) {
		return
	}
	key, single := singleKey(&op)
	if single {
		if k := s.log(key); !k.joint {
			if !k.done {
				k.ops = append(k.ops, streamOp[T]{op, data})
				s.markDirty(k)
			}
			return
		}
	}
	if !single {
		s.link(&op)
	}
	s.joint = append(s.joint, streamOp[T]{op, data})
}

// singleKey returns the one key op touches, if it touches one alone.
func singleKey(op *Operation) (string, bool) {
	one := func(o *Operation) bool {
		return o.End == "" && len(o.Result) <= 1 && (len(o.Result) == 0 || o.Result[0].Key == o.Key)
	}
	if op.Kind != Txn {
		return op.Key, one(op)
	}
	if len(op.Steps) == 0 {
		return "", false
	}
	for i := range op.Steps {
		if !one(&op.Steps[i]) || op.Steps[i].Key != op.Steps[0].Key {
			return "", false
		}
	}
	return op.Steps[0].Key, true
}

func (s *Stream[T]) log(key string) *keyLog[T] {
	k := s.keys[key]
	if k == nil {
		k = &keyLog[T]{key: key}
		if v, ok := s.opts.Initial[key]; ok {
			k.from = []string{v}
		}
		s.keys[key] = k
		s.order = append(s.order, k)
		for _, r := range s.jointRanges {
			if r.has(key) {
				s.makeJoint(k)
				break
			}
		}
		for _, r := range s.untracked {
			if r.has(key) {
				k.done = true
				break
			}
		}
	}
	return k
}

// link makes joint every key op touches: those it names, those its ranges
// hold (now and later) and those it read.
func (s *Stream[T]) link(op *Operation) {
	eachStep(Ops{*op}, func(_ int, o *Operation) {
		if o.End == "" {
			s.makeJoint(s.log(o.Key))
		} else {
			r := span{o.Key, o.End}
			if !slices.Contains(s.jointRanges, r) {
				s.jointRanges = append(s.jointRanges, r)
			}
			for _, k := range s.keysIn(r) {
				s.makeJoint(k)
			}
		}
		for _, kv := range o.Result {
			s.makeJoint(s.log(kv.Key))
		}
	})
}

// keysIn returns the keys known in r, in order.
func (s *Stream[T]) keysIn(r span) []*keyLog[T] {
	var out []*keyLog[T]
	for key, k := range s.keys {
		if r.has(key) {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b *keyLog[T]) int { return cmp.Compare(a.key, b.key) })
	return out
}

func (s *Stream[T]) makeJoint(k *keyLog[T]) {
	if k.joint {
		return
	}
	k.joint = true
	if !k.done {
		s.joint = append(s.joint, k.ops...)
	}
	k.ops = nil
}

func (s *Stream[T]) markDirty(k *keyLog[T]) {
	if !k.isDirty && !k.whole {
		k.isDirty = true
		s.dirty = append(s.dirty, k)
	}
}

// Untrack stops checking the keys in [key, end) (end as an Operation's
// End): what is not yet checked of them is forgotten unchecked, and later
// operations on them are left out. The caller's reason: their values may
// change in ways the model does not follow (a lease's revocation).
func (s *Stream[T]) Untrack(key, end string) {
	r := span{key, end}
	if slices.Contains(s.untracked, r) {
		return
	}
	s.untracked = append(s.untracked, r)
	for _, k := range s.keysIn(r) {
		k.done, k.ops = true, nil
	}
	s.joint = slices.DeleteFunc(s.joint, func(o streamOp[T]) bool { return s.untrackedOp(&o.op) })
}

// untrackedOp reports whether op touches an untracked key.
func (s *Stream[T]) untrackedOp(op *Operation) bool {
	if len(s.untracked) == 0 {
		return false
	}
	hit := false
	eachStep(Ops{*op}, func(_ int, o *Operation) {
		for _, r := range s.untracked {
			if o.End == "" && r.has(o.Key) || o.End != "" && overlaps(r, span{o.Key, o.End}) {
				hit = true
			}
		}
	})
	return hit
}

func overlaps(a, b span) bool {
	if a.end == "" {
		return b.has(a.key)
	}
	if b.end == "" {
		return a.has(b.key)
	}
	return (a.end == AllFrom || b.key < a.end) && (b.end == AllFrom || a.key < b.end)
}

// Settle tells the stream that every operation called before position
// before has been added. It checks each key's operations up to the last
// instant before then when nothing was in flight on the key, and forgets
// them.
func (s *Stream[T]) Settle(before uint64) {
	dirty := s.dirty
	s.dirty = nil
	for _, k := range dirty {
		k.isDirty = false
		if k.done || k.joint || k.whole {
			continue
		}
		s.settle(k, before)
		if len(k.ops) > 0 {
			s.markDirty(k)
		}
	}
}

func (s *Stream[T]) settle(k *keyLog[T], before uint64) {
	// The window: the operations that returned, in call order, up to the
	// last gap in them before before.
	var done []int
	for i := range k.ops {
		if k.ops[i].op.Outcome == Done && k.ops[i].op.Call < before {
			done = append(done, i)
		}
	}
	slices.SortFunc(done, func(a, b int) int { return cmp.Compare(k.ops[a].op.Call, k.ops[b].op.Call) })
	cut, end := 0, uint64(0)
	var last uint64
	for j, i := range done {
		if j > 0 && last < k.ops[i].op.Call {
			cut, end = j, k.ops[i].op.Call
		}
		last = max(last, k.ops[i].op.Return)
	}
	if len(done) > 0 && last < before {
		cut, end = len(done), before
	}
	if cut == 0 {
		return
	}
	in := make([]bool, len(k.ops))
	for _, i := range done[:cut] {
		in[i] = true
	}

	// Writes of unknown outcome sent before the end: carried on unseen,
	// checked here if seen and the only write of what was seen, or else
	// the key is kept whole.
	seen := map[string]bool{} // values read in the window; Absent for absence
	puts := map[string]int{}  // values put in the window
	for i := range k.ops {
		if o := &k.ops[i].op; in[i] {
			for _, st := range steps(o) {
				switch {
				case st.Kind == Get && len(st.Result) == 0:
					seen[Absent] = true
				case st.Kind == Get && st.KeysOnly:
					seen[""] = true // some value: any could be the one
				case st.Kind == Get:
					seen[st.Result[0].Value] = true
				case st.Kind == Put:
					puts[st.Value]++
				}
			}
		} else if o.Outcome == Indeterminate && o.Call < end && o.Kind == Put {
			puts[o.Value]++
		}
	}
	for i := range k.ops {
		o := &k.ops[i].op
		if o.Outcome != Indeterminate || o.Call >= end {
			continue
		}
		switch {
		case o.Kind == Put && !seen[o.Value] && !seen[""], o.Kind == Delete && !seen[Absent]:
			// Carried on.
		case o.Kind == Put && puts[o.Value] == 1 && !slices.Contains(k.from, o.Value):
			in[i] = true
		default:
			k.whole = true
			return
		}
	}

	var w Ops
	var data []*T
	for i := range k.ops {
		if in[i] {
			w = append(w, k.ops[i].op)
			data = append(data, &k.ops[i].data)
		}
	}
	var from map[string][]string
	if k.from != nil {
		from = map[string][]string{k.key: k.from}
	}
	v, finals := check(w, Options{Budget: s.opts.PartBudget, PartBudget: s.opts.PartBudget, noRegister: s.opts.noRegister}, from, true)
	s.count(v)
	switch v.Result {
	case Linearizable:
		if f, ok := finals[k.key]; ok {
			k.from = f
		}
		kept := k.ops[:0]
		for i := range k.ops {
			if !in[i] {
				kept = append(kept, k.ops[i])
			}
		}
		clear(k.ops[len(kept):])
		k.ops = kept
		if len(kept) == 0 {
			// NB: a key checked up to date keeps no array: a load on a
			// million keys leaves most of them so, and an empty array
			// of room for one operation is some 400 bytes a key.
			k.ops = nil
		}
	default:
		if s.v.Result == Linearizable {
			s.v.Result, s.v.Key, s.v.Reason = v.Result, v.Key, v.Reason
			if v.Result == Violation {
				d := *data[v.Op]
				s.bad = &d
			}
		}
		k.done, k.ops = true, nil
	}
}

// steps returns an operation's Puts, Deletes and Gets.
func steps(o *Operation) []Operation {
	if o.Kind == Txn {
		return o.Steps
	}
	return []Operation{*o}
}

func (s *Stream[T]) count(v Verdict) {
	s.v.Steps += v.Steps
	s.v.Dropped += v.Dropped
	s.v.Parts += v.Parts
	s.v.Registers += v.Registers
}

// Verdict checks what the stream has not yet checked, with extra (the
// operations not given to it, such as those still in flight), and returns
// the verdict on the whole history. The stream stays as it was. A
// violation blames an operation of extra by its index there (Verdict.Op),
// or one the stream was given by its data (blamed, with Op -1).
func (s *Stream[T]) Verdict(extra History) (v Verdict, blamed *T) {
	if s.v.Result == Violation {
		return s.v, s.bad
	}
	h := &streamHistory[T]{extra: extra}
	var from map[string][]string
	for _, k := range s.order {
		if k.done {
			continue
		}
		h.ops = append(h.ops, k.ops...) // none if joint
		if k.from != nil {
			if from == nil {
				from = map[string][]string{}
			}
			from[k.key] = k.from
		}
	}
	h.ops = append(h.ops, s.joint...)
	if extra == nil {
		extra = Ops(nil)
	}
	h.extra = extra
	for i := range extra.Len() {
		op := extra.Op(i)
		if s.untrackedOp(op) || s.doneKey(op) {
			continue
		}
		h.sel = append(h.sel, i)
	}
	v, _ = check(h, s.opts, from, false)
	v.Steps += s.v.Steps
	v.Dropped += s.v.Dropped
	v.Parts += s.v.Parts
	v.Registers += s.v.Registers
	switch {
	case v.Result == Violation && v.Op < len(h.ops):
		d := h.ops[v.Op].data
		v.Op, blamed = -1, &d
	case v.Result == Violation:
		v.Op = h.sel[v.Op-len(h.ops)]
	case s.v.Result == Unknown:
		v.Result, v.Key, v.Reason = Unknown, s.v.Key, s.v.Reason
	}
	return v, blamed
}

// doneKey reports whether op touches, by name, a key that is no longer
// checked.
func (s *Stream[T]) doneKey(op *Operation) bool {
	done := false
	eachStep(Ops{*op}, func(_ int, o *Operation) {
		if k := s.keys[o.Key]; k != nil && k.done {
			done = true
		}
	})
	return done
}

// streamHistory is what Verdict checks: the stream's operations, then the
// selected operations of extra.
type streamHistory[T any] struct {
	ops   []streamOp[T]
	extra History
	sel   []int
}

func (h *streamHistory[T]) Len() int { return len(h.ops) + len(h.sel) }

func (h *streamHistory[T]) Op(i int) *Operation {
	if i < len(h.ops) {
		return &h.ops[i].op
	}
	return h.extra.Op(h.sel[i-len(h.ops)])
}

// Clone returns a copy of the stream that goes on apart from it (for a
// fork of the world that feeds it), or nil for nil. The caller's data is
// copied as values.
func (s *Stream[T]) Clone() *Stream[T] {
	if s == nil {
		return nil
	}
	c := &Stream[T]{opts: s.opts, keys: make(map[string]*keyLog[T], len(s.keys)), order: make([]*keyLog[T], 0, len(s.order)),
		joint: slices.Clone(s.joint), jointRanges: slices.Clone(s.jointRanges), untracked: slices.Clone(s.untracked), v: s.v}
	if s.bad != nil {
		b := *s.bad
		c.bad = &b
	}
	for _, k := range s.order {
		x := *k
		x.ops, x.from, x.isDirty = slices.Clone(k.ops), slices.Clone(k.from), false
		c.keys[k.key] = &x
		c.order = append(c.order, &x)
	}
	for _, k := range s.dirty {
		c.markDirty(c.keys[k.key])
	}
	return c
}
