package sim

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"
	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/lincheck"
	"github.com/raftsim/raftsim/mvcc"
)

// Linearizability is the verdict on a run's client history.
type Linearizability struct {
	OK      bool
	Result  string        // "linearizable", "NOT linearizable" or "unknown"
	Detail  string        // for NOT linearizable and unknown: where and why
	Checked int           // operations checked
	Skipped int           // serializable reads, watches and what the model cannot follow
	Dropped int           // timed-out writes shown to change nothing, left out
	Steps   int           // search steps the check took
	history *checkHistory // the operations checked, for WriteHTML

	key    string // for DetailIn: the key where the check failed,
	op     *Op    // the operation no order explains (NOT linearizable),
	reason string // or why the check could not decide (unknown; lincheck's words)
}

// The words of a linearizability verdict's detail.
var (
	notLinDetail     = i18n.N("on key %q, %s (%s by %s via %s, %s at %s): no order of the operations explains what it saw")
	unknownLinDetail = i18n.N("on key %q, %s")
)

// DetailIn is Detail in a language. Keys, names, values and etcd's
// errors stay as they are.
func (r *Linearizability) DetailIn(l i18n.Lang) string {
	switch {
	case r.op != nil:
		op := r.op
		return l.F(notLinDetail, r.key, opNameIn(l, op), describeOp(l, op), op.Client, op.Member, describeResult(l, op), op.End)
	case r.Result == "unknown":
		return l.F(unknownLinDetail, r.key, r.reason)
	}
	return ""
}

// KeepCheckedHistory makes a run that forgets its history keep what the
// linearizability check reads whole to the end, for porcupine's page
// (WriteHTML), instead of checking it as it goes. Call it before the run
// forgets anything.
func (w *World) KeepCheckedHistory() { w.keepChecked = true }

// CheckLinearizability checks the client history with package lincheck,
// in the simulation's own order of events: an operation whose answer was
// recorded before another's request came first, even at the same instant.
// Writes that timed out, were canceled or are still pending are
// indeterminate: they may have taken effect at any time after they were
// sent, or never. Writes that failed never took effect and are left out,
// as are reads that did not return. Serializable reads and watches are not
// checked: they do not promise linearizability (stale serializable reads
// are reported in the transcript instead).
//
// The model holds values, not revisions or leases. So reads at a past
// revision, with a limit, counted or sorted are not checked, nor are lease
// and compaction requests; a transaction is checked by the branch it
// reports (its writes and its reads), not by its compares. Keys that a
// lease revocation may delete (any key put with a lease), and keys that a
// transaction with an unknown outcome may have written, are not checked
// at all: the model cannot know when, or whether, they changed.
//
// The check always answers, and the same way every time: past its budget
// of search steps it says "unknown", with the key, rather than run on.
//
// A run that forgets its history (ForgetHistory) checks its operations as
// it goes, key by key, in windows that end where nothing is in flight on
// the key (lincheck.Stream), and keeps only what is not yet decided. Its
// verdict is the same; Steps and Dropped are then those of every window,
// and an operation given to the check before a key became untracked
// stays checked.
func (w *World) CheckLinearizability() Linearizability {
	return w.checkOps(lincheck.Options{})
}

// CheckLinearizabilityWithin is CheckLinearizability with a budget of
// search steps for the whole history (and for each set of keys): the swarm
// runs thousands of checks and would rather say "unknown" about a rare
// hard history than spend seconds on it.
func (w *World) CheckLinearizabilityWithin(steps int) Linearizability {
	return w.checkOps(lincheck.Options{Budget: steps, PartBudget: steps})
}

