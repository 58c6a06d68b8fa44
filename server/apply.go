package server

import (
	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"

	"github.com/raftsim/raftsim/mvcc"
)

// Applied is what applying one committed request did.
type Applied struct {
	// Resp is the answer (its header holds only the revision; the server's
	// gRPC layer fills in the rest), when the request succeeded.
	Resp Response
	// Err is the error a client sees, when the request failed: the store
	// or the lessor refused it as it applied it (a put with --ignore-value
	// of a key that does not exist, a lease that is gone). The entry has
	// taken its raft index all the same.
	Err string
	// Rev is the store's revision after it.
	Rev int64
	// Events are the changes it made, for the watches (when the store
	// reports them: see mvcc.Store.ReportEvents).
	Events []mvccpb.Event
	// Granted is a lease it granted, with its TTL; Revoked, one it revoked,
	// with the keys that went with it.
	Granted, Revoked    int64
	GrantedTTL, Deleted int
	// Alarms are an alarm request's answer: every alarm for a list, the
	// one raised; none for a disarm (Member.ApplyEntry).
	Alarms []*etcdserverpb.AlarmMember
}

// Apply applies a committed client request (or a lessor's revocation) to
// the state machine, as etcd's apply layer does, at the member's own
// clock now (ns).
func (kv *KV) Apply(r *etcdserverpb.InternalRaftRequest, now int64) Applied {
	st := kv.Store
	var a Applied
	fail := func(err error) { a.Err = mvcc.GRPCMessage(err) }
	if IsAuthRequest(r) {
		a.Resp.Auth, a.Err = kv.auth().ApplyAuth(r, kv.ApplyIndex, now)
		a.Rev = st.Rev()
		return a
	}
	if why := kv.permitted(r); why != "" {
		return Applied{Err: why, Rev: st.Rev()}
	}
	switch {
	case r.Put != nil:
		resp, evs, err := st.Put(r.Put)
		if err != nil {
			fail(err)
			break
		}
		a.Resp.Put, a.Events = resp, evs
	case r.DeleteRange != nil:
		resp, evs, _ := st.DeleteRange(r.DeleteRange)
		a.Resp.DeleteRange, a.Events = resp, evs
	case r.Txn != nil:
		resp, evs, err := st.Txn(r.Txn)
		if err != nil {
			fail(err)
			break
		}
		a.Resp.Txn, a.Events = resp, evs
	case r.Compaction != nil:
		resp, err := st.Compact(r.Compaction.Revision)
		if err != nil {
			fail(err)
			break
		}
		a.Resp.Compaction = resp
	case r.LeaseGrant != nil:
		l, err := kv.Lessor.Grant(r.LeaseGrant.ID, r.LeaseGrant.TTL, now)
		if err != nil {
			fail(err)
			break
		}
		a.Resp.LeaseGrant = &etcdserverpb.LeaseGrantResponse{ID: l.ID, TTL: l.TTL}
		a.Granted, a.GrantedTTL = l.ID, int(l.TTL)
	case r.LeaseRevoke != nil:
		keys, err := kv.Lessor.Revoke(r.LeaseRevoke.ID)
		if err != nil {
			fail(err)
			break
		}
		a.Events = st.DeleteKeys(keys)
		a.Resp.LeaseRevoke = &etcdserverpb.LeaseRevokeResponse{}
		a.Revoked, a.Deleted = r.LeaseRevoke.ID, len(keys)
	}
	a.Rev = st.Rev()
	return a
}

// auth is the state machine's auth store, made on first use.
func (kv *KV) auth() *AuthStore {
	if kv.Auth == nil {
		kv.Auth = NewAuthStore()
	}
	return kv.Auth
}

// permitted is etcd's authApplierV3 for a key-value or lease request: the
// user the proposal's header names may do it (while auth is enabled).
// A lessor's revocation has no header: etcd's lessor revokes as root.
func (kv *KV) permitted(r *etcdserverpb.InternalRaftRequest) string {
	as := kv.Auth
	if !as.Enabled() {
		return ""
	}
	ai := headerInfo(r.Header)
	switch {
	case r.Put != nil:
		if e := as.IsPutPermitted(ai, r.Put); e != "" {
			return e
		}
		if r.Put.Lease != 0 {
			return as.IsLeasePermitted(ai, kv.leaseKeys(r.Put.Lease))
		}
	case r.DeleteRange != nil:
		return as.IsDeletePermitted(ai, r.DeleteRange)
	case r.Txn != nil:
		return as.IsTxnPermitted(ai, r.Txn)
	case r.LeaseRevoke != nil:
		return as.IsLeasePermitted(ai, kv.leaseKeys(r.LeaseRevoke.ID))
	}
	return ""
}

// leaseKeys are the keys attached to a lease (none for a lease that is
// gone).
func (kv *KV) leaseKeys(id int64) []string {
	if l := kv.Lessor.Lookup(id); l != nil {
		return l.Keys()
	}
	return nil
}

// ApplyCapped applies a committed client request (or a lessor's
// revocation) as etcd's applier chain at a member does: while NOSPACE is
// raised (alarms), the capped applier refuses a request that needs space
// with ErrNoSpace (its entry is in the log, and changes nothing);
// otherwise the state machine applies it at the member's clock now (ns),
// reporting its events if events (a watch is open), and a lease it granted
// or revoked goes to the backend's lease bucket at the world's time at
// (ns).
func (kv *KV) ApplyCapped(r *etcdserverpb.InternalRaftRequest, now int64, alarms Alarms, b *Backend, at int64, events bool) Applied {
	if alarms.NoSpace() && NeedsSpace(r) {
		return Applied{Err: ErrNoSpace, Rev: kv.Store.Rev()}
	}
	kv.Store.ReportEvents(events)
	a := kv.Apply(r, now)
	switch {
	case a.Granted != 0:
		b.Lease(a.Granted, int64(a.GrantedTTL), at)
	case a.Revoked != 0:
		b.Lease(a.Revoked, 0, at)
	}
	return a
}

// Read answers a read from the local state: a get, or a transaction that
// writes nothing (etcd serves one like a read). err is the error a client
// sees, or "".
func (kv *KV) Read(req *Request) (resp Response, err string) {
	var e error
	switch {
	case req.Range != nil:
		resp.Range, e = kv.Store.Range(req.Range)
	case req.Txn != nil:
		resp.Txn, _, e = kv.Store.Txn(req.Txn)
	}
	if e != nil {
		return Response{}, mvcc.GRPCMessage(e)
	}
	return resp, ""
}
