package sim

import (
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/raft/v3"
	"google.golang.org/protobuf/encoding/protowire"

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

// nextID draws an ID as etcd's request ID generator (idutil.Generator)
// does: the member's ID in the top 16 bits, then the time the server
// started (ms, 40 bits, then 8 bits of counter), counting up. etcd draws
// every request's ID and every lease's ID a member picks from it.
func (m *member) nextID() uint64 {
	m.idSuffix++
	return (m.memberID&0xffff)<<48 | m.idSuffix&(1<<48-1)
}

// nextLeaseID picks a lease ID as etcd does: the next ID, made positive.
func (m *member) nextLeaseID() int64 { return int64(m.nextID() & (1<<63 - 1)) }

// applyEntry applies one committed normal entry: an InternalRaftRequest,
// as etcd's apply loop decodes it.
func (m *member) applyEntry(data []byte) {
	var r etcdserverpb.InternalRaftRequest
	if isPut(data) {
		// Every member decodes every write, and puts are most of them:
		// a put is decoded into the world's own header and request, which
		// nothing keeps (the store keeps the key and value bytes, which
		// are the entry's own). NB: zeroed first, or the decoder would
		// write the bytes into the last put's.
		w := m.w
		w.putHeader, w.put = etcdserverpb.RequestHeader{}, etcdserverpb.PutRequest{}
		r.Header, r.Put = &w.putHeader, &w.put
	}
	if err := r.Unmarshal(data); err != nil {
		panic("sim: " + m.name + ": bad entry: " + err.Error())
	}
	switch {
	case r.ClusterMemberAttrSet != nil, r.ClusterVersionSet != nil, r.Alarm != nil:
		m.applyCluster(&r)
	default:
		m.applyRequest(&r)
	}
}

// isPut reports whether an entry's InternalRaftRequest holds a header and
// a put (fields 100 and 4) and nothing else.
func isPut(data []byte) bool {
	put := false
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 || num != 100 && num != 4 {
			return false
		}
		put = put || num == 4
		m := protowire.ConsumeFieldValue(num, typ, data[n:])
		if m < 0 {
			return false
		}
		data = data[n+m:]
	}
	return put
}

// requestID is the ID of an InternalRaftRequest's header.
func requestID(r *etcdserverpb.InternalRaftRequest) uint64 {
	if r.Header == nil {
		return 0
	}
	return r.Header.ID
}