// checkOps checks the world's operations, those given back (history_forget.go)
// and those it holds, without copying them: lincheck reads them in place.
// A run that forgets its history checked most as it went (each group's
// stream): then only what the check has not yet decided is checked now.
// Each raft group's operations are checked apart, from the store the
// group began with (groups.go): a cluster restored from a snapshot has
// lost the writes made after it, by the operator's choice.
func (w *World) checkOps(opts lincheck.Options) Linearizability {
	var live []*Op
	for _, op := range w.ops {
		if op != nil && !op.streamed {
			live = append(live, op)
		}
	}
	untracked := untrackedRanges(live)
	w.eachDone(func(d *doneOp) { untracked = append(untracked, d.untracked...) })
	res := Linearizability{}
	hs := make([]*checkHistory, len(w.groups))
	for g, gr := range w.groups {
		hs[g] = &checkHistory{w: w, initial: gr.initial}
	}
	keep := func(in *lincheck.Operation, checked bool, status OpStatus, touched []keyRange, g int32) bool {
		switch {
		case !checked || touchesAnyOf(touched, untracked) || touchesAnyOf(touched, w.groups[g].untracked):
			res.Skipped++
			return false
		case status != OpOK && in.Outcome != lincheck.Indeterminate:
			return false // a failed write never happened; an unanswered read says nothing
		}
		return true
	}
	i := 0
	w.eachDone(func(d *doneOp) {
		t := d.touched
		if t == nil {
			t = []keyRange{{d.in.Key, d.in.End}}
		}
		if keep(&d.in, d.checked, d.status, t, d.group) {
			hs[d.group].sel = append(hs[d.group].sel, int32(i))
		}
		i++
	})
	for _, op := range live {
		in, ok := checkedOp(op)
		if keep(&in, ok, op.Status, touched(op), op.group) {
			h := hs[op.group]
			h.sel = append(h.sel, int32(-1-len(h.live)))
			h.live, h.liveOps = append(h.live, in), append(h.liveOps, op)
		}
	}
	if w.streaming {
		untracked = append(untracked, w.untracked...)
		res.Checked += w.streamChecked
		res.Skipped += w.streamSkipped
	}
	var decided *Linearizability // the first group found not linearizable, or else unknown
	for g, gr := range w.groups {
		h := hs[g]
		res.Checked += h.Len()
		gres := Linearizability{history: h}
		var v lincheck.Verdict
		var blamed *doneOp
		if stream := gr.check; stream != nil {
			for _, r := range untracked {
				if !slices.Contains(w.untracked, r) {
					if stream == gr.check {
						stream = gr.check.Clone() // the run goes on: the check must not change
					}
					stream.Untrack(r.key, r.end)
				}
			}
			v, blamed = stream.Verdict(lincheck.Ops(h.live))
			gres.history = nil // checked as it went: not kept for porcupine's page
		} else {
			gopts := opts
			gopts.Initial = gr.initial
			v = lincheck.CheckHistory(h, gopts)
		}
		res.Dropped += v.Dropped
		res.Steps += v.Steps
		switch v.Result {
		case lincheck.Violation:
			gres.Result = "NOT linearizable"
			gres.key = v.Key
			switch {
			case blamed != nil:
				gres.op = blamed.brief()
			case gr.check != nil:
				gres.op = h.liveOps[v.Op]
			default:
				gres.op = h.brief(v.Op)
			}
		case lincheck.Unknown:
			gres.Result = "unknown"
			gres.key, gres.reason = v.Key, v.Reason
		}
		if gres.Result == "NOT linearizable" && (decided == nil || decided.Result != gres.Result) ||
			gres.Result == "unknown" && decided == nil {
			decided = &gres
		}
		if g == 0 {
			res.history = gres.history
		}
	}
	if decided == nil {
		res.OK, res.Result = true, "linearizable"
		return res
	}
	res.Result, res.key, res.op, res.reason = decided.Result, decided.key, decided.op, decided.reason
	res.history = decided.history
	res.Detail = res.DetailIn(i18n.En)
	return res
}

// checkHistory is the history lincheck checks, read in place: sel[i] is an
// operation given back (sel[i] >= 0, its index in the world's done) or one
// the world holds (-1-sel[i], its index in live).
type checkHistory struct {
	w       *World
	initial map[string]string // what the group's store began with
	sel     []int32
	live    []lincheck.Operation
	liveOps []*Op
}

func (h *checkHistory) Len() int { return len(h.sel) }

func (h *checkHistory) Op(i int) *lincheck.Operation {
	if j := h.sel[i]; j < 0 {
		return &h.live[-1-j]
	}
	return &h.w.doneAt(int(h.sel[i])).in
}

// brief returns enough of the i-th operation to describe it.
func (h *checkHistory) brief(i int) *Op {
	if j := h.sel[i]; j < 0 {
		return h.liveOps[-1-j]
	}
	return h.w.doneAt(int(h.sel[i])).brief()
}

