//go:build !js

package wire

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/sim"
)

// TestPreciseAfterNeverEarly: the loop's short waits never end before
// their time, or the world would run ahead of the wall clock.
func TestPreciseAfterNeverEarly(t *testing.T) {
	for _, d := range []time.Duration{0, time.Microsecond, 100 * time.Microsecond, 900 * time.Microsecond} {
		for range 20 {
			start := time.Now()
			<-preciseAfter(d)
			if got := time.Since(start); got < d {
				t.Fatalf("preciseAfter(%s) ended after %s", d, got)
			}
		}
	}
}

// BenchmarkShortWait compares the two ways the loop can wait 100µs for
// the world's next instant: Go's timer (a millisecond or more on Linux)
// and preciseAfter. The ratio of their ns/op, in one run, is what the
// loop gains on every hop of a request (docs/serve.md).
func BenchmarkShortWait(b *testing.B) {
	const d = 100 * time.Microsecond
	b.Run("timer", func(b *testing.B) {
		t := time.NewTimer(d)
		<-t.C
		for b.Loop() {
			t.Reset(d)
			<-t.C
		}
	})
	b.Run("preciseAfter", func(b *testing.B) {
		for b.Loop() {
			<-preciseAfter(d)
		}
	})
}

// BenchmarkServedGet is one serializable and one linearizable get
// through clientv3 against a served three-member cluster whose links
// take 100µs one way, as loopback's do for a real cluster (make
// kube-compare sets the same): the wall time of a request is the
// modelled hops plus the loop's overhead.
func BenchmarkServedGet(b *testing.B) {
	eps, _ := servedWith(b, func(c *sim.Config) {
		c.ClientLatency = 100 * time.Microsecond
		c.Network.Latency = netmodel.Fixed(100 * time.Microsecond)
	})
	c := client(b, eps[0])
	ctx := context.Background()
	if _, err := c.Put(ctx, "k", "v"); err != nil {
		b.Fatal(err)
	}
	b.Run("serializable", func(b *testing.B) {
		for b.Loop() {
			if _, err := c.Get(ctx, "k", clientv3.WithSerializable()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("linearizable", func(b *testing.B) {
		for b.Loop() {
			if _, err := c.Get(ctx, "k"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
