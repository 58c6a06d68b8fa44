package sim

import (
	"bytes"
	"fmt"
	"net/url"
	"slices"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"google.golang.org/grpc/codes"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/rpcerr"
	"github.com/raftsim/raftsim/server"
)

// client is a long-lived clientv3 client. Like clientv3 since v3.4 it
// balances its requests over all its endpoints with gRPC's round robin:
// each request (and each retry) goes to the next endpoint whose
// connection is up, so a member that is down is skipped without a
// refusal.
type client struct {
	cfg       ClientConfig
	endpoints []uint64
	next      int // round robin: where the next pick starts
}

// clientRetryBackoff is clientv3's wait before it retries a request
// (defaultBackoffWaitBetween; clientv3 adds up to 10% of jitter, which the
// simulation leaves out).
const clientRetryBackoff = 25 * time.Millisecond

// pick returns the endpoint (an index into c.endpoints) that c's balancer
// sends the next attempt to: the next one, in round-robin order, whose
// member is up. With none up it returns the next in order all the same:
// the request is refused there and fails over.
func (w *World) pick(c *client) int {
	n := len(c.endpoints)
	for i := range n {
		j := (c.next + i) % n
		if w.members[c.endpoints[j]-1].up {
			c.next = (j + 1) % n
			return j
		}
	}
	j := c.next % n
	c.next = (j + 1) % n
	return j
}

// shouldRetry is clientv3's retry interceptor (isSafeRetry): a learner's
// refusal is retried when there are other endpoints; otherwise a
// repeatable call is retried on a gRPC Unavailable error (no leader, the
// leader changed, a broken connection, a server-side timeout).
func (w *World) shouldRetry(op *Op, err string) bool {
	if op.Kind == OpWatch || op.Repeat || op.Canceled || op.external {
		return false
	}
	if err == server.ErrNotForLearner {
		c := w.client(op.Client)
		return op.via == 0 && c != nil && len(c.endpoints) > 1
	}
	return op.Kind.repeatable() && unavailable(err)
}

// unavailable reports whether etcd sends the error with gRPC code
// Unavailable, the code clientv3's retry interceptor retries on: its
// status as rpcerr gives it, from etcd's rpctypes (a broken connection's
// is a gRPC status already).
func unavailable(err string) bool { return rpcerr.Status(err).Code() == codes.Unavailable }

// reply is what a member sends back to a client.
type reply struct {
	status  OpStatus
	err     string
	resp    server.Response
	applied uint64
	watch   bool       // a watch was created
	refused bool       // the member was down: the client may fail over
	event   WatchEvent // evWatchArrive: what a watch reports
	compact int64      // a watch cancelled by compaction: the compaction revision
	member  uint64     // the answering member's etcd ID
	term    uint64     // and its raft term then
	rev     int64      // the store revision, for an answer with no response of its own
	members []ClusterMember
	alarms  []*etcdserverpb.AlarmMember
	// progress: a progress notification (evWatchArrive); stream: the
	// watches a progress request asks for (evProgressRequest).
	progress *Progress
	stream   []*Op
}

func (w *World) client(name string) *client {
	for _, c := range w.clients {
		if c.cfg.Name == name {
			return c
		}
	}
	return nil
}

// submit starts op from its client (or, when Client names a member, from
// that member's local client).
func (w *World) submit(op *Op) {
	op.ID = w.OpCount() + 1
	op.Start, op.StartEvent = w.now, w.history.len()
	w.ops = append(w.ops, op)
	c := w.client(op.Client)
	timeout := DefaultClientTimeout
	if c != nil {
		op.endpoint = w.pick(c)
		if c.cfg.Timeout > 0 {
			timeout = c.cfg.Timeout
		}
	}
	if op.timeout > 0 {
		timeout = op.timeout
	}
	op.timeout = timeout
	w.recordOp(EvRequest, op, w.endpointOf(op))
	if msg, ok := tooLargeToSend(&op.Req); ok {
		w.complete(op, w.endpointOf(op), &reply{status: OpError, err: msg})
		return
	}
	if op.Kind != OpWatch {
		e, slot := w.sched.afterSlot(w.now, Time(timeout))
		e.kind, e.node, e.op = evClientTimeout, w.endpointOf(op), op
		op.timeoutSlot = slot + 1
	}
	w.sendRequest(op)
}

// endpointOf returns the member op is (to be) sent to.
func (w *World) endpointOf(op *Op) uint64 {
	if op.via != 0 {
		return op.via
	}
	if c := w.client(op.Client); c != nil {
		return c.endpoints[op.endpoint%len(c.endpoints)]
	}
	return w.byName[op.Client].id
}

