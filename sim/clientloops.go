package sim

import (
	"strconv"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/server"
)

// The loops clients run on their own timers: clientv3's lease keep-alive
// stream, and kube-apiserver's compactor (below).

// keepAliveRetry is how often clientv3 sends a keep-alive that is due
// (its sendKeepAliveLoop runs every 500ms).
const keepAliveRetry = 500 * time.Millisecond

// startKeepAlive starts a keep-alive stream, as clientv3's KeepAlive: the
// client sends a keep-alive now, then every TTL/3 after each answer, and
// again every 500ms while one goes unanswered. The stream ends when the
// leader answers that the lease is gone, or when no answer has renewed it
// for its TTL (clientv3's deadline): "lease expired or revoked".
func (w *World) startKeepAlive(stream *Op) {
	stream.Repeat = true
	stream.ID = w.OpCount() + 1
	stream.Start = w.now
	w.ops = append(w.ops, stream)
	w.recordOp(EvRequest, stream, w.endpointOf(stream))
	stream.rare().keepAliveDeadline = Time(-1)
	w.sendKeepAlive(stream)
}

// sendKeepAlive sends one keep-alive of the stream as its own request.
func (w *World) sendKeepAlive(stream *Op) {
	if !stream.streamOpen() {
		return
	}
	one := &Op{Client: stream.Client, via: stream.via, Kind: OpLeaseKeepAlive, Req: stream.Req}
	one.after = func(one *Op) { w.keepAliveAnswered(stream, one) }
	w.submit(one)
}

func (op *Op) streamOpen() bool {
	return !op.Canceled && (op.Status == OpPending || op.Status == OpOK)
}

func (w *World) keepAliveAnswered(stream, one *Op) {
	if !stream.streamOpen() {
		return
	}
	node := w.endpointOf(one)
	switch {
	case one.Status == OpOK:
		ttl := one.Resp.LeaseKeepAlive.TTL
		stream.Resp, stream.header = one.Resp, one.header
		st := stream.rare()
		st.keepAlives = append(st.keepAlives, one.Resp.LeaseKeepAlive)
		st.keepAliveDeadline = w.now.Add(time.Duration(ttl) * time.Second)
		if stream.Status == OpPending {
			stream.Status = OpOK
			w.record(Event{Kind: EvReply, Op: stream.ID, Node: node, Text: "ok: keeping the lease alive"})
		}
		w.keepAliveLater(stream, time.Duration(ttl)*time.Second/3)
		// clientv3's deadlineLoop: the lease is given up for lost if no
		// answer renews it before its TTL runs out.
		e := w.sched.after(w.now, Time(time.Duration(ttl)*time.Second))
		e.kind, e.op, e.node, e.flag = evKeepAlive, stream, w.endpointOf(stream), true
	case one.Err == "etcdserver: requested lease not found":
		w.endKeepAlive(stream, node)
	default:
		if stream.rareOrZero().keepAliveDeadline >= 0 && w.now >= stream.rareOrZero().keepAliveDeadline {
			w.endKeepAlive(stream, node)
			return
		}
		w.keepAliveLater(stream, keepAliveRetry)
	}
}

func (w *World) endKeepAlive(stream *Op, node uint64) {
	stream.Status, stream.Err, stream.End = OpError, "lease expired or revoked", w.now
	w.record(Event{Kind: EvReply, Op: stream.ID, Node: node, Text: "keep-alive ended: " + stream.Err})
}

func (w *World) keepAliveLater(stream *Op, d time.Duration) {
	e := w.sched.after(w.now, Time(d))
	e.kind, e.op, e.node = evKeepAlive, stream, w.endpointOf(stream)
}

// keepAliveDeadline ends the stream if its lease's TTL has run out since
// the last answer, as clientv3's deadlineLoop does.
func (w *World) keepAliveDeadline(stream *Op) {
	if stream.streamOpen() && stream.rareOrZero().keepAliveDeadline >= 0 && w.now >= stream.rareOrZero().keepAliveDeadline {
		w.endKeepAlive(stream, w.endpointOf(stream))
	}
}

