package sim

import (
	"math"
	"slices"

	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/lincheck"
)

// doneOp is what a run that forgets its history keeps of a finished
// operation without a label once no event kept refers to it: what the
// linearizability check and the run's summary need, a third of an Op.
type doneOp struct {
	in      lincheck.Operation
	checked bool // the check looks at it (see checkedOp)
	stale   bool
	id      uint64
	group   int32
	rev     int64
	kind    OpKind
	status  OpStatus
	client  string
	member  string
	end     Time
	// What it reads and writes, and what it makes the check unable to
	// follow (see untrackedRanges): only for leases and transactions.
	touched, untracked []keyRange
}

// compactOps gives back the finished operations without a label whose IDs
// are below limit, keeping what the check needs of each (a doneOp): it
// goes to the check as it goes (check), or, with keepChecked, to done. An
// open watch or keep-alive stream is never given back; an operation still
// pending is looked at again next time; one with a label is kept, and
// given to the check once finished.
func (w *World) compactOps(limit uint64) {
	if !w.keepChecked {
		w.streaming = true
	}
	pending := w.compactLater[:0:0]
	try := func(i int) {
		op := w.ops[i]
		switch {
		case op == nil || op.Kind == OpWatch || op.isStream():
		case op.Status == OpPending:
			pending = append(pending, i)
		case op.Label != "":
			if w.streaming && !op.streamed {
				op.streamed = true
				w.toCheck(compactOp(op))
			}
		default:
			if d := compactOp(op); w.streaming {
				w.toCheck(d)
			} else {
				w.addDone(d)
			}
			if op.Stale {
				w.staleDone++
			}
			w.ops[i] = nil
		}
	}
	id := func(i int) uint64 { return uint64(w.opsBase + i + 1) }
	for _, i := range w.compactLater {
		if id(i) < limit {
			try(i)
		} else {
			pending = append(pending, i)
		}
	}
	for ; w.compactFrom < len(w.ops) && id(w.compactFrom) < limit; w.compactFrom++ {
		try(w.compactFrom)
	}
	w.compactLater = pending
	w.dropGivenBack()
	if w.streaming {
		before := w.notChecked()
		for _, g := range w.groups {
			if g.check != nil {
				g.check.Settle(before)
			}
		}
	}
}

// dropGivenBack lets ops start further on once most of what it holds
// are operations given back (nil), so that a long run does not keep 8
// bytes an operation for ever. NB: an operation kept whole (one with a
// label, a watch) keeps those after it.
func (w *World) dropGivenBack() {
	k := 0
	for k < w.compactFrom && w.ops[k] == nil {
		k++
	}
	if k < 4096 || 2*k < len(w.ops) {
		return
	}
	w.ops = append(make([]*Op, 0, len(w.ops)-k+len(w.ops)/4), w.ops[k:]...)
	w.opsBase += k
	w.compactFrom -= k
	for j := range w.compactLater {
		w.compactLater[j] -= k
	}
}

// notChecked returns the first event below which every operation that the
// check will ever be given has been: the earliest request of one still
// pending or not yet looked at.
func (w *World) notChecked() uint64 {
	first := uint64(math.MaxUint64)
	note := func(op *Op) {
		if op != nil && op.Kind != OpWatch && !op.isStream() && !op.streamed {
			first = min(first, uint64(op.StartEvent))
		}
	}
	for _, i := range w.compactLater {
		note(w.ops[i])
	}
	for _, op := range w.ops[w.compactFrom:] {
		note(op)
	}
	return first
}

