package server

import (
	"slices"
	"strings"
	"testing"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
)

// The alarm store as etcd's: an activation is kept once, a deactivation
// of an alarm not raised changes nothing, a GET lists them all in the
// order raised, and only a raise or a clear says it changed something.
// (Seen to fail with Apply adding a second NOSPACE of one member.)
func TestAlarmStore(t *testing.T) {
	var as Alarms
	act := func(member uint64) *etcdserverpb.AlarmRequest {
		return &etcdserverpb.AlarmRequest{Action: etcdserverpb.AlarmRequest_ACTIVATE, MemberID: member, Alarm: etcdserverpb.AlarmType_NOSPACE}
	}
	if ans, changed := as.Apply(act(7)); !changed || len(ans) != 1 || ans[0].MemberID != 7 {
		t.Fatalf("raise: %v %v", ans, changed)
	}
	if ans, changed := as.Apply(act(7)); changed || ans != nil {
		t.Fatalf("raise again: %v %v", ans, changed)
	}
	as.Apply(act(9))
	if len(as) != 2 || !as.Has(9, etcdserverpb.AlarmType_NOSPACE) || !as.NoSpace() {
		t.Fatalf("alarms %v", as)
	}
	list, changed := as.Apply(&etcdserverpb.AlarmRequest{Action: etcdserverpb.AlarmRequest_GET})
	if changed || len(list) != 2 || list[0].MemberID != 7 || list[1].MemberID != 9 {
		t.Fatalf("get: %v %v", list, changed)
	}
	if k := as.Kinds(); !slices.Equal(k, []string{"NOSPACE"}) {
		t.Fatalf("kinds %v", k)
	}
	off := &etcdserverpb.AlarmRequest{Action: etcdserverpb.AlarmRequest_DEACTIVATE, MemberID: 7, Alarm: etcdserverpb.AlarmType_NOSPACE}
	if _, changed := as.Apply(off); !changed || as.Has(7, etcdserverpb.AlarmType_NOSPACE) {
		t.Fatalf("clear: %v %v", as, changed)
	}
	if ans, changed := as.Apply(off); changed || ans != nil {
		t.Fatalf("clear again: %v %v", ans, changed)
	}
	if s := AlarmString(as.Members()[0]); s != "memberID:9 alarm:NOSPACE " {
		t.Fatalf("AlarmString %q", s)
	}
}

// The quota charges a put its size and 256 bytes, a transaction its larger
// branch, a lease grant 64 bytes; a delete costs nothing and passes a full
// file; with no file yet nothing is refused. (Seen to fail with a
// transaction charged its smaller branch.)
func TestOverQuota(t *testing.T) {
	var b Backend
	put := Put("k", strings.Repeat("v", 100))
	if b.OverQuota(&put, 1) {
		t.Fatal("refused with no file")
	}
	kv := NewKV(1)
	b.Attach(kv, func() int64 { return 0 })
	size := b.File.Size()
	cost := int64(256 + put.Put.Size())
	if b.OverQuota(&put, size+cost+1) || !b.OverQuota(&put, size+cost) {
		t.Fatalf("a put of cost %d at file %d: the quota's edge is wrong", cost, size)
	}
	txn := Request{Txn: &etcdserverpb.TxnRequest{
		Success: []*etcdserverpb.RequestOp{{Request: &etcdserverpb.RequestOp_RequestPut{RequestPut: put.Put}}},
		Failure: []*etcdserverpb.RequestOp{{Request: &etcdserverpb.RequestOp_RequestPut{RequestPut: put.Put}},
			{Request: &etcdserverpb.RequestOp_RequestPut{RequestPut: put.Put}}}}}
	if !b.OverQuota(&txn, size+2*cost) || b.OverQuota(&txn, size+2*cost+1) {
		t.Fatal("a transaction is not charged its larger branch")
	}
	grant := Request{LeaseGrant: &etcdserverpb.LeaseGrantRequest{TTL: 10}}
	if !b.OverQuota(&grant, size+64) || b.OverQuota(&grant, size+65) {
		t.Fatal("a lease grant is not charged 64 bytes")
	}
	del := Request{DeleteRange: &etcdserverpb.DeleteRangeRequest{Key: []byte("k")}}
	if b.OverQuota(&del, 1) {
		t.Fatal("a delete refused")
	}
	if !NeedsSpace(&etcdserverpb.InternalRaftRequest{Txn: txn.Txn}) || NeedsSpace(&etcdserverpb.InternalRaftRequest{DeleteRange: del.DeleteRange}) {
		t.Fatal("the capped applier's rule is wrong")
	}
}

// A request over the quota is refused, and the member raises its NOSPACE
// alarm unless it stands already (another member's does not count) or no
// leader is known; one within the quota is neither.
func TestQuotaCheck(t *testing.T) {
	var b Backend
	b.Attach(NewKV(1), func() int64 { return 0 })
	put := Put("k", "v")
	full := b.File.Size() // every request that costs something is over
	var mine, others Alarms
	mine.Apply(&etcdserverpb.AlarmRequest{Action: etcdserverpb.AlarmRequest_ACTIVATE, MemberID: 7, Alarm: etcdserverpb.AlarmType_NOSPACE})
	others.Apply(&etcdserverpb.AlarmRequest{Action: etcdserverpb.AlarmRequest_ACTIVATE, MemberID: 9, Alarm: etcdserverpb.AlarmType_NOSPACE})
	for _, tc := range []struct {
		name          string
		quota         int64
		alarms        Alarms
		leaderKnown   bool
		refuse, raise bool
	}{
		{"within the quota", DefaultQuota, nil, true, false, false},
		{"over, no alarm", full, nil, true, true, true},
		{"over, no leader", full, nil, false, true, false},
		{"over, its alarm raised", full, mine, true, true, false},
		{"over, another's alarm raised", full, others, true, true, true},
	} {
		refuse, raise := b.QuotaCheck(&put, tc.quota, tc.alarms, 7, tc.leaderKnown)
		if refuse != tc.refuse || raise != tc.raise {
			t.Errorf("%s: refuse %v raise %v, want %v %v", tc.name, refuse, raise, tc.refuse, tc.raise)
		}
	}
}

// Only a voter can be made leader.
func TestCheckTransferee(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    Transferee
		want string
	}{
		{"voter", Transferee{Known: true, Voter: true}, ""},
		{"unknown", Transferee{Voter: true}, ErrBadLeaderTransferee},
		{"learner (even one counted a voter)", Transferee{Known: true, Learner: true, Voter: true}, ErrBadLeaderTransferee},
		{"removed", Transferee{Known: true, Removed: true, Voter: true}, ErrBadLeaderTransferee},
		{"not in the configuration", Transferee{Known: true}, ErrBadLeaderTransferee},
	} {
		if got := CheckTransferee(tc.t); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
