package sim

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/raftsim/raftsim/mvcc"
)

// Linearizability is the verdict on a run's client history.
type Linearizability struct {
	OK      bool
	Result  string // "linearizable", "NOT linearizable" or "unknown (timed out)"
	Checked int    // operations checked
	Skipped int    // serializable reads and watches, which promise less
	info    porcupine.LinearizationInfo
	model   porcupine.Model
}

// kvInput is one operation as the model sees it. A range is [key, end);
// end "" is the key alone.
type kvInput struct {
	kind     OpKind
	key      string
	value    string
	end      string
	keysOnly bool
	txn      *mvcc.TxnRequest
}

// kvOutput is what a get or a transaction returned.
type kvOutput struct {
	kvs []KeyValue
	txn *mvcc.TxnResponse
}

// inRange reports whether k is in [key, end).
func inRange(k, key, end string) bool {
	switch end {
	case "":
		return k == key
	case mvcc.GteEnd:
		return k >= key
	}
	return k >= key && k < end
}

// rangeOf returns what the model sees of a range in st.
func rangeOf(st kvState, key, end string) []KeyValue {
	var out []KeyValue
	for _, k := range slices.Sorted(maps.Keys(st)) {
		if inRange(k, key, end) {
			out = append(out, KeyValue{Key: k, Value: st[k]})
		}
	}
	return out
}

// sameRange compares what a range returned with what the model holds;
// keys only, when the read asked for keys only.
func sameRange(want, got []KeyValue, keysOnly bool) bool {
	if !keysOnly {
		return sameKVs(want, got)
	}
	return slices.EqualFunc(want, got, func(a, b KeyValue) bool { return a.Key == b.Key })
}

// stepTxn applies a transaction whose branch is known from its answer:
// the branch's writes change the state, its reads must match it. The
// compares themselves are not checked: the model holds no revisions.
func stepTxn(st kvState, t *mvcc.TxnRequest, resp *mvcc.TxnResponse) (bool, kvState) {
	ops := t.Success
	if !resp.Succeeded {
		ops = t.Failure
	}
	next := maps.Clone(st)
	for i, o := range ops {
		switch {
		case o.RequestPut != nil:
			next[o.RequestPut.Key] = o.RequestPut.Value
		case o.RequestDeleteRange != nil:
			for k := range next {
				if inRange(k, o.RequestDeleteRange.Key, o.RequestDeleteRange.RangeEnd) {
					delete(next, k)
				}
			}
		case o.RequestRange != nil:
			rr := o.RequestRange
			if i >= len(resp.Responses) || resp.Responses[i].ResponseRange == nil {
				return false, st
			}
			if rr.Revision != 0 || rr.Limit != 0 || rr.CountOnly || rr.SortOrder != mvcc.SortNone || rr.SortTarget != mvcc.SortByKey {
				continue // not a plain read of the current state
			}
			var got []KeyValue
			for _, kv := range resp.Responses[i].ResponseRange.Kvs {
				got = append(got, *kv)
			}
			if !sameRange(rangeOf(next, rr.Key, rr.RangeEnd), got, rr.KeysOnly) {
				return false, st
			}
		}
	}
	return true, next
}

// kvState is the model's key space: immutable, copied on write.
type kvState map[string]string