// toCheck gives a finished operation to the check of a run that forgets its
// history, or counts it as left out (see CheckLinearizability).
func (w *World) toCheck(d doneOp) {
	for _, r := range d.untracked {
		if !slices.Contains(w.untracked, r) {
			w.untracked = append(w.untracked, r)
			for _, g := range w.groups {
				if g.check != nil {
					g.check.Untrack(r.key, r.end)
				}
			}
		}
	}
	g := w.groups[d.group]
	t := d.touched
	if t == nil {
		t = []keyRange{{d.in.Key, d.in.End}}
	}
	switch {
	case !d.checked || touchesAnyOf(t, w.untracked) || touchesAnyOf(t, g.untracked):
		w.streamSkipped++
	case d.status != OpOK && d.in.Outcome != lincheck.Indeterminate:
		// a failed write never happened; an unanswered read says nothing
	default:
		w.streamChecked++
		g.stream(w).Add(d.in, d)
	}
}

func compactOp(op *Op) doneOp {
	in, ok := checkedOp(op)
	d := doneOp{in: in, checked: ok, stale: op.Stale, id: op.ID, group: op.group, rev: op.Revision(), kind: op.Kind, status: op.Status,
		client: op.Client, member: op.Member, end: op.End}
	if op.Kind == OpTxn || op.Req.Lease() != 0 || op.Kind == OpPut && (op.Req.Put.IgnoreValue || op.Req.Put.IgnoreLease) {
		d.touched = touched(op)
		d.untracked = untrackedRanges([]*Op{op})
	}
	return d
}

// brief rebuilds enough of the operation to describe it.
func (d *doneOp) brief() *Op {
	op := &Op{ID: d.id, Kind: d.kind, Client: d.client, Member: d.member, End: d.end, Status: d.status}
	op.header.Revision = d.rev
	key, end := []byte(d.in.Key), []byte(d.in.End)
	switch d.kind {
	case OpPut:
		op.Req.Put = &etcdserverpb.PutRequest{Key: key, Value: []byte(d.in.Value)}
	case OpDelete:
		op.Req.DeleteRange = &etcdserverpb.DeleteRangeRequest{Key: key, RangeEnd: end}
	case OpGet:
		op.Req.Range = &etcdserverpb.RangeRequest{Key: key, RangeEnd: end, KeysOnly: d.in.KeysOnly}
		resp := &etcdserverpb.RangeResponse{Header: &op.header}
		for _, kv := range d.in.Result {
			resp.Kvs = append(resp.Kvs, &KeyValue{Key: []byte(kv.Key), Value: []byte(kv.Value)})
		}
		op.Resp.Range = resp
	case OpTxn:
		op.Req.Txn = &etcdserverpb.TxnRequest{}
	}
	return op
}

// StaleReads counts the serializable reads marked stale.
func (w *World) StaleReads() int {
	n := w.staleDone
	for _, op := range w.ops {
		if op != nil && op.Stale {
			n++
		}
	}
	return n
}

// doneChunk is how many doneOps a chunk of World.done holds: it grows a
// chunk at a time, never copying what it holds.
const doneChunk = 4096

func (w *World) addDone(d doneOp) {
	if len(w.done) == 0 || len(w.done[len(w.done)-1]) == doneChunk {
		w.done = append(w.done, make([]doneOp, 0, doneChunk))
	}
	last := &w.done[len(w.done)-1]
	*last = append(*last, d)
}

func (w *World) doneAt(i int) *doneOp { return &w.done[i/doneChunk][i%doneChunk] }

// doneLen returns how many operations were given back.
func (w *World) doneLen() int {
	if len(w.done) == 0 {
		return 0
	}
	return (len(w.done)-1)*doneChunk + len(w.done[len(w.done)-1])
}

// eachDone calls f with every operation given back, in order.
func (w *World) eachDone(f func(*doneOp)) {
	for _, chunk := range w.done {
		for i := range chunk {
			f(&chunk[i])
		}
	}
}

// cloneDone copies done for a fork: full chunks are never written again, so
// they are shared; the last, which grows, is copied.
func cloneDone(done [][]doneOp) [][]doneOp {
	out := slices.Clone(done)
	if n := len(out); n > 0 {
		out[n-1] = append(make([]doneOp, 0, doneChunk), out[n-1]...)
	}
	return out
}
