//go:build !js

package main

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// TestServedAuthSessionReplays: a session with etcd's auth served over the
// wire (users, a role with a permission, auth enable, clients with and
// without a user, a permission denied, auth disable), once saved, replays
// with raftsim run to the same trace, byte for byte; the saved session
// holds bcrypt hashes and tokens, never a password.
func TestServedAuthSessionReplays(t *testing.T) {
	s := serve(t)
	ep := "http://" + s.eps[0]
	c, _ := newClient(t, ep)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, f := range []func() error{
		func() error { _, err := c.UserAdd(ctx, "root", "s3cret-root"); return err },
		func() error { _, err := c.UserGrantRole(ctx, "root", "root"); return err },
		func() error { _, err := c.UserAdd(ctx, "alice", "s3cret-alice"); return err },
		func() error { _, err := c.RoleAdd(ctx, "app"); return err },
		func() error {
			_, err := c.RoleGrantPermission(ctx, "app", "app/", clientv3.GetPrefixRangeEnd("app/"), clientv3.PermissionType(clientv3.PermReadWrite))
			return err
		},
		func() error { _, err := c.UserGrantRole(ctx, "alice", "app"); return err },
		func() error { _, err := c.AuthEnable(ctx); return err },
	} {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Get(ctx, "app/x"); !errors.Is(err, rpctypes.ErrUserEmpty) {
		t.Errorf("a get without a user: %v, want %v", err, rpctypes.ErrUserEmpty)
	}
	alice, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, DialTimeout: 2 * time.Second, Username: "alice", Password: "s3cret-alice", Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer alice.Close()
	if _, err := alice.Put(ctx, "app/x", "1"); err != nil {
		t.Fatal(err)
	}
	if r, err := alice.Get(ctx, "app/x"); err != nil || len(r.Kvs) != 1 {
		t.Fatalf("alice's get: %v, %v", r, err)
	}
	// etcd refuses a watch outside her range with a created and canceled
	// response whose reason is the error; one inside it opens.
	wr := <-alice.Watch(ctx, "other")
	if !wr.Canceled || wr.Err() == nil || !strings.Contains(wr.Err().Error(), "etcdserver: permission denied") {
		t.Errorf("alice's watch outside her range: canceled %v, %v; want permission denied", wr.Canceled, wr.Err())
	}
	wctx, stopWatch := context.WithCancel(ctx)
	wch := alice.Watch(wctx, "app/", clientv3.WithPrefix())
	if _, err := alice.Put(ctx, "app/y", "2"); err != nil {
		t.Fatal(err)
	}
	if wr := <-wch; wr.Err() != nil || len(wr.Events) != 1 {
		t.Errorf("alice's watch inside her range: %v, %d events", wr.Err(), len(wr.Events))
	}
	stopWatch()
	if _, err := alice.Put(ctx, "other", "1"); !errors.Is(err, rpctypes.ErrPermissionDenied) {
		t.Errorf("alice's put outside her range: %v, want %v", err, rpctypes.ErrPermissionDenied)
	}
	root, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, DialTimeout: 2 * time.Second, Username: "root", Password: "s3cret-root", Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, err := root.AuthDisable(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, "app/x"); err != nil {
		t.Errorf("a get once auth is disabled: %v", err)
	}
	saved := s.replaysToServedTrace()
	for _, want := range []string{"auth:", "auth_user_add", "hashedPassword", "auth_enable", "authenticate", "token: "} {
		if !strings.Contains(string(saved), want) {
			t.Errorf("the saved session has no %q:\n%s", want, saved)
		}
	}
	if strings.Contains(string(saved), "s3cret") {
		t.Errorf("the saved session holds a password:\n%s", saved)
	}
	if trace, err := os.ReadFile(s.trace); err != nil || strings.Contains(string(trace), "s3cret") {
		t.Errorf("the trace holds a password (or cannot be read: %v)", err)
	}
}