// checkedOp returns what lincheck sees of op, or false when the check
// leaves op out (see CheckLinearizability).
func checkedOp(op *Op) (lincheck.Operation, bool) {
	key, end := op.Req.KeyRange()
	in := lincheck.Operation{Key: string(key), End: string(end), Call: uint64(op.StartEvent), Return: uint64(op.EndEvent)}
	unknown := outcomeUnknown(op)
	if unknown && op.Kind.IsWrite() {
		in.Outcome = lincheck.Indeterminate
	}
	switch op.Kind {
	case OpPut:
		p := op.Req.Put
		in.Kind, in.Value = lincheck.Put, string(p.Value)
		return in, p.Lease == 0 && !p.IgnoreValue && !p.IgnoreLease
	case OpDelete:
		in.Kind = lincheck.Delete
		return in, true
	case OpGet:
		in.Kind, in.KeysOnly = lincheck.Get, op.Req.Range.KeysOnly
		in.Result = kvs(op.KVs())
		return in, !op.Req.Range.Serializable && plainRead(op.Req.Range)
	case OpTxn:
		in.Kind = lincheck.Txn
		if op.Req.Txn == nil {
			return in, false
		}
		if unknown || op.Resp.Txn == nil {
			return in, !unknown // its keys are untracked; a failed one never happened
		}
		in.Steps = txnSteps(op.Req.Txn, op.Resp.Txn)
		return in, true
	}
	return in, false
}

// plainRead reports whether a read is of the current state, whole.
func plainRead(r *etcdserverpb.RangeRequest) bool {
	return r.Revision == 0 && r.Limit == 0 && !r.CountOnly && r.SortOrder == etcdserverpb.RangeRequest_NONE &&
		r.SortTarget == etcdserverpb.RangeRequest_KEY && r.MinModRevision == 0 && r.MaxModRevision == 0 &&
		r.MinCreateRevision == 0 && r.MaxCreateRevision == 0
}

func kvs(in []*KeyValue) []lincheck.KV {
	var out []lincheck.KV
	for _, kv := range in {
		out = append(out, lincheck.KV{Key: string(kv.Key), Value: string(kv.Value)})
	}
	return out
}

// txnSteps returns what a transaction did: the operations of the branch it
// reports. A read in it that is not of the current state, whole, is left
// out; so is one whose answer is missing (the answer is checked no more
// than its compares are).
func txnSteps(t *etcdserverpb.TxnRequest, resp *etcdserverpb.TxnResponse) []lincheck.Operation {
	branch := t.Success
	if !resp.Succeeded {
		branch = t.Failure
	}
	var steps []lincheck.Operation
	for i, o := range branch {
		switch {
		case o.GetRequestPut() != nil:
			p := o.GetRequestPut()
			steps = append(steps, lincheck.Operation{Kind: lincheck.Put, Key: string(p.Key), Value: string(p.Value)})
		case o.GetRequestDeleteRange() != nil:
			d := o.GetRequestDeleteRange()
			steps = append(steps, lincheck.Operation{Kind: lincheck.Delete, Key: string(d.Key), End: string(d.RangeEnd)})
		case o.GetRequestRange() != nil:
			rr := o.GetRequestRange()
			if i >= len(resp.Responses) || resp.Responses[i].GetResponseRange() == nil || !plainRead(rr) {
				continue
			}
			steps = append(steps, lincheck.Operation{Kind: lincheck.Get, Key: string(rr.Key), End: string(rr.RangeEnd),
				KeysOnly: rr.KeysOnly, Result: kvs(resp.Responses[i].GetResponseRange().Kvs)})
		}
	}
	return steps
}

// keyRange is [key, end) as etcd reads a range: end "" is key alone,
// "\x00" (mvcc.GteEnd) every key from key on. Strings, so that ranges
// compare.
type keyRange struct{ key, end string }

func rangeOf(key, end []byte) keyRange { return keyRange{string(key), string(end)} }

// inRange reports whether k is in the range [key, end).
func inRange(k, key, end string) bool { return mvcc.InRange([]byte(k), []byte(key), []byte(end)) }

