package server

import (
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/lease"
)

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

// Leases answers a lease list: every lease the member knows.
func (kv *KV) Leases() *etcdserverpb.LeaseLeasesResponse {
	resp := &etcdserverpb.LeaseLeasesResponse{}
	for _, id := range kv.Lessor.Leases() {
		resp.Leases = append(resp.Leases, &etcdserverpb.LeaseStatus{ID: id})
	}
	return resp
}
