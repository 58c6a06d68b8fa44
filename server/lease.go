package server

import (
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/lease"
)

// MinLeaseTTL is etcd's minimum lease TTL, in seconds, for an election
// timeout of electionTicks ticks of tick: 1.5 election timeouts, rounded
// up to whole seconds.
func MinLeaseTTL(electionTicks int, tick time.Duration) int64 {
	d := time.Duration(3*electionTicks/2) * tick
	return int64((d + time.Second - 1) / time.Second)
}

// KeepAlive is the leader's answer to a keep-alive of lease id at its
// clock now (ns), as etcd's Renew: the lease lives its TTL again.
// expired says the lease has expired and its revocation is on its way: etcd
// holds the keep-alive until the revocation applies (and then answers that
// the lease is not found).
func (kv *KV) KeepAlive(id, now int64) (resp *etcdserverpb.LeaseKeepAliveResponse, err string, expired bool) {
	ttl, e := kv.Lessor.Renew(id, now)
	switch e {
	case nil:
		return &etcdserverpb.LeaseKeepAliveResponse{ID: id, TTL: ttl}, "", false
	case lease.ErrExpired:
		return nil, "", true
	}
	return nil, e.Error(), false
}

// TimeToLive is the leader's answer to a timetolive at its clock now
// (ns): the lease's remaining and granted TTL, and its keys if asked. A
// lease it does not know is answered with TTL -1, as etcd's gRPC layer
// does.
func (kv *KV) TimeToLive(r *etcdserverpb.LeaseTimeToLiveRequest, now int64) *etcdserverpb.LeaseTimeToLiveResponse {
	l := kv.Lessor.Lookup(r.ID)
	if l == nil {
		return &etcdserverpb.LeaseTimeToLiveResponse{ID: r.ID, TTL: -1}
	}
	resp := &etcdserverpb.LeaseTimeToLiveResponse{ID: r.ID, TTL: l.Remaining(now) / int64(time.Second), GrantedTTL: l.TTL}
	if r.Keys {
		for _, k := range l.Keys() {
			resp.Keys = append(resp.Keys, []byte(k))
		}
	}
	return resp
}

// AnswerLease is the leader's answer to a keep-alive or a timetolive at
// its clock now (ns), as etcd's LeaseRenew and LeaseTimeToLive answer
// once the request has reached the leader: the response, or etcd's error.
// expired: a keep-alive of a lease whose revocation is on its way, which
// the leader holds (HeldKeepAlives) until the revocation applies.
func (kv *KV) AnswerLease(req *Request, now int64) (resp Response, err string, expired bool) {
	switch {
	case req.LeaseKeepAlive != nil:
		r, err, expired := kv.KeepAlive(req.LeaseKeepAlive.ID, now)
		return Response{LeaseKeepAlive: r}, err, expired
	case req.LeaseTimeToLive != nil:
		return Response{LeaseTimeToLive: kv.TimeToLive(req.LeaseTimeToLive, now)}, "", false
	}
	return Response{}, "not a lease request", false
}

// Leases answers a lease list: every lease the member knows.
func (kv *KV) Leases() *etcdserverpb.LeaseLeasesResponse {
	resp := &etcdserverpb.LeaseLeasesResponse{}
	for _, id := range kv.Lessor.Leases() {
		resp.Leases = append(resp.Leases, &etcdserverpb.LeaseStatus{ID: id})
	}
	return resp
}