func (w *World) sendRequest(op *Op) {
	m := w.members[w.endpointOf(op)-1]
	op.Member = m.name
	e := w.sched.after(w.now, Time(w.cfg.ClientLatency))
	e.kind, e.node, e.op = evRequestArrive, m.id, op
	e.flag = !m.up // no connection to make: the member is down
}

// requestArrive takes a request at the member it was sent to; downAtSend:
// the member was down when the client sent it.
func (w *World) requestArrive(m *member, op *Op, downAtSend bool) {
	if op.Status != OpPending && op.Kind != OpWatch {
		return
	}
	if !m.up {
		// In gRPC's words: a member down when the request was sent refused
		// the connection (transport/http2_client.go's dial error, in a
		// ConnectionError); one that went down while it was on its way
		// broke the connection it came on, as a crash does.
		err := errConnBroken
		if downAtSend {
			err = connRefused(m.clientURL)
		}
		w.reply(m, op, reply{status: OpError, refused: true, err: err})
		return
	}
	op.group = int32(m.group)
	w.accept(m, op)
}

// accept takes a request a running member has received, as the server
// layer decides (server.Arrive): one it does not serve yet waits until it
// has published itself (then it is accepted again).
func (w *World) accept(m *member, op *Op) {
	switch server.Arrive(server.Call{Kind: op.Kind.call(), Req: &op.Req}, m.ready, m.srv.IDs.Peek()) {
	case server.WaitPublished:
		m.srv.Unready.Hold(op)
	case server.RefuseTooLarge:
		w.reply(m, op, reply{status: OpError, err: server.ErrTooLarge})
	case server.Serve:
		m.serve(op)
	}
}

// reply sends r from m back to op's client.
func (w *World) reply(m *member, op *Op, r reply) {
	r.member, r.term = m.memberID, m.hard.GetTerm()
	e := w.sched.after(w.now, Time(w.cfg.ClientLatency))
	e.kind, e.node, e.op, e.rep = evReplyArrive, m.id, op, &r
}

func (w *World) watchEvent(m *member, op *Op, ev WatchEvent) {
	ev.Header = etcdserverpb.ResponseHeader{ClusterId: m.clusterID(), MemberId: m.memberID, Revision: ev.Header.Revision, RaftTerm: m.hard.GetTerm()}
	e := w.sched.after(w.now, Time(w.cfg.ClientLatency))
	e.kind, e.node, e.op, e.rep = evWatchArrive, m.id, op, &reply{event: ev}
}

func (w *World) clientEvent(e *event) {
	op := e.op
	switch e.kind {
	case evClientTimeout:
		if op == nil {
			return // it ended before (see complete)
		}
		op.timeoutSlot = 0
		if op.Status == OpPending {
			// etcd gives up on a request after its own request timeout
			// (7s by default); a client with a shorter deadline gives up
			// first, and sees its context expire.
			op.Status, op.Err = OpTimeout, w.timedOut(op)
			w.markEnd(op)
			if op.timeout < DefaultClientTimeout {
				op.Err = "context deadline exceeded"
			}
			// The member it timed out at is the one it was last sent to.
			w.record(Event{Kind: EvReply, Op: op.ID, Node: w.endpointOf(op), Text: op.Err})
			w.ended(op)
		}
	case evWatchArrive:
		if e.rep.progress != nil {
			w.progressArrives(op, e.node, *e.rep.progress)
			return
		}
		ev := e.rep.event
		if op.Status == OpOK {
			ev.At = w.now
			st := op.rare()
			st.events = append(st.events, ev)
			w.record(Event{Kind: EvWatch, Op: op.ID, Node: e.node, Text: ev.Type.String() + " " + string(ev.Kv.Key)})
		}
		if m := w.members[e.node-1]; ev.last && m.up {
			m.srv.Watches.Received(op) // a response has left the stream
		}
	case evClientRetry:
		if op.Status == OpPending {
			op.readIndex, op.readIndexKnown = 0, false
			w.sendRequest(op)
		}
	case evReplyArrive:
		r := e.rep
		if op.Kind == OpWatch && op.Status == OpOK && r.status == OpError {
			op.Status, op.Err = OpError, r.err // a watch stream ends
			if r.compact != 0 || op.more != nil {
				op.rare().compactRevision = r.compact
			}
			w.markEnd(op)
			w.record(Event{Kind: EvReply, Op: op.ID, Node: e.node, Text: "watch cancelled: " + r.err})
			return
		}
		if op.Status != OpPending {
			return // the client already gave up
		}
		if r.refused {
			if c := w.client(op.Client); c != nil && op.via == 0 && op.tried+1 < len(c.endpoints) {
				op.tried++
				op.endpoint = w.pick(c)
				// Peer: where the request goes next.
				w.record(Event{Kind: EvReply, Op: op.ID, Node: e.node, Peer: w.endpointOf(op), Text: "failover: " + r.err})
				w.sendRequest(op)
				return
			}
		}
		if r.status == OpError && !r.refused && w.shouldRetry(op, r.err) {
			// clientv3 logs "retrying of unary invoker failed" and sends
			// the call again after its backoff, to its balancer's next pick.
			// (The pick is made now rather than after the backoff, so
			// that the event can say where the retry goes: Peer.)
			st := op.rare()
			st.retries = append(st.retries, Retry{At: w.now, Member: w.members[e.node-1].name, Err: r.err})
			if c := w.client(op.Client); c != nil && op.via == 0 {
				op.endpoint = w.pick(c)
			}
			w.record(Event{Kind: EvReply, Op: op.ID, Node: e.node, Peer: w.endpointOf(op), Text: "retry: " + r.err})
			re := w.sched.after(w.now, Time(clientRetryBackoff))
			re.kind, re.node, re.op = evClientRetry, e.node, op
			return
		}
		w.complete(op, e.node, r)
	}
}