// applyRequest applies one committed client request (or the leader's
// lessor's revocation) to the state machine, answers the client that sent
// it here, and feeds the watches. A request the store refuses (a put with
// --ignore-value of a key that does not exist) is refused here, after
// raft, as etcd refuses it: its entry is in the log all the same.
func (m *member) applyRequest(r *etcdserverpb.InternalRaftRequest) {
	st := m.kv.store
	st.ReportEvents(len(m.watches) > 0)
	var rep reply
	var evs []mvccpb.Event
	fail := func(err error) reply { return reply{status: OpError, err: mvcc.GRPCMessage(err), rev: st.Rev()} }
	switch {
	case r.Put != nil:
		resp, e, err := st.Put(r.Put)
		if err != nil {
			rep = fail(err)
			break
		}
		rep, evs = reply{status: OpOK, resp: Response{Put: resp}}, e
	case r.DeleteRange != nil:
		resp, e, _ := st.DeleteRange(r.DeleteRange)
		rep, evs = reply{status: OpOK, resp: Response{DeleteRange: resp}}, e
	case r.Txn != nil:
		resp, e, err := st.Txn(r.Txn)
		if err != nil {
			rep = fail(err)
			break
		}
		rep, evs = reply{status: OpOK, resp: Response{Txn: resp}}, e
	case r.Compaction != nil:
		resp, err := st.Compact(r.Compaction.Revision)
		if err != nil {
			rep = fail(err)
			break
		}
		rep = reply{status: OpOK, resp: Response{Compaction: resp}}
	case r.LeaseGrant != nil:
		l, err := m.kv.lessor.Grant(r.LeaseGrant.ID, r.LeaseGrant.TTL, m.localNow())
		if err != nil {
			rep = fail(err)
			break
		}
		m.dbLease(l.ID, l.TTL)
		rep = reply{status: OpOK, rev: st.Rev(), resp: Response{LeaseGrant: &etcdserverpb.LeaseGrantResponse{ID: l.ID, TTL: l.TTL}}}
	case r.LeaseRevoke != nil:
		id := r.LeaseRevoke.ID
		keys, err := m.kv.lessor.Revoke(id)
		if err != nil {
			rep = fail(err)
			break
		}
		m.dbLease(id, 0)
		evs = st.DeleteKeys(keys)
		rep = reply{status: OpOK, rev: st.Rev(), resp: Response{LeaseRevoke: &etcdserverpb.LeaseRevokeResponse{}}}
		if m.w.lessorRevokes[requestID(r)] {
			m.w.record(Event{Kind: EvFault, Node: m.id, Text: fmt.Sprintf(pick(len(keys), leaseRevokedOne, leaseRevokedMany), id, len(keys))})
		}
		m.leaseGone(id)
	}
	if id := requestID(r); m.writes[id] != nil {
		op := m.writes[id]
		delete(m.writes, id)
		m.w.reply(m, op, rep)
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
		reqID := m.nextID()
		m.w.lessorRevokes[reqID] = true
		data := encodeEntry(&etcdserverpb.InternalRaftRequest{Header: &etcdserverpb.RequestHeader{ID: reqID}, LeaseRevoke: &etcdserverpb.LeaseRevokeRequest{ID: id}})
		m.enter()
		err := m.rn.Propose(data)
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

func watchMatches(op *Op, key []byte) bool {
	w := op.Req.Watch
	return mvcc.InRange(key, w.Key, w.RangeEnd)
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
	m.syncWatch(op, op.Req.Watch.StartRevision)
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
func (m *member) send(op *Op, evs []mvccpb.Event, rev int64) {
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

func watchEvent(op *Op, ev *mvccpb.Event) WatchEvent {
	we := WatchEvent{Event: mvccpb.Event{Type: ev.Type, Kv: ev.Kv}}
	if op.Req.Watch.PrevKv && ev.PrevKv != nil {
		we.PrevKv = ev.PrevKv
	}
	return we
}

// notify feeds the events of one revision to the synced watches.
func (m *member) notify(evs []mvccpb.Event) {
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
	resp, err := m.kv.store.Range(op.Req.Range)
	if err != nil {
		return reply{status: OpError, err: mvcc.GRPCMessage(err), applied: m.applied}
	}
	return reply{status: OpOK, resp: Response{Range: resp}, applied: m.applied}
}

// readTxn answers a transaction that writes nothing, as etcd serves one
// like a read: at the read index, or locally when serializable.
func (m *member) readTxn(op *Op) reply {
	resp, _, err := m.kv.store.Txn(op.Req.Txn)
	if err != nil {
		return reply{status: OpError, err: mvcc.GRPCMessage(err), applied: m.applied}
	}
	return reply{status: OpOK, resp: Response{Txn: resp}, applied: m.applied}
}

// encodeEntry is what a raft entry holds: etcd's InternalRaftRequest.
func encodeEntry(r *etcdserverpb.InternalRaftRequest) []byte {
	data, err := r.Marshal()
	if err != nil {
		panic("sim: encode a request: " + err.Error())
	}
	return data
}

// raftRequest fills r with the InternalRaftRequest a client write
// becomes, with header h. NB: r shares op's request (a lease grant's is
// copied to take the ID the member picks).
func raftRequest(r *etcdserverpb.InternalRaftRequest, h *etcdserverpb.RequestHeader, op *Op) {
	r.Header = h
	switch op.Kind {
	case OpPut:
		r.Put = op.Req.Put
	case OpDelete:
		r.DeleteRange = op.Req.DeleteRange
	case OpTxn:
		r.Txn = op.Req.Txn
	case OpCompact:
		r.Compaction = op.Req.Compaction
	case OpLeaseGrant:
		r.LeaseGrant = op.Req.LeaseGrant
	case OpLeaseRevoke:
		r.LeaseRevoke = op.Req.LeaseRevoke
	}
}

// tooLargeToPropose reports whether etcd refuses to propose a write: its
// InternalRaftRequest would be larger than --max-request-bytes.
func (m *member) tooLargeToPropose(op *Op) bool {
	if !op.Kind.IsWrite() {
		return false
	}
	// The next ID: it decides the header's size.
	h := etcdserverpb.RequestHeader{ID: (m.memberID&0xffff)<<48 | (m.idSuffix+1)&(1<<48-1)}
	var r etcdserverpb.InternalRaftRequest
	raftRequest(&r, &h, op)
	if g := r.LeaseGrant; g != nil && g.ID == 0 {
		r.LeaseGrant = &etcdserverpb.LeaseGrantRequest{TTL: g.TTL, ID: int64(h.ID & (1<<63 - 1))}
	}
	return r.Size() > MaxRequestBytes
}

// propose puts a client write into raft at this member, as etcd's
// processInternalRaftRequestOnce does: the request in an
// InternalRaftRequest with an ID of its own, which the member waits on.
func (m *member) propose(op *Op) {
	var leaseID int64
	if op.Kind == OpLeaseGrant && op.Req.LeaseGrant.ID == 0 {
		leaseID = m.nextLeaseID() // etcd picks the ID where the request arrives, before the request's own
	}
	h := etcdserverpb.RequestHeader{ID: m.nextID()}
	var r etcdserverpb.InternalRaftRequest
	raftRequest(&r, &h, op)
	if leaseID != 0 {
		r.LeaseGrant = &etcdserverpb.LeaseGrantRequest{TTL: op.Req.LeaseGrant.TTL, ID: leaseID}
	}
	data := encodeEntry(&r)
	m.enter()
	err := m.rn.Propose(data)
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
	m.writes[h.ID] = op
	m.flush()
}

// validate checks a request as etcd's gRPC layer does before it reaches
// raft; it returns the error a client sees, or "".
func validate(op *Op) string {
	var err error
	switch op.Kind {
	case OpPut:
		err = mvcc.ValidatePut(op.Req.Put)
	case OpGet, OpDelete:
		if key, _ := op.Req.KeyRange(); len(key) == 0 {
			err = mvcc.ErrEmptyKey
		}
	case OpTxn:
		err = mvcc.ValidateTxn(op.Req.Txn)
	case OpLeaseGrant:
		if op.Req.LeaseGrant.TTL > lease.MaxLeaseTTL {
			err = lease.ErrLeaseTTLTooLarge
		}
	}
	if err != nil {
		return err.Error()
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
	rev := m.kv.store.Rev()
	switch op.Kind {
	case OpLeaseKeepAlive:
		id := op.Req.LeaseKeepAlive.ID
		ttl, err := le.Renew(id, now)
		switch err {
		case nil:
			return reply{status: OpOK, rev: rev, resp: Response{LeaseKeepAlive: &etcdserverpb.LeaseKeepAliveResponse{ID: id, TTL: ttl}}}, true
		case lease.ErrExpired:
			m.leaseWaits = append(m.leaseWaits, leaseWait{op: op, origin: origin})
			return reply{}, false
		}
		return reply{status: OpError, err: err.Error()}, true
	case OpLeaseTimeToLive:
		id := op.Req.LeaseTimeToLive.ID
		l := le.Lookup(id)
		if l == nil {
			// etcd's gRPC layer answers a lease it does not know with TTL -1.
			return reply{status: OpOK, rev: rev, resp: Response{LeaseTimeToLive: &etcdserverpb.LeaseTimeToLiveResponse{ID: id, TTL: -1}}}, true
		}
		resp := &etcdserverpb.LeaseTimeToLiveResponse{ID: id, TTL: l.Remaining(now) / int64(time.Second), GrantedTTL: l.TTL}
		if op.Req.LeaseTimeToLive.Keys {
			for _, k := range l.Keys() {
				resp.Keys = append(resp.Keys, []byte(k))
			}
		}
		return reply{status: OpOK, rev: rev, resp: Response{LeaseTimeToLive: resp}}, true
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
		if lw.op.Req.LeaseKeepAlive.ID != id {
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
