package sim

import (
	"fmt"
	"time"

	"go.etcd.io/raft/v3"

	"github.com/raftsim/raftsim/lease"
	"github.com/raftsim/raftsim/mvcc"
	"github.com/raftsim/raftsim/netmodel"
)

// The member's etcd server layer above raft: the apply path into the MVCC
// store and the lessor, reads, watches, and the lessor's work at the
// leader. It follows etcd's server/etcdserver (apply, v3_server.go) and
// api/v3rpc (watch.go, interceptor.go).

// maxNoLeaderPolls is etcd's maxNoLeaderCnt: a member cancels its
// require-leader watches only after this many polls in a row, one election
// timeout apart, found no leader (v3rpc monitorLeader).
const maxNoLeaderPolls = 3

// leaseRetry is how soon a member tries a forwarded lease request again
// after it could not reach the leader.
const leaseRetry = 500 * time.Millisecond

// minLeaseTTL is etcd's minimum lease TTL: 1.5 election timeouts, rounded
// up to whole seconds.
func (c *Config) minLeaseTTL() int64 {
	d := time.Duration(3*c.ElectionTicks/2) * c.Tick
	return int64((d + time.Second - 1) / time.Second)
}

// localNow is the member's own clock, in ns: virtual time, run at the
// member's clock rate since the rate last changed.
func (m *member) localNow() int64 {
	return int64(m.clockBase) + int64(float64(m.w.now-m.clockSince)*m.rate)
}

// setClockRate changes how fast the member's clock runs from now on.
func (m *member) setClockRate(rate float64) {
	m.clockBase, m.clockSince = Time(m.localNow()), m.w.now
	m.rate = rate
}

// nextLeaseID picks a lease ID as etcd's request ID generator does: the
// member's ID in the top 16 bits, then the time the server started (ms, 40
// bits, then 8 bits of counter), counting up.
func (m *member) nextLeaseID() int64 {
	m.idSuffix++
	id := (m.memberID&0xffff)<<48 | m.idSuffix&(1<<48-1)
	return int64(id & (1<<63 - 1))
}

// applyRequest applies one committed request to the state machine, answers
// the client that sent it here, and feeds the watches.
func (m *member) applyRequest(data []byte) {
	req, err := decodeRequest(data)
	if err != nil {
		panic("sim: " + m.name + ": bad entry: " + err.Error())
	}
	ext := req.ext
	if ext == nil {
		ext = &requestExt{}
	}
	st := m.kv.store
	st.ReportEvents(len(m.watches) > 0)
	var r reply
	var evs []mvcc.Event
	fail := func(err error) reply { return reply{status: OpError, err: mvcc.GRPCMessage(err), rev: st.Rev()} }
	switch req.kind {
	case OpPut:
		resp, e, err := st.Put(&mvcc.PutRequest{Key: req.key, Value: req.value, Lease: ext.Lease, PrevKv: ext.PrevKV})
		if err != nil {
			r = fail(err)
			break
		}
		r, evs = reply{status: OpOK, rev: resp.Header.Revision}, e
		if resp.PrevKv != nil {
			r.prevKVs = []KeyValue{*resp.PrevKv}
		}
	case OpDelete:
		end := ext.RangeEnd
		if req.prefix {
			end = prefixEnd(req.key)
		}
		resp, e, _ := st.DeleteRange(&mvcc.DeleteRangeRequest{Key: req.key, RangeEnd: end, PrevKv: ext.PrevKV})
		r, evs = reply{status: OpOK, rev: resp.Header.Revision, deleted: int(resp.Deleted)}, e
		for _, kv := range resp.PrevKvs {
			r.prevKVs = append(r.prevKVs, *kv)
		}
	case OpTxn:
		resp, e, err := st.Txn(ext.Txn)
		if err != nil {
			r = fail(err)
			break
		}
		r, evs = reply{status: OpOK, rev: resp.Header.Revision, txn: resp}, e
	case OpCompact:
		if _, err := st.Compact(ext.Rev); err != nil {
			r = fail(err)
			break
		}
		r = reply{status: OpOK, rev: st.Rev()}
	case OpLeaseGrant:
		l, err := m.kv.lessor.Grant(ext.Lease, ext.TTL, m.localNow())
		if err != nil {
			r = fail(err)
			break
		}
		m.dbLease(l.ID, l.TTL)
		r = reply{status: OpOK, rev: st.Rev(), lease: LeaseResult{ID: l.ID, TTL: l.TTL}}
	case OpLeaseRevoke:
		keys, err := m.kv.lessor.Revoke(ext.Lease)
		if err != nil {
			r = fail(err)
			break
		}
		m.dbLease(ext.Lease, 0)
		evs = st.DeleteKeys(keys)
		r = reply{status: OpOK, rev: st.Rev()}
		if req.op == 0 {
			m.w.record(Event{Kind: EvFault, Node: m.id, Text: fmt.Sprintf(pick(len(keys), leaseRevokedOne, leaseRevokedMany), ext.Lease, len(keys))})
		}
		m.leaseGone(ext.Lease)
	}
	if op := m.writes[req.op]; op != nil {
		delete(m.writes, req.op)
		m.w.reply(m, op, r)
	}
	m.notify(evs)
}

