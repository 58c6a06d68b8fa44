package etcdcompare

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc/connectivity"
)

// keepaliveHold dials endpoint with a client keepalive of 6s (etcd's
// server enforces at least 5s between pings), opens a watch and holds it
// idle for hold, and reports whether the client's connection stayed
// ready: a server that finds the pings too many sends GoAway
// ENHANCE_YOUR_CALM "too_many_pings", and the connection goes.
func keepaliveHold(t *testing.T, endpoint string, hold time.Duration) {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second,
		DialKeepAliveTime: 6 * time.Second, DialKeepAliveTimeout: 10 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), hold+10*time.Second)
	defer cancel()
	wch := c.Watch(clientv3.WithRequireLeader(ctx), "k", clientv3.WithCreatedNotify())
	if r := <-wch; !r.Created {
		t.Fatalf("the watch was not created: %+v", r)
	}
	conn := c.ActiveConnection()
	if s := conn.GetState(); s != connectivity.Ready {
		t.Fatalf("the connection is %s after the watch was created", s)
	}
	held, stop := context.WithTimeout(ctx, hold)
	defer stop()
	if conn.WaitForStateChange(held, connectivity.Ready) {
		t.Fatalf("the connection went %s while the watch was held (a GoAway for pinging?)", conn.GetState())
	}
}

// TestWireKeepaliveMatchesRealEtcd: a client keepalive of 6s with a watch
// held for 45s sees no GoAway, from raftsim serve's engine as from a real
// etcd v3.6.16 (with RAFTSIM_ETCD), whose gRPC server enforces
// --grpc-keepalive-min-time 5s. grpc-go pings no more often than every
// 10s whatever the client asks, and a server with gRPC's default policy
// (5 minutes) counts a strike from the second ping on and sends GoAway
// too_many_pings at the fourth, at about 40s: hence 45s, not 30s. (Seen
// to fail before serve set etcd's keepalive policy.)
func TestWireKeepaliveMatchesRealEtcd(t *testing.T) {
	if testing.Short() {
		t.Skip("holds a watch for 45s of wall time")
	}
	const hold = 45 * time.Second
	if bin := etcdBinOrEmpty(t); bin != "" {
		c, err := StartReal(bin, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Run("etcd", func(t *testing.T) { keepaliveHold(t, ClientURL(Members[0]), hold) })
		c.Stop()
	}
	c, err := StartWire("", "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	t.Run("serve", func(t *testing.T) { keepaliveHold(t, ClientURL(Members[0]), hold) })
}
