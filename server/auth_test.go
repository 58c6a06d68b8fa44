package server

import (
	"encoding/base64"
	"testing"

	"go.etcd.io/etcd/api/v3/authpb"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// authFixture is a store with root (root role) and alice (role r: read
// foo, readwrite app/ by prefix, read [a, c), write [c, e) and [e, g)),
// auth enabled, and tokens for both.
func authFixture(t *testing.T) *AuthStore {
	t.Helper()
	as := NewAuthStore()
	h, err := HashPassword([]byte("pw"), 4, [16]byte{})
	if err != nil {
		t.Fatal(err)
	}
	hb := base64.StdEncoding.EncodeToString(h)
	root := &pb.RequestHeader{Username: "root", AuthRevision: 1 << 20}
	idx := uint64(0)
	do := func(r *pb.InternalRaftRequest) any {
		t.Helper()
		idx++
		if r.Header == nil {
			r.Header = root
		}
		resp, e := as.ApplyAuth(r, idx, 0)
		if e != "" {
			t.Fatalf("%s: %s", DescribeAuth(r), e)
		}
		return resp
	}
	do(&pb.InternalRaftRequest{AuthUserAdd: &pb.AuthUserAddRequest{Name: "root", HashedPassword: hb}})
	do(&pb.InternalRaftRequest{AuthUserAdd: &pb.AuthUserAddRequest{Name: "alice", HashedPassword: hb}})
	do(&pb.InternalRaftRequest{AuthUserGrantRole: &pb.AuthUserGrantRoleRequest{User: "root", Role: "root"}})
	do(&pb.InternalRaftRequest{AuthRoleAdd: &pb.AuthRoleAddRequest{Name: "r"}})
	for _, p := range []*authpb.Permission{
		{PermType: authpb.READ, Key: []byte("foo")},
		{PermType: authpb.READWRITE, Key: []byte("app/"), RangeEnd: []byte("app0")},
		{PermType: authpb.READ, Key: []byte("a"), RangeEnd: []byte("c")},
		{PermType: authpb.WRITE, Key: []byte("m"), RangeEnd: []byte("o")},
		{PermType: authpb.WRITE, Key: []byte("o"), RangeEnd: []byte("q")},
		{PermType: authpb.READ, Key: []byte("z"), RangeEnd: []byte{0}},
	} {
		do(&pb.InternalRaftRequest{AuthRoleGrantPermission: &pb.AuthRoleGrantPermissionRequest{Name: "r", Perm: p}})
	}
	do(&pb.InternalRaftRequest{AuthUserGrantRole: &pb.AuthUserGrantRoleRequest{User: "alice", Role: "r"}})
	do(&pb.InternalRaftRequest{AuthEnable: &pb.AuthEnableRequest{}})
	return as
}

func TestAuthPermissions(t *testing.T) {
	as := authFixture(t)
	alice := &AuthInfo{Username: "alice", Revision: as.Revision()}
	root := &AuthInfo{Username: "root", Revision: as.Revision()}
	for _, c := range []struct {
		key, end string
		write    bool
		ai       *AuthInfo
		want     string
	}{
		{"foo", "", false, alice, ""},
		{"foo", "", true, alice, ErrPermissionDenied},
		{"fooo", "", false, alice, ErrPermissionDenied},
		{"app/x", "", true, alice, ""},
		{"app/", "app0", false, alice, ""},
		{"app/", "d", false, alice, ErrPermissionDenied},
		{"a", "c", false, alice, ""},
		{"b", "bz", false, alice, ""},
		{"a", "d", false, alice, ErrPermissionDenied},
		{"m", "q", true, alice, ""}, // two adjacent ranges cover it
		{"m", "r", true, alice, ErrPermissionDenied},
		{"n", "", false, alice, ErrPermissionDenied},
		{"z", "\x00", false, alice, ""}, // from z on
		{"zz", "", false, alice, ""},
		{"y", "\x00", false, alice, ErrPermissionDenied},
		{"anything", "\x00", true, root, ""},
		{"foo", "", false, nil, ErrUserEmpty},
		{"foo", "", false, &AuthInfo{Username: "alice", Revision: 1}, ErrAuthOldRevision},
		{"foo", "", false, &AuthInfo{Username: "bob", Revision: as.Revision()}, ErrPermissionDenied},
	} {
		if got := as.permitted(c.ai, []byte(c.key), []byte(c.end), c.write); got != c.want {
			t.Errorf("%q..%q write=%v as %v: %q, want %q", c.key, c.end, c.write, c.ai, got, c.want)
		}
	}
}

func TestAuthTokensAndEncoding(t *testing.T) {
	as := authFixture(t)
	if e := as.CheckPassword("alice", "pw"); e != "" {
		t.Fatal(e)
	}
	if e := as.CheckPassword("alice", "px"); e != ErrAuthFailed {
		t.Fatal(e)
	}
	resp, e := as.ApplyAuth(&pb.InternalRaftRequest{Authenticate: &pb.InternalAuthenticateRequest{Name: "alice", SimpleToken: "abc"}}, 42, 1000)
	if e != "" {
		t.Fatal(e)
	}
	tok := resp.(*pb.AuthenticateResponse).Token
	if tok != "abc.42" {
		t.Fatalf("token %q", tok)
	}
	if ai, e := as.Info(tok, 1000+SimpleTokenTTL); e != "" || ai.Username != "alice" {
		t.Fatalf("%v %q", ai, e)
	}
	if _, e := as.Info(tok, 1000+3*SimpleTokenTTL); e != ErrInvalidAuthToken {
		t.Fatalf("an expired token: %q", e)
	}
	if _, e := as.Info("nosuch.1", 0); e != ErrInvalidAuthToken {
		t.Fatalf("an unknown token: %q", e)
	}
	back, err := DecodeAuthStore(as.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if string(back.Encode()) != string(as.Encode()) || !back.Enabled() || back.Revision() != as.Revision() {
		t.Fatal("the store does not survive Encode and DecodeAuthStore")
	}
	kv := NewKV(1)
	kv.Auth = as
	kv2, err := DecodeKV(kv.Encode(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if string(kv2.Auth.Encode()) != string(as.Encode()) {
		t.Fatal("the auth store does not survive KV.Encode")
	}
	if plain := NewKV(1).Encode(); string(plain) != string((&KV{Store: NewKV(1).Store, Lessor: NewKV(1).Lessor}).Encode()) {
		t.Fatal("a state machine without auth encodes differently")
	}
}
