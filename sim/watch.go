package sim

import "github.com/raftsim/raftsim/mvcc"

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