func (r keyRange) overlaps(o keyRange) bool {
	if r.end == "" {
		return inRange(r.key, o.key, o.end)
	}
	if o.end == "" {
		return inRange(o.key, r.key, r.end)
	}
	all := string(mvcc.GteEnd)
	return (r.end == all || o.key < r.end) && (o.end == all || r.key < o.end)
}

// untrackedRanges returns the keys the check cannot follow: put with a
// lease (or taking the key's value or lease as it is), or written by a
// transaction whose outcome is unknown.
func untrackedRanges(ops []*Op) []keyRange {
	var out []keyRange
	for _, op := range ops {
		switch {
		case op.Kind == OpPut && (op.Req.Put.Lease != 0 || op.Req.Put.IgnoreValue || op.Req.Put.IgnoreLease):
			out = append(out, rangeOf(op.Req.Put.Key, nil))
		case op.Kind == OpTxn && op.Req.Txn != nil:
			unknown := outcomeUnknown(op)
			for _, branch := range [][]*etcdserverpb.RequestOp{op.Req.Txn.Success, op.Req.Txn.Failure} {
				for _, o := range branch {
					switch {
					case o.GetRequestPut() != nil && (unknown || o.GetRequestPut().Lease != 0 || o.GetRequestPut().IgnoreValue):
						out = append(out, rangeOf(o.GetRequestPut().Key, nil))
					case o.GetRequestDeleteRange() != nil && unknown:
						out = append(out, rangeOf(o.GetRequestDeleteRange().Key, o.GetRequestDeleteRange().RangeEnd))
					case o.GetRequestTxn() != nil:
						out = append(out, rangeOf(nil, mvcc.GteEnd)) // nested: give up on every key
					}
				}
			}
		}
	}
	return out
}

// touched returns the ranges op reads or writes (a transaction's compares
// and both its branches).
func touched(op *Op) []keyRange {
	if op.Kind != OpTxn || op.Req.Txn == nil {
		key, end := op.Req.KeyRange()
		return []keyRange{rangeOf(key, end)}
	}
	var mine []keyRange
	for _, c := range op.Req.Txn.Compare {
		mine = append(mine, rangeOf(c.Key, c.RangeEnd))
	}
	for _, branch := range [][]*etcdserverpb.RequestOp{op.Req.Txn.Success, op.Req.Txn.Failure} {
		for _, o := range branch {
			switch {
			case o.GetRequestPut() != nil:
				mine = append(mine, rangeOf(o.GetRequestPut().Key, nil))
			case o.GetRequestDeleteRange() != nil:
				mine = append(mine, rangeOf(o.GetRequestDeleteRange().Key, o.GetRequestDeleteRange().RangeEnd))
			case o.GetRequestRange() != nil:
				mine = append(mine, rangeOf(o.GetRequestRange().Key, o.GetRequestRange().RangeEnd))
			}
		}
	}
	return mine
}

// touchesAnyOf reports whether one of mine overlaps one of ranges.
func touchesAnyOf(mine, ranges []keyRange) bool {
	for _, m := range mine {
		for _, r := range ranges {
			if m.overlaps(r) {
				return true
			}
		}
	}
	return false
}

// WriteHTML writes porcupine's visualization of the history: one
// self-contained HTML page. The operations are placed by the order of
// events (an operation's call and return are its events' indexes), with
// writes of unknown outcome open to the end. NB: porcupine's own search
// draws the page, and on a long history it can take long; it is given 30
// seconds of wall time, and the page then shows what it found so far.
// The verdict never depends on it.
func (l Linearizability) WriteHTML(out io.Writer) error {
	if l.history == nil {
		return errors.New("the client history was checked as the run went, and not kept: a world that keeps it (KeepCheckedHistory) can write it")
	}
	var hist []porcupine.Operation
	clients := map[string]int{}
	for i := range l.history.Len() {
		op, in := l.history.brief(i), *l.history.Op(i)
		ret := int64(in.Return)
		if in.Outcome == lincheck.Indeterminate {
			ret = math.MaxInt64
		}
		id, ok := clients[op.Client]
		if !ok {
			id = len(clients)
			clients[op.Client] = id
		}
		hist = append(hist, porcupine.Operation{ClientId: id, Input: in, Call: int64(in.Call), Output: in.Result, Return: ret,
			Metadata: opNameIn(i18n.En, op) + ": " + op.Client + " via " + op.Member + ", " + op.Status.String()})
	}
	model := kvModel(l.history.initial)
	_, info := porcupine.CheckOperationsVerbose(model, hist, 30e9)
	return porcupine.Visualize(model, info, out)
}

