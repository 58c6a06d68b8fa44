package server

import (
	"testing"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
)

// Each timed-out call gets etcd's error: the context's own before the
// member serves or while a proposal waits for a leader, a promotion's
// "no leader" then, "request timed out" for a read, and for a proposal
// raft took etcd's guess at why (parseProposeCtxErr).
func TestTimeoutErr(t *testing.T) {
	const et = 1000 // an election timeout
	put := Put("k", "v")
	write := Call{Kind: CallWrite, Req: &put}
	get := Call{Kind: CallRange, Req: &Request{Range: &etcdserverpb.RangeRequest{Key: []byte("k")}}}
	readTxn := Call{Kind: CallTxn, Req: &Request{Txn: &etcdserverpb.TxnRequest{}}}
	promote := Call{Kind: CallPromote, Req: &Request{}}
	cluster := Call{Kind: CallCluster, Req: &Request{}}
	// Peers 2 and 3 have been connected since 100, peer 4 since 5000, and
	// peer 5 is not.
	peer := func(id uint64) (bool, int64) {
		switch id {
		case 2, 3:
			return true, 100
		case 4:
			return true, 5000
		}
		return false, 0
	}
	five := []uint64{1, 2, 3, 4, 5}
	at := func(c Call, start int64, lead uint64, members []uint64) TimedOut {
		return TimedOut{Call: c, Start: start, ElectionTimeout: et, Self: 1, Lead: lead, Members: members, Peer: peer}
	}
	with := func(to TimedOut, f func(*TimedOut)) TimedOut { f(&to); return to }
	for _, tc := range []struct {
		name string
		to   TimedOut
		want string
	}{
		{"unpublished", with(at(get, 0, 0, nil), func(t *TimedOut) { t.Unpublished = true }), "context deadline exceeded"},
		// (Reads at a member whose leader is not connected: a proposal
		// there would get "connection lost".)
		{"read", at(get, 6000, 5, five), "etcdserver: request timed out"},
		{"transaction that reads", at(readTxn, 6000, 5, five), "etcdserver: request timed out"},
		{"member down", with(at(write, 0, 0, nil), func(t *TimedOut) { t.Down = true }), "etcdserver: request timed out"},
		{"held, no leader", with(at(write, 0, 0, nil), func(t *TimedOut) { t.HeldNoLeader = true }), "context deadline exceeded"},
		{"promotion held, no leader", with(at(promote, 0, 0, nil), func(t *TimedOut) { t.HeldNoLeader = true }), "etcdserver: no leader"},
		{"promotion proposed", at(promote, 6000, 3, five), "etcdserver: request timed out"},
		{"began just before its member led", with(at(write, 3000, 1, five), func(t *TimedOut) { t.LeadElected = 4000 }),
			"etcdserver: request timed out, possibly due to previous leader failure"},
		{"began long before its member led", with(at(write, 1000, 1, five), func(t *TimedOut) { t.LeadElected = 4000 }),
			"etcdserver: request timed out"},
		{"leader connected to a quorum", at(write, 6000, 1, five), "etcdserver: request timed out"},
		{"leader connected to a quorum only lately", at(write, 3000, 1, []uint64{1, 4, 5}),
			"etcdserver: request timed out, possibly due to connection lost"},
		{"follower of a connected leader", at(cluster, 6000, 2, five), "etcdserver: request timed out"},
		{"follower of a leader connected lately", at(write, 3000, 4, five),
			"etcdserver: request timed out, possibly due to connection lost"},
		{"follower of an unconnected leader", at(write, 6000, 5, five),
			"etcdserver: request timed out, possibly due to connection lost"},
		{"follower of a leader out of view", at(write, 6000, 9, five),
			"etcdserver: request timed out, possibly due to connection lost"},
		{"no leader, proposed", at(write, 6000, 0, five), "etcdserver: request timed out"},
	} {
		if got := TimeoutErr(tc.to); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
