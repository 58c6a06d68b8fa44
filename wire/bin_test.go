//go:build !js

package wire

// The build constraint: etcd's clientv3, which these tests drive, does not build for js/wasm.

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// TestBinaryValues: values that are not UTF-8 (kube-apiserver stores
// protobuf) come back as they went in, through a put, a transaction (whose
// raft entry carried them as JSON, which replaced such bytes, until it
// learned gob), a get and a watch.
func TestBinaryValues(t *testing.T) {
	eps, _ := served(t)
	c := client(t, eps...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	val := "k8s\x00\n\x0f\n\x02v1\x12\tConfigMap\x12\xff\xfe\x00end"
	wch := c.Watch(ctx, "/b", clientv3.WithPrefix(), clientv3.WithPrevKV())
	if _, err := c.Put(ctx, "/b/1", val); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision("/b/1"), ">", 0)).Then(clientv3.OpPut("/b/1", val+"2")).Commit(); err != nil {
		t.Fatal(err)
	}
	g, err := c.Get(ctx, "/b/1")
	if err != nil || string(g.Kvs[0].Value) != val+"2" {
		t.Fatalf("get %q %v", g.Kvs[0].Value, err)
	}
	var evs []*clientv3.Event
	for len(evs) < 2 {
		evs = append(evs, (<-wch).Events...)
	}
	if string(evs[1].Kv.Value) != val+"2" || evs[1].PrevKv == nil || string(evs[1].PrevKv.Value) != val {
		t.Errorf("the watch saw %q after %v", evs[1].Kv.Value, evs[1].PrevKv)
	}
}