// timedOut is what etcd answers a request that ran out of its request
// timeout at the member it was sent to (server.TimeoutErr), from where the
// call stood there and what the member knew.
func (w *World) timedOut(op *Op) string {
	m := w.members[w.endpointOf(op)-1]
	return server.TimeoutErr(server.TimedOut{Call: server.Call{Kind: op.Kind.call(), Req: &op.Req},
		Unpublished: m.srv.Unready.Holds(op), Down: !m.up, HeldNoLeader: m.srv.Held.Holds(op),
		Start: int64(w.arrivedAt(op)), LeadElected: int64(m.leadElected),
		ElectionTimeout: int64(w.cfg.ElectionTicks) * int64(w.cfg.Tick),
		Self:            m.id, Lead: m.soft.Lead, Members: m.cluster.IDs(), Peer: m.peer})
}

// arrivedAt is when op's last attempt arrived at its member: a retry
// leaves its client after the retry backoff.
func (w *World) arrivedAt(op *Op) Time {
	start := op.Start
	if rs := op.Retries(); len(rs) > 0 {
		start = rs[len(rs)-1].At + Time(clientRetryBackoff)
	}
	return start + Time(w.cfg.ClientLatency)
}

// peer is the member's transport's view of the peer with raft ID id:
// whether its stream is up, and since when.
func (m *member) peer(id uint64) (up bool, since int64) {
	if int(id) >= len(m.peers) {
		return false, 0
	}
	c := m.peers[id]
	return c.ok, int64(c.since)
}

// ended calls the operation's after hook, once.
func (w *World) ended(op *Op) {
	if f := op.after; f != nil {
		op.after = nil
		f(op)
	}
}

func (w *World) complete(op *Op, node uint64, r *reply) {
	defer w.ended(op)
	if op.timeoutSlot > 0 {
		// NB: its timeout still comes, and finds nothing to do; meanwhile
		// it does not keep the operation alive. At 10,000 requests a
		// second, the 7s timeouts kept 70,000 finished operations, some
		// 66 MB, after the run had given them back.
		if e := &w.sched.slots[op.timeoutSlot-1]; e.kind == evClientTimeout && e.op == op {
			e.op = nil
		}
		op.timeoutSlot = 0
	}
	op.Status, op.Err = r.status, r.err
	op.Resp, op.Applied = r.resp, r.applied
	if r.members != nil || op.more != nil {
		op.rare().members = r.members
	}
	if r.alarms != nil {
		op.rare().alarms = r.alarms
	}
	rev := r.rev
	if h := op.Resp.Header(); h != nil {
		rev = h.Revision
	}
	// etcd's gRPC layer fills in the header of every answer.
	op.header = etcdserverpb.ResponseHeader{ClusterId: w.groups[op.group].clusterID, MemberId: r.member, Revision: rev, RaftTerm: r.term}
	op.Resp.SetHeader(&op.header)
	if op.Kind != OpWatch || r.status != OpOK {
		w.markEnd(op) // an open watch has no end yet
	}
	if op.Kind == OpGet && op.Req.Serializable() && r.status == OpOK {
		w.checkStale(op)
	}
	if op.Kind == OpWatch {
		// NB: an open watch may yet end, and then it reads differently.
		w.record(Event{Kind: EvReply, Op: op.ID, Node: node, Text: describeResult(i18n.En, op)})
	} else {
		w.recordOp(EvReply, op, node)
	}
}

