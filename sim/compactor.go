package sim

import (
	"strconv"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/server"
)

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
