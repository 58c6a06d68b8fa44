package server

import (
	"fmt"
	"slices"
	"testing"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/membershippb"

	"github.com/raftsim/raftsim/mvcc"
)

// hooksLog writes down what the apply path asks of the member.
type hooksLog struct{ said []string }

func (h *hooksLog) Answer(t string, a Applied) {
	h.said = append(h.said, fmt.Sprintf("answer %s rev %d err %q alarms %d", t, a.Rev, a.Err, len(a.Alarms)))
}
func (h *hooksLog) Revoked(id uint64, a Applied) {
	h.said = append(h.said, fmt.Sprintf("revoked lease %d by %d", a.Revoked, id))
}
func (h *hooksLog) Publish(r *membershippb.ClusterMemberAttrSetRequest, own bool) {
	h.said = append(h.said, fmt.Sprintf("publish %d own %v", r.Member_ID, own))
}
func (h *hooksLog) SetVersion(v string)   { h.said = append(h.said, "version "+v) }
func (h *hooksLog) SetDowngrade(t string) { h.said = append(h.said, "downgrade "+t) }
func (h *hooksLog) NoSpace()              { h.said = append(h.said, "nospace") }
func (h *hooksLog) AlarmChanged(r *etcdserverpb.AlarmRequest) {
	h.said = append(h.said, "alarm "+r.Action.String())
}
func (h *hooksLog) FirstCommitInTerm(f FirstCommit) {
	h.said = append(h.said, fmt.Sprintf("first commit leader %v inherited %d", f.Leader, f.Inherited))
}

// testMember is a member's server layer with strings for its calls and
// held keep-alives.
type testMember = Member[string, *testRead, string]

type noSink struct{}

func (noSink) Send(string, int, mvcc.WatchResponse) {}
func (noSink) Cancel(string, string, int64)         {}
func (noSink) Progress(string, int, int64, bool)    {}

// Each entry goes its way: a put to the state machine, a revocation too
// (the held keep-alives answered before the client), a publication and
// the cluster version to the membership, an alarm to the alarm store; the
// client that waits on the request ID is answered, once.
func TestApplyEntry(t *testing.T) {
	var (
		s      testMember
		alarms Alarms
		d      Decoder
		h      hooksLog
	)
	s.KV = NewKV(1)
	s.Backend.Attach(s.KV, func() int64 { return 0 })
	s.Watches.Store(s.KV.Store, noSink{})
	s.IDs = NewIDGen(7, 0)
	at := ApplyAt{Alarms: &alarms, Self: 7}
	apply := func(r *etcdserverpb.InternalRaftRequest) {
		if err := s.ApplyEntry(&d, Encode(r), at, &h); err != nil {
			t.Fatal(err)
		}
	}
	ids, wait := &s.IDs, &s.Wait
	put, _ := Proposal(ids, &Request{Put: &etcdserverpb.PutRequest{Key: []byte("k")}})
	wait.Register(put, "put")
	apply(&etcdserverpb.InternalRaftRequest{Header: &etcdserverpb.RequestHeader{ID: put}, Put: &etcdserverpb.PutRequest{Key: []byte("k")}})
	apply(&etcdserverpb.InternalRaftRequest{Header: &etcdserverpb.RequestHeader{ID: put}, Put: &etcdserverpb.PutRequest{Key: []byte("k")}})
	apply(&etcdserverpb.InternalRaftRequest{LeaseGrant: &etcdserverpb.LeaseGrantRequest{ID: 5, TTL: 60}})
	wait.Register(40, "revoke")
	apply(&etcdserverpb.InternalRaftRequest{Header: &etcdserverpb.RequestHeader{ID: 40}, LeaseRevoke: &etcdserverpb.LeaseRevokeRequest{ID: 5}})
	mine := ids.Next()
	apply(&etcdserverpb.InternalRaftRequest{Header: &etcdserverpb.RequestHeader{ID: mine}, ClusterMemberAttrSet: &membershippb.ClusterMemberAttrSetRequest{Member_ID: 7}})
	apply(&etcdserverpb.InternalRaftRequest{Header: &etcdserverpb.RequestHeader{ID: 1}, ClusterMemberAttrSet: &membershippb.ClusterMemberAttrSetRequest{Member_ID: 7}})
	apply(&etcdserverpb.InternalRaftRequest{ClusterVersionSet: &membershippb.ClusterVersionSetRequest{Ver: "3.6.0"}})
	wait.Register(41, "alarm")
	apply(&etcdserverpb.InternalRaftRequest{Header: &etcdserverpb.RequestHeader{ID: 41},
		Alarm: &etcdserverpb.AlarmRequest{Action: etcdserverpb.AlarmRequest_ACTIVATE, MemberID: 7, Alarm: etcdserverpb.AlarmType_NOSPACE}})
	want := []string{
		`answer put rev 2 err "" alarms 0`,
		"revoked lease 5 by 40",
		`answer revoke rev 3 err "" alarms 0`,
		"publish 7 own true",
		"publish 7 own false",
		"version 3.6.0",
		"alarm ACTIVATE",
		`answer alarm rev 3 err "" alarms 1`,
	}
	if !slices.Equal(h.said, want) {
		t.Fatalf("the apply path did\n%q\nwant\n%q", h.said, want)
	}
	if err := s.ApplyEntry(&d, []byte{0xff}, at, &h); err == nil {
		t.Fatal("a bad entry applied")
	}
}

// The empty entry that starts a term: a leader promotes its lessor (which
// inherits its leases, once) and checks the cluster version; a follower
// does neither.
func TestFirstCommitInTerm(t *testing.T) {
	for _, c := range []struct {
		name    string
		leader  bool
		primary bool // the lessor is primary already
		want    string
		promote bool // the lessor is primary after
	}{
		{"follower", false, false, "first commit leader false inherited 0", false},
		{"new leader", true, false, "first commit leader true inherited 1", true},
		{"leader already primary", true, true, "first commit leader true inherited 0", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			kv := NewKV(1)
			kv.Lessor.Grant(5, 60, 0)
			s := testMember{KV: kv}
			if c.primary {
				s.LeaseLoop.Promote(kv, 1, 0)
			}
			var h hooksLog
			if err := s.ApplyEntry(nil, nil, ApplyAt{Now: 10, Leader: c.leader, Extend: 1}, &h); err != nil {
				t.Fatal(err)
			}
			if want := []string{c.want}; !slices.Equal(h.said, want) {
				t.Fatalf("the first commit did %q, want %q", h.said, want)
			}
			if got := kv.Lessor.IsPrimary(); got != c.promote {
				t.Fatalf("lessor primary = %v, want %v", got, c.promote)
			}
		})
	}
}