// markEnd marks op as ended now. The event recorded next is its end.
func (w *World) markEnd(op *Op) { op.End, op.EndEvent = w.now, w.history.len() }

// checkStale compares a serializable read with the newest state any member
// has applied. A difference is not a bug (serializable reads may be stale)
// but it is what a reader should see.
func (w *World) checkStale(op *Op) {
	var newest *member
	for _, m := range w.members {
		if m.up && m.srv.KV != nil && (newest == nil || m.applied > newest.applied) {
			newest = m
		}
	}
	if newest == nil || newest.applied <= op.Applied {
		return
	}
	want, _ := newest.srv.Read(&op.Req, newest.localNow())
	if want.Range == nil || sameKVs(want.Range.Kvs, op.KVs()) {
		return
	}
	op.Stale = true
	st := op.rare()
	st.staleNewest, st.staleNewestApplied = newest.name, newest.applied
	if len(op.Req.Range.RangeEnd) == 0 && len(want.Range.Kvs) > 0 {
		st.staleValue, st.staleFound = string(want.Range.Kvs[0].Value), true
	}
	st.staleNote = op.StaleText(i18n.En)
}

func sameKVs(a, b []*KeyValue) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i].Key, b[i].Key) || !bytes.Equal(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

// Clients returns the names of the clients and their endpoints.
func (w *World) Clients() []ClientConfig {
	out := make([]ClientConfig, len(w.clients))
	for i, c := range w.clients {
		out[i] = c.cfg
	}
	return out
}

// tooLargeToSend returns clientv3's error for a request it will not send:
// a gRPC message over its 2 MiB.
func tooLargeToSend(req *server.Request) (string, bool) {
	if n := req.Size(); n > server.MaxSendBytes {
		return "rpc error: code = ResourceExhausted desc = trying to send message larger than max (" +
			itoa(uint64(n)) + " vs. " + itoa(server.MaxSendBytes) + ")", true
	}
	return "", false
}

// errConnBroken is gRPC's error for a call whose connection broke (its
// server went down): grpc-go's internal/transport/http2_client.go
// ("error reading from server: %v", io.EOF), with codes.Unavailable.
const errConnBroken = "rpc error: code = Unavailable desc = error reading from server: EOF"

// connRefused is gRPC's error for a call to a server that refuses the
// connection: the dial's error (transport/http2_client.go, "transport:
// Error while dialing: %v") in a ConnectionError (transport.go,
// "connection error: desc = %q"), with codes.Unavailable.
func connRefused(clientURL string) string {
	hostPort := clientURL
	if u, err := url.Parse(clientURL); err == nil && u.Host != "" {
		hostPort = u.Host
	}
	return `rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial tcp ` +
		hostPort + `: connect: connection refused"`
}

// A client on a member's host dies with the host: a stacked kube-apiserver
// (bound to the member of its host) and a member's local client (a
// request "via" the member, sent by nobody else). A crash in raftsim is
// the host's failure (the window draws the host and all on it down), so
// such a client sends nothing while its host is down: a request from it
// is refused before it exists, with raftsim's own note (ErrHostDown),
// never with an error etcd or gRPC would print.

// ErrHostDownNote is raftsim's own note for a request from a client on a
// host that is down (not a text etcd, gRPC or clientv3 prints).
const ErrHostDownNote = "%s runs on %s's host, which is down: it sends nothing (raftsim's note)"

// hostOf returns the member on whose host the client of a request runs,
// or nil for a client that runs elsewhere: via is the member a request is
// sent through (0: none), client its client.
func (w *World) hostOf(client string, via uint64, by string, external bool) *member {
	if external || by != "" {
		return nil // the operator's etcdctl, or a real client of the wire
	}
	if via != 0 {
		return w.members[via-1]
	}
	c := w.client(client)
	if c == nil || w.cfg.Topology != "stacked" || len(c.endpoints) != 1 ||
		slices.ContainsFunc(w.cfg.Clients, func(cc ClientConfig) bool { return cc.Name == client }) {
		return nil
	}
	return w.members[c.endpoints[0]-1]
}

// hostDown returns the error for a request from a client whose host is
// down, or nil.
func (w *World) hostDown(client string, via uint64, by string, external bool) error {
	m := w.hostOf(client, via, by, external)
	if m == nil || m.up || m.removed {
		return nil
	}
	name := client
	if name == m.name {
		name = m.name + "'s local client"
	}
	return fmt.Errorf(ErrHostDownNote, name, m.name)
}