// promote makes the member's lessor primary, as etcd does once a new
// leader applies the empty entry of its term: the leases it inherits live
// their TTL again, plus an election timeout.
func (m *member) promote() {
	if m.kv.lessor.IsPrimary() {
		return
	}
	extend := time.Duration(m.w.cfg.ElectionTicks) * m.w.cfg.Tick
	m.kv.lessor.Promote(int64(extend), m.localNow())
	m.nextLeaseCheck = m.localNow() + lease.CheckInterval
	if n := len(m.kv.lessor.Leases()); n > 0 {
		m.w.record(Event{Kind: EvFault, Node: m.id, Text: fmt.Sprintf(pick(n, leasesInheritedOne, leasesInheritedMany), n, extend)})
	}
}

// expireLeases is the leader's lessor loop (every 500ms of its own clock):
// it proposes the revocation of every expired lease, through raft.
func (m *member) expireLeases() {
	now := m.localNow()
	if !m.kv.lessor.IsPrimary() || now < m.nextLeaseCheck {
		return
	}
	m.nextLeaseCheck = now + lease.CheckInterval
	for _, id := range m.kv.lessor.ExpiredToRevoke(now) {
		req := request{kind: OpLeaseRevoke, ext: &requestExt{Lease: id}}
		m.enter()
		err := m.rn.Propose(req.encode())
		m.leave()
		if err == nil {
			m.w.record(Event{Kind: EvFault, Node: m.id, Text: fmt.Sprintf(leaseExpiredText, id)})
		}
	}
}

// pollLeader is etcd's monitorLeader, once per election timeout of the
// member's clock: after maxNoLeaderPolls polls in a row without a leader,
// the require-leader watches are cancelled.
func (m *member) pollLeader() {
	if m.soft.Lead != 0 {
		m.noLeaderPolls = 0
		return
	}
	m.noLeaderPolls++
	if m.noLeaderPolls < maxNoLeaderPolls {
		return
	}
	kept := m.watches[:0]
	for _, op := range m.watches {
		if op.RequireLeader {
			m.w.reply(m, op, reply{status: OpError, err: "etcdserver: no leader"})
			continue
		}
		kept = append(kept, op)
	}
	m.watches = kept
}

// watchRange returns the range a watch covers.
func watchRange(op *Op) (key, end string) {
	if op.Prefix {
		return op.Key, prefixEnd(op.Key)
	}
	return op.Key, op.RangeEnd
}

func watchMatches(op *Op, key string) bool {
	k, end := watchRange(op)
	switch end {
	case "":
		return key == k
	case mvcc.GteEnd:
		return key >= k
	}
	return key >= k && key < end
}

// startWatch creates a watch at the member: it answers that the watch is
// created, then catches it up from its start revision.
func (m *member) startWatch(op *Op) {
	if op.RequireLeader && m.soft.Lead == 0 {
		m.w.reply(m, op, reply{status: OpError, err: "etcdserver: no leader"})
		return
	}
	m.watches = append(m.watches, op)
	m.w.reply(m, op, reply{status: OpOK, watch: true, rev: m.kv.store.Rev()})
	m.syncWatch(op, op.Rev)
}

// syncWatch catches a watch up from revision from, as etcd's watchable
// store syncs an unsynced watcher from its backend: the watch then stays
// synced, fed by notify. A watch from a compacted revision is cancelled,
// with the compaction's revision. etcd syncs every 100ms; the simulator
// does it at once.
func (m *member) syncWatch(op *Op, from int64) {
	st := m.kv.store
	cur := st.Rev()
	if from == 0 || from > cur {
		op.watchNext = max(cur+1, from)
		return
	}
	evs, err := st.Changes(from)
	if err != nil {
		m.w.reply(m, op, reply{status: OpError, err: mvcc.GRPCMessage(err), compact: st.CompactRev()})
		m.dropWatch(op)
		return
	}
	m.send(op, evs, cur)
	op.watchNext = cur + 1
}

// send delivers the events that match the watch as one watch response,
// whose header carries revision rev.
func (m *member) send(op *Op, evs []mvcc.Event, rev int64) {
	resp := 0
	for i := range evs {
		if !watchMatches(op, evs[i].Kv.Key) {
			continue
		}
		if resp == 0 {
			op.watchResponses++
			resp = op.watchResponses
		}
		we := watchEvent(op, &evs[i])
		we.Response, we.Header.Revision = resp, rev
		m.w.watchEvent(m, op, we)
	}
}

