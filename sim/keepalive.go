package sim

import "time"

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
