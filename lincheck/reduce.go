package lincheck

import (
	"slices"
	"strconv"
)

// A write of unknown outcome (its client timed out) may take effect at any
// instant after its call, or never. Left as it is, it is in flight until
// the end of the history, and a few dozen of them make every search
// explode: each may be placed anywhere. reduce shows, before the search,
// that most of them change nothing, and bounds the others. Each rule keeps
// the verdict: the reduced history is linearizable if and only if the
// original is. Throughout, "(k, x) is observed" means that some read that
// returned saw key k hold x (a get of k, a range over k, or a read in a
// transaction that had not written k itself; for x = 0, saw k absent; a
// keys-only read that saw k exist observes every x but 0), and a
// linearization is a valid order of the history's operations, each placed
// between its call and its return, in which every read sees the state the
// writes before it left.
//
// Rule 1: drop an unknown write none of whose effects is observed.
//
//	Let W set keys k_1..k_n to x_1..x_n, and let no read observe any
//	(k_i, x_i). Take a linearization L that places W. For each k_i, W's
//	value lasts from W to the next write of k_i; a read of k_i in that
//	stretch would observe x_i, so there is none. Remove W from L: only
//	those stretches change, and no read looks at them, so the rest is
//	still valid. Conversely a linearization without W is one of the
//	original history, in which W never took effect. (This holds for every
//	such W at once: removing one changes no read.)
//
// Rule 2: a value only unknown writes wrote, and that a read saw, was
// written by the earliest of them, in time for the first read to return.
//
//	Let G be every write that sets k to x (x not 0, so no state holds it
//	before some write), all of unknown outcome, all single-key puts, and
//	let a read have seen k hold x (not merely exist). Take a linearization
//	L. A read of x needs a write of G before it, so L places at least one;
//	let g be the first. Let g1 be
//	the write of G with the earliest call. If g != g1, swap them: put g1
//	where g was (g1's call is no later than g's, and neither has a return
//	to respect) and g where g1 was, if L placed it (it is later than g's
//	place, so after g's call too). The effects are the same, so L stays
//	valid, and now g1 comes before every read of x, in particular before
//	the one that returned first. So g1 may be made a required write whose
//	return is that read's: the orders this allows are exactly the ones
//	some linearization of the original uses, up to the swap.
//
// Rule 3: an unknown write whose effect is observed took effect before the
// last read that observed it returned, or may as well never have.
//
//	Let W set keys k_i to x_i, and let R be the latest return of a read
//	that observes some (k_i, x_i). In a linearization L that places W,
//	either no read looks at any k_i while W's value lasts (then drop W, as
//	in rule 1), or some read does and so observes (k_i, x_i): it comes
//	after W and returns no later than R. So W may be given the return R,
//	as an optional write: placed before R, or never. If R is below W's
//	call, no read can come after W and observe it, so W is dropped.
//
// After the rules every operation has a return, so the search can close
// each write's alternatives once the history passes it.
//
// NB: the model holds values, not etcd's revisions, and the rules are
// argued for it. With revisions they would not hold as they stand: a
// timed-out write that took effect raises the store's revision, which
// every later write on any key reports, so it is observed even when no
// read returns its value (rule 1), and keys are no longer independent (the
// split into parts). A revision-aware check would go the other way round:
// etcd's revisions order every write that returned, so it can place them by
// revision, count the gaps that timed-out writes fill, and check each read
// against the revision it reports.
//
// Rule 4 (the search's, see search.go): optional writes with the same
// effects and the same return (rule 3 gives writes of the same values the
// same return) are interchangeable but for their calls; as in rule 2, one
// with an earlier call can always stand in for one with a later call. So
// the search places them in call order, never a later one before an
// earlier one, which keeps n identical writes to n+1 choices, not 2^n.
func (p *part) reduce() (dropped int) {
	observers := map[keyValue][]int{} // (key, value) → reads that saw it
	anyValue := map[int32][]int{}     // key → keys-only reads that saw it exist
	for i := range p.ops {
		for _, kv := range p.ops[i].reads {
			if kv.val == present {
				anyValue[kv.key] = append(anyValue[kv.key], i)
			} else {
				observers[kv] = append(observers[kv], i)
			}
		}
	}
	// seenBy returns the reads that observe kv: those that saw the value,
	// and for a value (not absence) those that saw only that the key
	// exists.
	seenBy := func(kv keyValue) ([]int, []int) {
		if kv.val == 0 {
			return observers[kv], nil
		}
		return observers[kv], anyValue[kv.key]
	}
	observed := func(kv keyValue) bool {
		exact, some := seenBy(kv)
		return len(exact)+len(some) > 0
	}

	// Rule 1.
	for i := range p.ops {
		o := &p.ops[i]
		if !o.required && !slices.ContainsFunc(o.writes, observed) {
			o.dropped = true
			dropped++
		}
	}

	// Rule 2. Writers of each observed value, in call order.
	writers := map[keyValue][]int{}
	for i := range p.ops {
		if o := &p.ops[i]; !o.dropped {
			for _, kv := range o.writes {
				if kv.val != 0 && len(observers[kv]) > 0 {
					writers[kv] = append(writers[kv], i)
				}
			}
		}
	}
	for _, kv := range sortedKeys(writers) {
		g := writers[kv]
		// NB: a value a starting state holds may have been read from
		// there: then rule 2 does not apply.
		if !p.startsWith(kv.key, kv.val) && !slices.ContainsFunc(g, func(i int) bool { return p.ops[i].required || len(p.ops[i].writes) != 1 }) {
			first := &p.ops[g[0]]
			first.required = true
			first.ret = minReturn(p, observers[kv])
		}
	}

	// Rule 3.
	for i := range p.ops {
		o := &p.ops[i]
		if o.required || o.dropped {
			continue
		}
		o.ret = 0
		for _, kv := range o.writes {
			exact, some := seenBy(kv)
			for _, r := range append(exact[:len(exact):len(exact)], some...) {
				o.ret = max(o.ret, p.ops[r].ret)
			}
		}
		if o.ret < o.call {
			o.dropped = true
			dropped++
		}
	}

	p.ops = slices.DeleteFunc(p.ops, func(o pop) bool { return o.dropped })

	// Rule 4: each optional write's twin is the latest earlier optional
	// write with the same effects (and so the same return).
	last := map[string]int{}
	for i := range p.ops {
		o := &p.ops[i]
		if o.required {
			continue
		}
		k := effectKey(o.writes)
		if j, ok := last[k]; ok {
			o.twin = j
		}
		last[k] = i
	}
	return dropped
}

func minReturn(p *part, reads []int) uint64 {
	m := p.ops[reads[0]].ret
	for _, r := range reads[1:] {
		m = min(m, p.ops[r].ret)
	}
	return m
}

func sortedKeys(m map[keyValue][]int) []keyValue {
	out := make([]keyValue, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b keyValue) int {
		if a.key != b.key {
			return int(a.key) - int(b.key)
		}
		return int(a.val) - int(b.val)
	})
	return out
}

// effectKey identifies a write's effects.
func effectKey(ws []keyValue) string {
	b := make([]byte, 0, 16*len(ws))
	for _, kv := range ws {
		b = strconv.AppendInt(b, int64(kv.key), 10)
		b = append(b, '=')
		b = strconv.AppendInt(b, int64(kv.val), 10)
		b = append(b, ',')
	}
	return string(b)
}
