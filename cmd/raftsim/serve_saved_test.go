//go:build !js

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// TestSavedNestedTxnReplays: a transaction nested in another is saved as
// one (txn: in then:), not as then: [""], and replays. Before the fix the
// session was saved with then: [""], which run refused.
func TestSavedNestedTxnReplays(t *testing.T) {
	s := serve(t)
	c, _ := newClient(t, "http://"+s.eps[0])
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	inner := clientv3.OpTxn([]clientv3.Cmp{clientv3.Compare(clientv3.Version("n"), "=", 0)},
		[]clientv3.Op{clientv3.OpPut("n", "inner"), clientv3.OpGet("m")}, []clientv3.Op{clientv3.OpDelete("n")})
	if _, err := c.Txn(ctx).Then(inner, clientv3.OpPut("m", "outer")).Else(clientv3.OpTxn(nil, nil, []clientv3.Op{clientv3.OpPut("e", "x")})).Commit(); err != nil {
		t.Fatal(err)
	}
	saved := s.replaysToServedTrace()
	if bytes.Contains(saved, []byte(`then: [""]`)) || bytes.Contains(saved, []byte(`''`)) {
		t.Errorf("the nested txn is saved empty:\n%s", saved)
	}
}

// TestRefusedRequestsReplay: requests etcd refuses are answered with
// etcd's errors, and the session still replays to serve's trace.
func TestRefusedRequestsReplay(t *testing.T) {
	s := serve(t)
	c, _ := newClient(t, "http://"+s.eps[0])
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, tc := range []struct {
		what string
		do   func() error
		want string
	}{
		{"a txn writing a key twice", func() error {
			_, err := c.Txn(ctx).Then(clientv3.OpPut("d", "1"), clientv3.OpPut("d", "2")).Commit()
			return err
		}, "etcdserver: duplicate key given in txn request"},
		{"a put of 1.6 MB", func() error {
			_, err := c.Put(ctx, "big", strings.Repeat("x", 1_600_000))
			return err
		}, "etcdserver: request is too large"},
		{"a revoke of lease 0", func() error {
			_, err := c.Revoke(ctx, 0)
			return err
		}, "etcdserver: requested lease not found"},
		{"a member add 0.8 s after the start (etcd refuses it before raft)", func() error {
			_, err := c.MemberAdd(ctx, []string{"http://m1:2380"})
			return err
		}, "etcdserver: unhealthy cluster"},
		{"a second member add", func() error {
			_, err := c.MemberAdd(ctx, []string{"http://m2:2380"})
			return err
		}, "etcdserver: unhealthy cluster"},
	} {
		if err := tc.do(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.what, err, tc.want)
		}
	}
	if l, err := c.Grant(ctx, -5); err != nil {
		t.Errorf("a grant with TTL -5: %v", err)
	} else if l.TTL != 2 {
		t.Errorf("a grant with TTL -5 has TTL %d", l.TTL)
	}
	s.replaysToServedTrace()
}