func (m *member) dropWatch(op *Op) {
	for i, o := range m.watches {
		if o == op {
			m.watches = append(m.watches[:i], m.watches[i+1:]...)
			return
		}
	}
}

func watchEvent(op *Op, ev *mvcc.Event) WatchEvent {
	we := WatchEvent{Type: ev.Type.String(), KV: *ev.Kv}
	if op.PrevKV && ev.PrevKv != nil {
		prev := *ev.PrevKv
		we.PrevKV = &prev
	}
	return we
}

// notify feeds the events of one revision to the synced watches.
func (m *member) notify(evs []mvcc.Event) {
	if len(evs) == 0 {
		return
	}
	rev := evs[0].Kv.ModRevision
	for _, op := range m.watches {
		if op.watchNext > rev {
			continue // a watch from a future revision
		}
		m.send(op, evs, rev)
		op.watchNext = rev + 1
	}
}

// read answers a range request (a get) from the local store.
func (m *member) read(op *Op) reply {
	req := &mvcc.RangeRequest{Key: op.Key, RangeEnd: op.RangeEnd, Revision: op.Rev, Limit: op.Limit,
		SortOrder: op.SortOrder, SortTarget: op.SortTarget, KeysOnly: op.KeysOnly, CountOnly: op.CountOnly,
		Serializable: op.Serializable}
	if op.Prefix {
		req.RangeEnd = prefixEnd(op.Key)
	}
	resp, err := m.kv.store.Range(req)
	if err != nil {
		return reply{status: OpError, err: mvcc.GRPCMessage(err), applied: m.applied}
	}
	r := reply{status: OpOK, rev: resp.Header.Revision, applied: m.applied, count: resp.Count, more: resp.More}
	r.kvs = make([]KeyValue, len(resp.Kvs))
	for i, kv := range resp.Kvs {
		r.kvs[i] = *kv
	}
	if len(r.kvs) > 0 && !op.Prefix && op.RangeEnd == "" {
		r.found, r.value = true, r.kvs[0].Value
	}
	return r
}

// readTxn answers a transaction that writes nothing, as etcd serves one
// like a read: at the read index, or locally when serializable.
func (m *member) readTxn(op *Op) reply {
	resp, _, err := m.kv.store.Txn(op.Txn)
	if err != nil {
		return reply{status: OpError, err: mvcc.GRPCMessage(err), applied: m.applied}
	}
	return reply{status: OpOK, rev: resp.Header.Revision, txn: resp, applied: m.applied}
}

// propose puts a client write into raft at this member.
func (m *member) propose(op *Op) {
	req := request{op: op.ID, kind: op.Kind, key: op.Key, value: op.Value, prefix: op.Prefix}
	switch op.Kind {
	case OpPut:
		if op.Lease != 0 || op.PrevKV {
			req.ext = &requestExt{Lease: op.Lease, PrevKV: op.PrevKV}
		}
	case OpDelete:
		if op.RangeEnd != "" || op.PrevKV {
			req.ext = &requestExt{RangeEnd: op.RangeEnd, PrevKV: op.PrevKV}
		}
	case OpTxn:
		req.ext = &requestExt{Txn: op.Txn}
	case OpCompact:
		req.ext = &requestExt{Rev: op.Rev}
	case OpLeaseGrant:
		id := op.Lease
		if id == 0 {
			id = m.nextLeaseID() // etcd picks the ID where the request arrives
		}
		req.ext = &requestExt{Lease: id, TTL: op.TTL}
	case OpLeaseRevoke:
		req.ext = &requestExt{Lease: op.Lease}
	}
	m.enter()
	err := m.rn.Propose(req.encode())
	m.leave()
	if err != nil {
		// etcd passes raft's ErrProposalDropped on as gRPC Unknown, with
		// no reason; the transcript says why.
		switch st := m.rn.BasicStatus(); {
		case st.LeadTransferee != 0:
			m.w.fault(m.id, dropTransferText)
		case st.RaftState != raft.StateLeader && m.w.cfg.DisableProposalForwarding:
			m.w.fault(m.id, dropNoForwardingText)
		}
		m.w.reply(m, op, reply{status: OpError, err: errProposalDropped})
		return
	}
	m.writes[op.ID] = op
	m.flush()
}

// validate checks a request as etcd's gRPC layer does before it reaches
// raft; it returns the error a client sees, or "".
func validate(op *Op) string {
	switch op.Kind {
	case OpPut:
		if op.Key == "" {
			return mvcc.ErrEmptyKey.Error()
		}
	case OpTxn:
		if err := mvcc.ValidateTxn(op.Txn); err != nil {
			return err.Error()
		}
	case OpLeaseGrant:
		if op.TTL > lease.MaxLeaseTTL {
			return lease.ErrLeaseTTLTooLarge.Error()
		}
	}
	return ""
}

