package sim

import (
	"fmt"
	"strconv"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/mvcc"
)

// Watches: a member's watch streams, as etcd's api/v3rpc/watch.go, and
// its leader monitor (etcdserver's monitorLeader), which cancels them.

// startWatch opens a watch at the member (server.Watches): it answers
// that the watch is created, then the member's watchable store catches it
// up from its start revision. (A watch that requires a leader at a member
// that knows none was refused before, by server.Admit.)
func (m *member) startWatch(op *Op) {
	if why := m.srv.WatchPermitted(&op.Req, m.localNow()); why != "" {
		m.w.reply(m, op, reply{status: OpError, err: why, rev: m.srv.KV.Store.Rev()})
		return
	}
	m.w.reply(m, op, reply{status: OpOK, watch: true, rev: m.srv.KV.Store.Rev()})
	m.srv.Watches.Start(op, op.Req.Watch, op.RequireLeader)
	if op.Req.Watch.ProgressNotify {
		m.startProgressTimer(op)
	}
}

// watchSink sends what a member's watch streams send (server.WatchSink)
// to their clients: each event of a response on its own, after the
// client latency, and a cancellation as the watch's error.
type watchSink struct{ m *member }

func (s watchSink) Send(op *Op, n int, r mvcc.WatchResponse) {
	for i, ev := range r.Events {
		we := WatchEvent{Event: ev, Response: n, last: i == len(r.Events)-1}
		we.Header.Revision = r.Revision
		s.m.w.watchEvent(s.m, op, we)
	}
}

func (s watchSink) Cancel(op *Op, err string, compact int64) {
	s.m.w.reply(s.m, op, reply{status: OpError, err: err, compact: compact})
}

// Progress notifications, as etcd v3.6 sends them (server.Watches over
// mvcc.WatchableStore.Synced): a watch response with no events whose
// header carries the store's current revision, sent only while every
// watch it speaks for is synced, so that the client knows it has every
// event up to that revision.
//
//   - A progress request (CmdWatchProgress, clientv3's RequestProgress)
//     names the watches of one client stream; it reaches their member
//     after the client latency, and one notification (watch ID -1) comes
//     back on the first of them, or none while one is not synced.
//   - A watch created with progress_notify gets one of its own every
//     ProgressNotifyInterval (plus etcd's jitter, up to a tenth of it,
//     drawn from the seed) in which it was sent no events, if it is
//     synced.

// ProgressNotifyInterval is etcd's --watch-progress-notify-interval
// default.
const ProgressNotifyInterval = 10 * time.Minute

// Progress is a progress notification a watch's client received.
type Progress struct {
	At     Time // when the client received it
	Header etcdserverpb.ResponseHeader
	// Response numbers it among the watch's responses (as WatchEvent's).
	Response int
	// After is how many of the watch's events the client had received
	// before it.
	After int
	// All: the answer to a progress request, for every watch of the
	// stream (watch ID -1); else the watch's periodic notification.
	All bool
}

// Progress returns the progress notifications the watch's client has
// received, in order.
func (op *Op) Progress() []Progress { return op.rareOrZero().progress }

// watchProgress sends a progress request for the watches labelled, the
// watches of one client stream, to the member they watch at.
func (w *World) watchProgress(labels []string) error {
	if len(labels) == 0 {
		return fmt.Errorf("watch_progress needs the labels of the watches of a stream")
	}
	var ops []*Op
	for _, l := range labels {
		op := w.Op(l)
		if op == nil {
			return fmt.Errorf("no operation labelled %q", l)
		}
		if op.Kind != OpWatch {
			return fmt.Errorf("%s is not a watch", l)
		}
		if len(ops) > 0 && op.Member != ops[0].Member {
			return fmt.Errorf("%s watches at %s and %s at %s: a stream is at one member", labels[0], ops[0].Member, l, op.Member)
		}
		ops = append(ops, op)
	}
	m := w.byName[ops[0].Member]
	if m == nil {
		return fmt.Errorf("%s has not reached a member", labels[0])
	}
	e := w.sched.after(w.now, Time(w.cfg.ClientLatency))
	e.kind, e.node, e.op, e.inc, e.rep = evProgressRequest, m.id, ops[0], m.inc, &reply{stream: ops}
	return nil
}

// progressRequestArrives is a progress request reaching m.
func (m *member) progressRequestArrives(e *event) {
	if m.up {
		m.srv.Watches.RequestProgress(e.rep.stream)
	}
}

// startProgressTimer starts the periodic progress timer of a watch
// created with progress_notify at m: etcd's interval plus a jitter of up
// to a tenth of it (GetProgressReportInterval), drawn once for the
// stream, from the seed and the operation.
func (m *member) startProgressTimer(op *Op) {
	jitter := time.Duration(stream(m.w.cfg.Seed, "progress/"+strconv.FormatUint(op.ID, 10)).Int64N(int64(ProgressNotifyInterval / 10)))
	op.rare().progressEvery = Time(ProgressNotifyInterval + jitter)
	m.scheduleProgressTick(op)
}

func (m *member) scheduleProgressTick(op *Op) {
	e := m.w.sched.push(m.w.now + op.rare().progressEvery)
	e.kind, e.node, e.op, e.inc = evProgressTick, m.id, op, m.inc
}

// progressTick is a watch's progress timer firing at m: it goes on while
// the member has the watch.
func (m *member) progressTick(op *Op) {
	if !m.up || !m.srv.Watches.ProgressNotify(op) {
		return
	}
	m.srv.Watches.ProgressTick(op)
	m.scheduleProgressTick(op)
}

func (s watchSink) Progress(op *Op, n int, rev int64, all bool) {
	m := s.m
	p := &Progress{Response: n, All: all,
		Header: etcdserverpb.ResponseHeader{ClusterId: m.clusterID(), MemberId: m.memberID, Revision: rev, RaftTerm: m.hard.GetTerm()}}
	e := m.w.sched.after(m.w.now, Time(m.w.cfg.ClientLatency))
	e.kind, e.node, e.op, e.rep = evWatchArrive, m.id, op, &reply{progress: p}
}

// progressArrives is a progress notification reaching op's client from
// member node.
func (w *World) progressArrives(op *Op, node uint64, p Progress) {
	if op.Status == OpOK {
		p.At = w.now
		st := op.rare()
		p.After = len(st.events)
		st.progress = append(st.progress, p)
		w.record(Event{Kind: EvWatch, Op: op.ID, Node: node, Text: "progress notify: " + strconv.FormatInt(p.Header.Revision, 10)})
	}
	if m := w.members[node-1]; m.up {
		m.srv.Watches.Received(op)
	}
}