// partitionByKey splits a history into one per key, unless an operation
// reads or writes more than one key (a range, a transaction): then the
// keys are not independent, and the history stays whole.
func partitionByKey(history []porcupine.Operation) [][]porcupine.Operation {
	var keys []string
	byKey := map[string][]porcupine.Operation{}
	for _, op := range history {
		in := op.Input.(lincheck.Operation)
		if in.End != "" || in.Kind == lincheck.Txn {
			return [][]porcupine.Operation{history}
		}
		if _, ok := byKey[in.Key]; !ok {
			keys = append(keys, in.Key)
		}
		byKey[in.Key] = append(byKey[in.Key], op)
	}
	out := make([][]porcupine.Operation, 0, len(keys))
	for _, k := range keys {
		out = append(out, byKey[k])
	}
	return out
}

// kvState is the model's key space: immutable, copied on write.
type kvState map[string]string

// stepModel applies one operation to st, and says whether its reads see
// what they returned: lincheck's semantics, for porcupine.
func stepModel(st kvState, in *lincheck.Operation) (bool, kvState) {
	switch in.Kind {
	case lincheck.Put:
		next := maps.Clone(st)
		next[in.Key] = in.Value
		return true, next
	case lincheck.Delete:
		next := maps.Clone(st)
		for k := range next {
			if inRange(k, in.Key, in.End) {
				delete(next, k)
			}
		}
		return true, next
	case lincheck.Txn:
		for i := range in.Steps {
			ok, next := stepModel(st, &in.Steps[i])
			if !ok {
				return false, st
			}
			st = next
		}
		return true, st
	}
	var want []lincheck.KV
	for _, k := range slices.Sorted(maps.Keys(st)) {
		if inRange(k, in.Key, in.End) {
			want = append(want, lincheck.KV{Key: k, Value: st[k]})
		}
	}
	if in.KeysOnly {
		return slices.EqualFunc(want, in.Result, func(a, b lincheck.KV) bool { return a.Key == b.Key }), st
	}
	return slices.Equal(want, in.Result), st
}

// kvModel is etcd's KV as porcupine's sequential specification, for the
// visualization, starting from initial.
func kvModel(initial map[string]string) porcupine.Model {
	return porcupine.Model{
		// A history of single-key operations is a register per key, each
		// linearizable on its own: porcupine checks (and shows) them apart,
		// which keeps the page of a long load from searching every
		// interleaving of every key at once.
		Partition: partitionByKey,
		Init: func() any {
			st := kvState{}
			maps.Copy(st, initial)
			return st
		},
		Step: func(state, input, _ any) (bool, any) {
			in := input.(lincheck.Operation)
			return stepModel(state.(kvState), &in)
		},
		Equal: func(a, b any) bool { return maps.Equal(a.(kvState), b.(kvState)) },
		DescribeOperation: func(input, _ any) string {
			in := input.(lincheck.Operation)
			switch in.Kind {
			case lincheck.Put:
				return fmt.Sprintf("put(%q, %q)", in.Key, in.Value)
			case lincheck.Delete:
				return fmt.Sprintf("delete(%q)", in.Key)
			case lincheck.Txn:
				return fmt.Sprintf("txn(%d steps)", len(in.Steps))
			}
			var vals []string
			for _, kv := range in.Result {
				vals = append(vals, kv.Key+"="+kv.Value)
			}
			return fmt.Sprintf("get(%q) → [%s]", in.Key, strings.Join(vals, " "))
		},
		DescribeOperationMetadata: func(info any) string {
			s, _ := info.(string)
			return s
		},
		DescribeState: func(state any) string {
			st := state.(kvState)
			var parts []string
			for _, k := range slices.Sorted(maps.Keys(st)) {
				parts = append(parts, k+"="+st[k])
			}
			return "{" + strings.Join(parts, ", ") + "}"
		},
	}
}