// kvModel is etcd's KV as a sequential specification. Without prefix
// operations the history is checked key by key, which is much faster.
func kvModel(partition bool) porcupine.Model {
	m := porcupine.Model{
		Init: func() any { return kvState{} },
		Step: func(state, input, output any) (bool, any) {
			st, in := state.(kvState), input.(kvInput)
			switch in.kind {
			case OpPut:
				next := maps.Clone(st)
				next[in.key] = in.value
				return true, next
			case OpDelete:
				next := maps.Clone(st)
				for k := range next {
					if inRange(k, in.key, in.end) {
						delete(next, k)
					}
				}
				return true, next
			case OpGet:
				return sameRange(rangeOf(st, in.key, in.end), output.(kvOutput).kvs, in.keysOnly), st
			case OpTxn:
				return stepTxn(st, in.txn, output.(kvOutput).txn)
			}
			return false, st
		},
		Equal: func(a, b any) bool { return maps.Equal(a.(kvState), b.(kvState)) },
		DescribeOperation: func(input, output any) string {
			in := input.(kvInput)
			switch in.kind {
			case OpPut:
				return fmt.Sprintf("put(%q, %q)", in.key, in.value)
			case OpDelete:
				return fmt.Sprintf("delete(%q)", in.key)
			case OpTxn:
				return "txn " + describeTxn(in.txn)
			}
			var vals []string
			if out, ok := output.(kvOutput); ok {
				for _, kv := range out.kvs {
					vals = append(vals, kv.Key+"="+kv.Value)
				}
			}
			return fmt.Sprintf("get(%q) → [%s]", in.key, strings.Join(vals, " "))
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
	if partition {
		m.Partition = func(h []porcupine.Operation) [][]porcupine.Operation {
			byKey := map[string][]porcupine.Operation{}
			for _, op := range h {
				in := op.Input.(kvInput)
				k := in.key
				if in.txn != nil {
					k = txnKey(in.txn)
				}
				byKey[k] = append(byKey[k], op)
			}
			var parts [][]porcupine.Operation
			for _, k := range slices.Sorted(maps.Keys(byKey)) {
				parts = append(parts, byKey[k])
			}
			return parts
		}
	}
	return m
}

// CheckLinearizability checks the client history with porcupine. Writes
// that timed out, were canceled or are still pending are indeterminate: they may have
// taken effect at any time after they were sent, or never, so they are
// given an unbounded return time. Writes that failed never took effect and
// are left out, as are reads that did not return. Serializable reads and
// watches are not checked: they do not promise linearizability (stale
// serializable reads are reported in the transcript instead).
//
// The model holds values, not revisions or leases. So reads at a past
// revision, with a limit, counted or sorted are not checked, nor are lease
// and compaction requests; a transaction is checked by the branch it
// reports (its writes and its reads), not by its compares. Keys that a
// lease revocation may delete (any key put with a lease), and keys that a
// transaction with an unknown outcome may have written, are not checked
// at all: the model cannot know when, or whether, they changed.
func (w *World) CheckLinearizability() Linearizability {
	var hist []porcupine.Operation
	res := Linearizability{}
	partition := true
	clients := map[string]int{}
	untracked := w.untrackedRanges()
	for _, op := range w.ops {
		in, ok := checkedInput(op)
		if !ok || touchesAny(op, untracked) {
			res.Skipped++
			continue
		}
		if in.end != "" || in.kind == OpTxn && txnKeys(op.Txn) > 1 {
			partition = false
		}
		end := int64(op.End)
		switch {
		case op.Status == OpOK:
		case op.Kind.IsWrite() && (op.Status == OpTimeout || op.Status == OpPending || op.Canceled):
			if op.Kind == OpTxn {
				continue // its keys are untracked
			}
			end = math.MaxInt64
		default:
			continue // a failed write never happened; an unanswered read says nothing
		}
		id, ok := clients[op.Client]
		if !ok {
			id = len(clients)
			clients[op.Client] = id
		}
		hist = append(hist, porcupine.Operation{ClientId: id, Input: in, Call: int64(op.Start),
			Output: kvOutput{kvs: op.KVs, txn: op.TxnResp}, Return: end, Metadata: opName(op) + ": " + op.Client + " via " + op.Member + ", " + op.Status.String()})
	}
	res.Checked = len(hist)
	res.model = kvModel(partition)
	// No timeout: a wall-clock limit would make the verdict depend on the
	// machine. Key-by-key partitions keep real histories quick to check.
	result, info := porcupine.CheckOperationsVerbose(res.model, hist, 0)
	res.info = info
	switch result {
	case porcupine.Ok:
		res.OK, res.Result = true, "linearizable"
	case porcupine.Illegal:
		res.Result = "NOT linearizable"
	default:
		res.Result = "unknown (the checker timed out)"
	}
	return res
}

// WriteHTML writes porcupine's visualization of the history: one
// self-contained HTML page.
func (l Linearizability) WriteHTML(out io.Writer) error {
	return porcupine.Visualize(l.model, l.info, out)
}

// checkedInput returns what the model sees of op, or false when the check
// leaves op out (see CheckLinearizability).
func checkedInput(op *Op) (kvInput, bool) {
	in := kvInput{kind: op.Kind, key: op.Key, value: op.Value, end: op.RangeEnd, keysOnly: op.KeysOnly, txn: op.Txn}
	if op.Prefix {
		in.end = prefixEnd(op.Key)
	}
	switch op.Kind {
	case OpPut:
		return in, op.Lease == 0
	case OpDelete:
		return in, true
	case OpGet:
		plain := op.Rev == 0 && op.Limit == 0 && !op.CountOnly && op.SortOrder == mvcc.SortNone && op.SortTarget == mvcc.SortByKey
		return in, !op.Serializable && plain
	case OpTxn:
		return in, !op.Serializable
	}
	return in, false
}

// keyRange is [key, end) as inRange reads it.
type keyRange struct{ key, end string }

func (r keyRange) overlaps(o keyRange) bool {
	if r.end == "" {
		return inRange(r.key, o.key, o.end)
	}
	if o.end == "" {
		return inRange(o.key, r.key, r.end)
	}
	return (r.end == mvcc.GteEnd || o.key < r.end) && (o.end == mvcc.GteEnd || r.key < o.end)
}

// untrackedRanges returns the keys the check cannot follow: put with a
// lease, or written by a transaction whose outcome is unknown.
func (w *World) untrackedRanges() []keyRange {
	var out []keyRange
	for _, op := range w.ops {
		switch {
		case op.Kind == OpPut && op.Lease != 0:
			out = append(out, keyRange{op.Key, ""})
		case op.Kind == OpTxn && op.Txn != nil:
			unknown := op.Status == OpTimeout || op.Status == OpPending || op.Canceled
			for _, branch := range [][]*mvcc.RequestOp{op.Txn.Success, op.Txn.Failure} {
				for _, o := range branch {
					switch {
					case o.RequestPut != nil && (unknown || o.RequestPut.Lease != 0):
						out = append(out, keyRange{o.RequestPut.Key, ""})
					case o.RequestDeleteRange != nil && unknown:
						out = append(out, keyRange{o.RequestDeleteRange.Key, o.RequestDeleteRange.RangeEnd})
					case o.RequestTxn != nil:
						out = append(out, keyRange{"", mvcc.GteEnd}) // nested: give up on every key
					}
				}
			}
		}
	}
	return out
}

// touchesAny reports whether op reads or writes a key in one of ranges.
func touchesAny(op *Op, ranges []keyRange) bool {
	if len(ranges) == 0 {
		return false
	}
	var mine []keyRange
	if op.Kind == OpTxn && op.Txn != nil {
		for _, c := range op.Txn.Compare {
			mine = append(mine, keyRange{c.Key, c.RangeEnd})
		}
		for _, branch := range [][]*mvcc.RequestOp{op.Txn.Success, op.Txn.Failure} {
			for _, o := range branch {
				switch {
				case o.RequestPut != nil:
					mine = append(mine, keyRange{o.RequestPut.Key, ""})
				case o.RequestDeleteRange != nil:
					mine = append(mine, keyRange{o.RequestDeleteRange.Key, o.RequestDeleteRange.RangeEnd})
				case o.RequestRange != nil:
					mine = append(mine, keyRange{o.RequestRange.Key, o.RequestRange.RangeEnd})
				}
			}
		}
	} else {
		end := op.RangeEnd
		if op.Prefix {
			end = prefixEnd(op.Key)
		}
		mine = []keyRange{{op.Key, end}}
	}
	for _, m := range mine {
		for _, r := range ranges {
			if m.overlaps(r) {
				return true
			}
		}
	}
	return false
}

// txnKeys counts the keys and ranges a transaction touches: more than one
// means the history cannot be checked key by key.
func txnKeys(t *mvcc.TxnRequest) int {
	seen := map[keyRange]bool{}
	add := func(r keyRange) {
		if r.end != "" {
			r.key = "\x00range:" + r.key // a range counts as more than one key
			seen[keyRange{}] = true
		}
		seen[r] = true
	}
	for _, c := range t.Compare {
		add(keyRange{c.Key, c.RangeEnd})
	}
	for _, branch := range [][]*mvcc.RequestOp{t.Success, t.Failure} {
		for _, o := range branch {
			switch {
			case o.RequestPut != nil:
				add(keyRange{o.RequestPut.Key, ""})
			case o.RequestDeleteRange != nil:
				add(keyRange{o.RequestDeleteRange.Key, o.RequestDeleteRange.RangeEnd})
			case o.RequestRange != nil:
				add(keyRange{o.RequestRange.Key, o.RequestRange.RangeEnd})
			default:
				seen[keyRange{"\x00nested", ""}], seen[keyRange{"\x00nested2", ""}] = true, true
			}
		}
	}
	return len(seen)
}

// txnKey is the one key of a transaction that touches one key.
func txnKey(t *mvcc.TxnRequest) string {
	for _, c := range t.Compare {
		return c.Key
	}
	for _, branch := range [][]*mvcc.RequestOp{t.Success, t.Failure} {
		for _, o := range branch {
			switch {
			case o.RequestPut != nil:
				return o.RequestPut.Key
			case o.RequestDeleteRange != nil:
				return o.RequestDeleteRange.Key
			case o.RequestRange != nil:
				return o.RequestRange.Key
			}
		}
	}
	return ""
}
