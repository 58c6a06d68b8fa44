package sim

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"
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

// kvInput is one operation as the model sees it.
type kvInput struct {
	kind   OpKind
	key    string
	value  string
	prefix bool
}

// kvOutput is what a get returned.
type kvOutput struct {
	kvs []KeyValue
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
					if k == in.key || in.prefix && strings.HasPrefix(k, in.key) {
						delete(next, k)
					}
				}
				return true, next
			case OpGet:
				out := output.(kvOutput)
				var want []KeyValue
				for _, k := range slices.Sorted(maps.Keys(st)) {
					if k == in.key || in.prefix && strings.HasPrefix(k, in.key) {
						want = append(want, KeyValue{Key: k, Value: st[k]})
					}
				}
				return sameKVs(want, out.kvs), st
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
				k := op.Input.(kvInput).key
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
func (w *World) CheckLinearizability() Linearizability {
	var hist []porcupine.Operation
	res := Linearizability{}
	partition := true
	clients := map[string]int{}
	for _, op := range w.ops {
		if op.Kind == OpWatch || op.Kind == OpGet && op.Serializable {
			res.Skipped++
			continue
		}
		in := kvInput{kind: op.Kind, key: op.Key, value: op.Value, prefix: op.Prefix}
		if op.Prefix {
			partition = false
		}
		end := int64(op.End)
		switch {
		case op.Status == OpOK:
		case op.Kind != OpGet && (op.Status == OpTimeout || op.Status == OpPending || op.Canceled):
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
			Output: kvOutput{kvs: op.KVs}, Return: end, Metadata: opName(op) + ": " + op.Client + " via " + op.Member + ", " + op.Status.String()})
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