// serveLease serves a keep-alive or a timetolive: the leader's lessor
// answers; any other member forwards the request to the leader, and tries
// again until it gets an answer or its client gives up, as etcd's
// LeaseRenew and LeaseTimeToLive do.
func (m *member) serveLease(op *Op) {
	if m.soft.RaftState == raft.StateLeader {
		if r, ok := m.answerLease(op, m); ok {
			m.w.reply(m, op, r)
		}
		return
	}
	if m.soft.Lead == 0 {
		m.held = append(m.held, op) // etcd waits for a leader (waitLeader)
		return
	}
	m.w.peerSend(m, m.w.members[m.soft.Lead-1], op, nil)
}

// answerLease is the leader's answer to a lease request from origin. A
// keep-alive of a lease that has expired waits until its revocation is
// applied (ok false).
func (m *member) answerLease(op *Op, origin *member) (reply, bool) {
	le := m.kv.lessor
	now := m.localNow()
	switch op.Kind {
	case OpLeaseKeepAlive:
		ttl, err := le.Renew(op.Lease, now)
		switch err {
		case nil:
			return reply{status: OpOK, rev: m.kv.store.Rev(), lease: LeaseResult{ID: op.Lease, TTL: ttl}}, true
		case lease.ErrExpired:
			m.leaseWaits = append(m.leaseWaits, leaseWait{op: op, origin: origin})
			return reply{}, false
		}
		return reply{status: OpError, err: err.Error()}, true
	case OpLeaseTimeToLive:
		l := le.Lookup(op.Lease)
		if l == nil {
			// etcd's gRPC layer answers a lease it does not know with TTL -1.
			return reply{status: OpOK, rev: m.kv.store.Rev(), lease: LeaseResult{ID: op.Lease, TTL: -1}}, true
		}
		res := LeaseResult{ID: op.Lease, TTL: l.Remaining(now) / int64(time.Second), GrantedTTL: l.TTL}
		if op.LeaseKeys {
			res.Keys = l.Keys()
		}
		return reply{status: OpOK, rev: m.kv.store.Rev(), lease: res}, true
	}
	return reply{status: OpError, err: "not a lease request"}, true
}

// leaseWait is a keep-alive held at the leader for an expired lease.
type leaseWait struct {
	op     *Op
	origin *member
}

// leaseGone answers the keep-alives held for a lease just revoked.
func (m *member) leaseGone(id int64) {
	kept := m.leaseWaits[:0]
	for _, lw := range m.leaseWaits {
		if lw.op.Lease != id {
			kept = append(kept, lw)
			continue
		}
		r := reply{status: OpError, err: lease.ErrLeaseNotFound.Error()}
		if lw.origin == m {
			m.w.reply(m, lw.op, r)
		} else {
			m.w.peerSend(m, lw.origin, lw.op, &r)
		}
	}
	m.leaseWaits = kept
}

// peerSend carries a forwarded lease request (r nil) from m to the leader,
// or the leader's answer r back, over the member network: it takes a
// message's latency, and a cut or a lost message makes the forwarding
// member try again after leaseRetry.
func (w *World) peerSend(from, to *member, op *Op, r *reply) {
	origin := from
	if r != nil {
		origin = to
	}
	plan := w.net.Send(from.id, to.id, time.Duration(w.now))
	if plan.Dropped != netmodel.NotDropped {
		e := w.sched.after(w.now, Time(leaseRetry))
		e.kind, e.node, e.inc, e.op = evPeerRetry, origin.id, origin.inc, op
		return
	}
	e := w.sched.push(Time(plan.ArriveAt))
	e.kind, e.node, e.peer, e.op, e.rep = evPeerArrive, to.id, from.id, op, r
	if r != nil {
		e.kind, e.inc = evPeerReply, to.inc
	}
}

// peerArrive handles a forwarded lease request at the member it was sent
// to: the leader answers it; a member that is down or no longer leads
// makes the sender try again.
func (w *World) peerArrive(m *member, e *event) {
	from := w.members[e.peer-1]
	op := e.op
	if op.Status != OpPending {
		return
	}
	if !m.up || w.net.IsCut(from.id, m.id) || m.soft.RaftState != raft.StateLeader {
		r := w.sched.after(w.now, Time(leaseRetry))
		r.kind, r.node, r.inc, r.op = evPeerRetry, from.id, from.inc, op
		return
	}
	if op.Kind == OpMemberPromote {
		m.promoteAtLeader(op, from)
		return
	}
	if r, ok := m.answerLease(op, from); ok {
		w.peerSend(m, from, op, &r)
	}
}
