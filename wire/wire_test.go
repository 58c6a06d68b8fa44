//go:build !js

package wire

// The build constraint: etcd's clientv3, which these tests drive, does not build for js/wasm.

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/raftsim/raftsim/sim"
)

// served starts a three-member world, lets it start, and serves it on
// loopback ports chosen by the system until the test ends. It returns the
// endpoints and a channel of functions run on the owner's goroutine.
func served(t testing.TB) ([]string, chan<- func(*sim.World)) {
	t.Helper()
	return servedWith(t, func(*sim.Config) {})
}

// servedWith is served with the configuration changed by change.
func servedWith(t testing.TB, change func(*sim.Config)) ([]string, chan<- func(*sim.World)) {
	t.Helper()
	cfg := sim.DefaultConfig()
	cfg.Members = []string{"m1", "m2", "m3"}
	change(&cfg)
	w, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := StartCluster(w, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	f := NewFront(256)
	var eps []Endpoint
	for _, m := range cfg.Members {
		eps = append(eps, Endpoint{Member: m, Addr: "127.0.0.1:0"})
	}
	s, err := Listen(f, eps)
	if err != nil {
		t.Fatal(err)
	}
	var addrs []string
	for _, m := range cfg.Members {
		addrs = append(addrs, s.Addr(m))
	}
	stop := make(chan struct{})
	do := make(chan func(*sim.World), 16)
	done := make(chan error, 1)
	go func() {
		done <- Loop(w, f, s, LoopOptions{Rate: 1, Stop: stop, Tick: func(w *sim.World) error {
			for {
				select {
				case fn := <-do:
					fn(w)
				default:
					return nil
				}
			}
		}})
	}()
	t.Cleanup(func() {
		close(stop)
		if err := <-done; err != nil {
			t.Error(err)
		}
		s.Stop()
	})
	return addrs, do
}

func client(t testing.TB, eps ...string) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestClientV3 puts, gets, watches and grants a lease through clientv3,
// against the simulated members.
func TestClientV3(t *testing.T) {
	eps, _ := served(t)
	c := client(t, eps...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	wch := c.Watch(ctx, "k", clientv3.WithPrefix())
	put, err := c.Put(ctx, "k1", "v1")
	if err != nil {
		t.Fatal(err)
	}
	if put.Header.Revision != 2 {
		t.Errorf("the first put's revision = %d, want 2 (etcd's store starts at 1)", put.Header.Revision)
	}
	get, err := c.Get(ctx, "k1")
	if err != nil || len(get.Kvs) != 1 || string(get.Kvs[0].Value) != "v1" {
		t.Fatalf("get: %v %v", get, err)
	}
	select {
	case wr := <-wch:
		if len(wr.Events) != 1 || string(wr.Events[0].Kv.Key) != "k1" {
			t.Fatalf("watch: %+v", wr)
		}
	case <-ctx.Done():
		t.Fatal("no watch event")
	}
	l, err := c.Grant(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Put(ctx, "leased", "x", clientv3.WithLease(l.ID)); err != nil {
		t.Fatal(err)
	}
	ttl, err := c.TimeToLive(ctx, l.ID, clientv3.WithAttachedKeys())
	if err != nil || len(ttl.Keys) != 1 || ttl.GrantedTTL != 5 {
		t.Fatalf("timetolive: %+v %v", ttl, err)
	}
	if _, err := c.Revoke(ctx, l.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Revoke(ctx, l.ID); !errors.Is(err, rpctypes.ErrLeaseNotFound) {
		t.Fatalf("revoking twice: %v, want %v", err, rpctypes.ErrLeaseNotFound)
	}
}

// TestClosingAStreamCancelsAllItsWatches: a client that closes a watch
// stream with several watches on it gives up on each of them (etcd closes
// every watcher of the stream): none is left open in the world.
func TestClosingAStreamCancelsAllItsWatches(t *testing.T) {
	eps, do := served(t)
	c := client(t, eps[0])
	ctx, cancel := context.WithCancel(context.Background())
	var chans []clientv3.WatchChan
	for _, k := range []string{"a", "b", "c"} {
		chans = append(chans, c.Watch(ctx, k))
	}
	for _, k := range []string{"a", "b", "c"} {
		if _, err := c.Put(context.Background(), k, "v"); err != nil {
			t.Fatal(err)
		}
	}
	for _, ch := range chans {
		<-ch
	}
	cancel()
	c.Close() // the stream ends
	deadline := time.Now().Add(5 * time.Second)
	for {
		open := make(chan int)
		do <- func(w *sim.World) {
			n := 0
			for _, op := range w.Ops() {
				if op.Kind == sim.OpWatch && op.Status == sim.OpOK {
					n++
				}
			}
			open <- n
		}
		n := <-open
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d watches are still open after their stream closed", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
