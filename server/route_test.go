package server

import (
	"slices"
	"strings"
	"testing"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
)

// Each call goes its way: writes to raft once a leader is known, reads
// locally when serializable, lease calls and promotions to the leader.
func TestRoute(t *testing.T) {
	get := &Request{Range: &etcdserverpb.RangeRequest{Key: []byte("k")}}
	sget := &Request{Range: &etcdserverpb.RangeRequest{Key: []byte("k"), Serializable: true}}
	put := &Request{Put: &etcdserverpb.PutRequest{Key: []byte("k")}}
	readTxn := &Request{Txn: &etcdserverpb.TxnRequest{Success: []*etcdserverpb.RequestOp{
		{Request: &etcdserverpb.RequestOp_RequestRange{RequestRange: get.Range}}}}}
	writeTxn := &Request{Txn: &etcdserverpb.TxnRequest{Success: []*etcdserverpb.RequestOp{
		{Request: &etcdserverpb.RequestOp_RequestPut{RequestPut: put.Put}}}}}
	none := &Request{}
	follower := Role{LeaderKnown: true}
	leader := Role{Leader: true, LeaderKnown: true}
	for _, tc := range []struct {
		name string
		c    Call
		r    Role
		want Way
	}{
		{"put", Call{Kind: CallWrite, Req: put}, follower, Propose},
		{"put, no leader", Call{Kind: CallWrite, Req: put}, Role{}, Hold},
		{"get", Call{Kind: CallRange, Req: get}, follower, ReadIndex},
		{"get, no leader", Call{Kind: CallRange, Req: get}, Role{}, ReadIndex},
		{"serializable get", Call{Kind: CallRange, Req: sget}, follower, ReadLocal},
		{"get, stale reads", Call{Kind: CallRange, Req: get}, Role{LeaderKnown: true, StaleReads: true}, ReadLocal},
		{"txn that reads", Call{Kind: CallTxn, Req: readTxn}, follower, ReadIndex},
		{"txn that writes", Call{Kind: CallTxn, Req: writeTxn}, follower, Propose},
		{"txn that writes, no leader", Call{Kind: CallTxn, Req: writeTxn}, Role{}, Hold},
		{"member list", Call{Kind: CallMemberList, Req: none}, follower, ReadIndex},
		{"watch, no leader", Call{Kind: CallWatch, Req: none}, Role{}, OpenWatch},
		{"keep-alive at the leader", Call{Kind: CallLease, Req: none}, leader, AtLeader},
		{"keep-alive at a follower", Call{Kind: CallLease, Req: none}, follower, ToLeader},
		{"keep-alive, no leader", Call{Kind: CallLease, Req: none}, Role{}, Hold},
		{"promote at a follower", Call{Kind: CallPromote, Req: none}, follower, ToLeader},
		{"lease list, no leader", Call{Kind: CallLeaseList, Req: none}, Role{}, ListLeases},
		{"member add", Call{Kind: CallCluster, Req: none}, follower, ProposeCluster},
		{"member add, no leader", Call{Kind: CallCluster, Req: none}, Role{}, Hold},
	} {
		if got := Route(tc.c, tc.r); got != tc.want {
			t.Errorf("%s: way %d, want %d", tc.name, got, tc.want)
		}
	}
}

// A learner serves serializable gets only; a watch that requires a leader
// is refused where none is known; a bad request is refused first.
func TestAdmit(t *testing.T) {
	sget := &Request{Range: &etcdserverpb.RangeRequest{Key: []byte("k"), Serializable: true}}
	get := &Request{Range: &etcdserverpb.RangeRequest{Key: []byte("k")}}
	empty := &Request{Range: &etcdserverpb.RangeRequest{Serializable: true}}
	list := &Request{MemberList: &etcdserverpb.MemberListRequest{}}
	learner := Role{Learner: true, LeaderKnown: true}
	for _, tc := range []struct {
		name string
		c    Call
		r    Role
		want string
	}{
		{"serializable get at a learner", Call{Kind: CallRange, Req: sget}, learner, ""},
		{"get at a learner", Call{Kind: CallRange, Req: get}, learner, ErrNotForLearner},
		{"serializable member list at a learner", Call{Kind: CallMemberList, Req: list}, learner, ErrNotForLearner},
		{"empty key at a learner", Call{Kind: CallRange, Req: empty}, learner, "etcdserver: key is not provided"},
		{"watch requiring a leader", Call{Kind: CallWatch, Req: &Request{}, RequireLeader: true}, Role{}, ErrNoLeader},
		{"watch requiring a leader, one known", Call{Kind: CallWatch, Req: &Request{}, RequireLeader: true}, Role{LeaderKnown: true}, ""},
	} {
		if got := Admit(tc.c, tc.r); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// Held calls are released in the order they came, and only once.
func TestHeld(t *testing.T) {
	var h Held[string]
	h.Hold("a")
	h.Hold("b")
	if !h.Holds("b") || h.Holds("c") || h.Len() != 2 {
		t.Fatalf("holds b %v, c %v, len %d; want true, false, 2", h.Holds("b"), h.Holds("c"), h.Len())
	}
	if got := h.Release(); !slices.Equal(got, []string{"a", "b"}) || h.Len() != 0 {
		t.Fatalf("released %q, %d left; want [a b], 0", got, h.Len())
	}
}

// A member that has not published itself serves nothing yet; a write (or
// any transaction) too large to propose is refused; anything else, a
// large read among them, is served.
func TestArrive(t *testing.T) {
	big := strings.Repeat("a", MaxRequestBytes)
	bigPut := Put("k", big)
	bigGet := &Request{Range: &etcdserverpb.RangeRequest{Key: []byte(big)}}
	readTxn := &Request{Txn: &etcdserverpb.TxnRequest{Success: []*etcdserverpb.RequestOp{
		{Request: &etcdserverpb.RequestOp_RequestRange{RequestRange: bigGet.Range}}}}}
	small := Put("k", "v")
	for _, tc := range []struct {
		name      string
		c         Call
		published bool
		want      Arrival
	}{
		{"unpublished", Call{Kind: CallWrite, Req: &small}, false, WaitPublished},
		{"unpublished, too large", Call{Kind: CallWrite, Req: &bigPut}, false, WaitPublished},
		{"put", Call{Kind: CallWrite, Req: &small}, true, Serve},
		{"put too large", Call{Kind: CallWrite, Req: &bigPut}, true, RefuseTooLarge},
		{"txn too large, read only", Call{Kind: CallTxn, Req: readTxn}, true, RefuseTooLarge},
		{"get with a large key", Call{Kind: CallRange, Req: bigGet}, true, Serve},
	} {
		if got := Arrive(tc.c, tc.published, 1<<40); got != tc.want {
			t.Errorf("%s: arrival %d, want %d", tc.name, got, tc.want)
		}
	}
}
