package server

import (
	"testing"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// A member's server layer answers reads and opens watches as auth
// permits, at the member's own clock, with no world around it: with auth
// off anyone reads; with it on a request needs a token the member knows
// that has not expired, and its user the read permission on the range.
func TestMemberReadsAsAuthPermits(t *testing.T) {
	var s testMember
	s.KV = NewKV(1)
	s.KV.ApplyIndex = 1
	if a := s.KV.Apply(&pb.InternalRaftRequest{Put: &pb.PutRequest{Key: []byte("foo"), Value: []byte("v")}}, 0); a.Err != "" {
		t.Fatal(a.Err)
	}
	get := func(key, token string) *Request {
		return &Request{Range: &pb.RangeRequest{Key: []byte(key)}, Token: token}
	}
	watch := func(key, token string) *Request {
		return &Request{Watch: &pb.WatchCreateRequest{Key: []byte(key)}, Token: token}
	}
	resp, err := s.Read(get("foo", ""), 0)
	if err != "" || resp.Range == nil || len(resp.Range.Kvs) != 1 || string(resp.Range.Kvs[0].Value) != "v" {
		t.Fatalf("auth off: a read got %v, %q", resp.Range, err)
	}
	if why := s.WatchPermitted(watch("foo", ""), 0); why != "" {
		t.Fatalf("auth off: a watch refused: %q", why)
	}

	s.KV.Auth = authFixture(t)
	r, e := s.KV.Auth.ApplyAuth(&pb.InternalRaftRequest{Authenticate: &pb.InternalAuthenticateRequest{Name: "alice", SimpleToken: "abc"}}, 42, 1000)
	if e != "" {
		t.Fatal(e)
	}
	alice := r.(*pb.AuthenticateResponse).Token
	for _, c := range []struct {
		name  string
		req   *Request
		now   int64
		watch bool
		want  string
	}{
		{"alice reads foo", get("foo", alice), 1000, false, ""},
		{"alice may not read fooo", get("fooo", alice), 1000, false, ErrPermissionDenied},
		{"no token", get("foo", ""), 1000, false, ErrUserEmpty},
		{"alice watches foo", watch("foo", alice), 1000, true, ""},
		{"alice may not watch n", watch("n", alice), 1000, true, ErrPermissionDenied},
		{"a watch with no token", watch("foo", ""), 1000, true, ErrUserEmpty},
		// Last: an expired token is gone.
		{"a token expired at the member's clock", get("foo", alice), 1000 + 3*SimpleTokenTTL, false, ErrInvalidAuthToken},
	} {
		if c.watch {
			if got := s.WatchPermitted(c.req, c.now); got != c.want {
				t.Errorf("%s: %q, want %q", c.name, got, c.want)
			}
			continue
		}
		resp, err := s.Read(c.req, c.now)
		if err != c.want {
			t.Errorf("%s: %q, want %q", c.name, err, c.want)
		}
		if err == "" && (resp.Range == nil || len(resp.Range.Kvs) != 1) {
			t.Errorf("%s: answered %v", c.name, resp.Range)
		}
		if err != "" && resp.Range != nil {
			t.Errorf("%s: refused, but answered %v", c.name, resp.Range)
		}
	}
}

// A member's leader monitor cancels the watches that require a leader
// once three polls in a row found none, and no other watch; a poll that
// finds a leader starts the count again.
func TestMemberPollLeader(t *testing.T) {
	var s testMember
	log := &sinkLog{sent: map[string][]int{}, canceled: map[string]string{}}
	s.SetKV(NewKV(1), log)
	all := &pb.WatchCreateRequest{Key: []byte("a")}
	s.Watches.Start("plain", all, false)
	s.Watches.Start("leader", all, true)
	for _, leader := range []bool{false, false, true, false, false} {
		s.PollLeader(leader)
	}
	if len(log.canceled) != 0 || s.Watches.Open() != 2 {
		t.Fatalf("cancelled %v after no three polls in a row without a leader", log.canceled)
	}
	s.PollLeader(false)
	if got := log.canceled["leader"]; got != ErrNoLeader+" at 0" || len(log.canceled) != 1 || s.Watches.Open() != 1 {
		t.Fatalf("after three polls in a row without a leader: cancelled %v, %d open", log.canceled, s.Watches.Open())
	}
}