// compactRevKey is the key kube-apiserver's compactors agree through.
const compactRevKey = "compact_rev_key"

// compactor is one kube-apiserver's etcd compactor
// (k8s.io/apiserver/pkg/storage/etcd3/compact.go): every interval it
// records the current revision in compact_rev_key with a transaction on the
// key's version, and, if its transaction won, compacts at the revision it
// recorded the interval before. The version check makes the apiservers of
// a cluster compact once an interval between them, and compaction always
// lags one interval, so that a watch has an interval to catch up.
type compactor struct {
	client  string
	version int64 // the version of compact_rev_key it last saw
	rev     int64 // the revision it recorded last; 0 on bootstrap
}

// startCompactors starts a compactor for each kube-apiserver of the
// topology, when CompactionInterval is set.
func (w *World) startCompactors() {
	if w.cfg.CompactionInterval <= 0 || w.cfg.Topology == "" {
		return
	}
	for _, c := range w.clients {
		if len(c.cfg.Name) > len("apiserver-") && c.cfg.Name[:len("apiserver-")] == "apiserver-" {
			w.compactors = append(w.compactors, &compactor{client: c.cfg.Name})
			w.scheduleCompactor(len(w.compactors) - 1)
		}
	}
}

func (w *World) scheduleCompactor(i int) {
	e := w.sched.after(w.now, Time(w.cfg.CompactionInterval))
	e.kind, e.peer = evCompactor, uint64(i)
}

func (w *World) compactorFires(e *event) {
	i := int(e.peer)
	c := w.compactors[i]
	key := []byte(compactRevKey)
	txn := &etcdserverpb.TxnRequest{
		Compare: []*etcdserverpb.Compare{{Key: key, Target: etcdserverpb.Compare_VERSION, Result: etcdserverpb.Compare_EQUAL,
			TargetUnion: &etcdserverpb.Compare_Version{Version: c.version}}},
		Success: []*etcdserverpb.RequestOp{{Request: &etcdserverpb.RequestOp_RequestPut{
			RequestPut: &etcdserverpb.PutRequest{Key: key, Value: []byte(strconv.FormatInt(c.rev, 10))}}}},
		Failure: []*etcdserverpb.RequestOp{{Request: &etcdserverpb.RequestOp_RequestRange{
			RequestRange: &etcdserverpb.RangeRequest{Key: key}}}},
	}
	op := &Op{Client: c.client, Kind: OpTxn, Req: server.Request{Txn: txn}}
	op.after = func(op *Op) { w.compactorTxnDone(i, op) }
	w.submit(op)
}

func (w *World) compactorTxnDone(i int, op *Op) {
	c := w.compactors[i]
	if op.Status != OpOK || op.Resp.Txn == nil {
		w.scheduleCompactor(i) // kube-apiserver logs the error and tries again next interval
		return
	}
	resp := op.Resp.Txn
	curRev := resp.Header.Revision
	if !resp.Succeeded {
		if rr := resp.Responses[0].GetResponseRange(); rr != nil && len(rr.Kvs) > 0 {
			c.version = rr.Kvs[0].Version
		}
		c.rev = curRev
		w.scheduleCompactor(i)
		return
	}
	c.version++
	prev := c.rev
	c.rev = curRev
	if prev == 0 { // kube-apiserver does not compact on bootstrap
		w.scheduleCompactor(i)
		return
	}
	cop := &Op{Client: c.client, Kind: OpCompact, Req: server.Request{Compaction: &etcdserverpb.CompactionRequest{Revision: prev}}}
	cop.after = func(*Op) { w.scheduleCompactor(i) }
	w.submit(cop)
}

// CompactionIntervalDefault is kube-apiserver's --etcd-compaction-interval.
const CompactionIntervalDefault = 5 * time.Minute
