package etcdcompare

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// progressSteps is what kube-apiserver's watch cache does before a
// consistent read: a watch with progress notify on one client, five puts
// through another (two of them on the watched key), then RequestProgress.
// It returns what the watch saw, revisions relative to the store's
// revision before the puts (+0), one line per response.
func progressSteps(t *testing.T, endpoint string) string {
	t.Helper()
	dial := func() *clientv3.Client {
		c, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	watcher, writer := dial(), dial()
	defer watcher.Close()
	defer writer.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	get, err := writer.Get(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	base := get.Header.Revision
	var out []string
	line := func(r clientv3.WatchResponse) {
		var evs []string
		for _, e := range r.Events {
			evs = append(evs, fmt.Sprintf(" %s %s@+%d", e.Type, e.Kv.Key, e.Kv.ModRevision-base))
		}
		kind := "events"
		switch {
		case r.Created:
			kind = "created"
		case r.IsProgressNotify():
			kind = "progress"
		}
		out = append(out, fmt.Sprintf("%s header=+%d%s", kind, r.Header.Revision-base, strings.Join(evs, "")))
	}
	wch := watcher.Watch(clientv3.WithRequireLeader(ctx), "foo", clientv3.WithProgressNotify(), clientv3.WithCreatedNotify())
	r, ok := <-wch
	if !ok {
		t.Fatal("the watch ended before it was created")
	}
	line(r)
	for _, k := range []string{"foo", "bar", "foo", "bar", "bar"} {
		if _, err := writer.Put(ctx, k, "v"); err != nil {
			t.Fatal(err)
		}
	}
	// Both events on foo come before the progress notification.
	for range 2 {
		if r, ok = <-wch; !ok {
			t.Fatal("the watch ended")
		}
		line(r)
	}
	if err := watcher.RequestProgress(clientv3.WithRequireLeader(ctx)); err != nil {
		t.Fatal(err)
	}
	select {
	case r, ok = <-wch:
		if !ok {
			t.Fatal("the watch ended")
		}
		line(r)
	case <-time.After(3 * time.Second):
		out = append(out, "no answer to RequestProgress within 3s")
	}
	return strings.Join(out, "\n") + "\n"
}

// wantProgress is what a real etcd v3.6.16 answers (seen with RAFTSIM_ETCD):
// the progress notification carries the store's current revision.
const wantProgress = `created header=+0
events header=+1 PUT foo@+1
events header=+3 PUT foo@+3
progress header=+5
`

// TestWireProgressMatchesRealEtcd: RequestProgress on a watch stream whose
// watch is synced answers the store's current revision, against raftsim
// serve's engine as against a real etcd (with RAFTSIM_ETCD). (Seen to fail
// before progress was modelled: serve answered +(-1), the watch's start
// revision minus one.)
func TestWireProgressMatchesRealEtcd(t *testing.T) {
	if bin := etcdBinOrEmpty(t); bin != "" {
		c, err := StartReal(bin, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		got := progressSteps(t, ClientURL(Members[0]))
		c.Stop()
		if got != wantProgress {
			t.Fatalf("a real etcd:\n%s", diff(wantProgress, got, "want", "etcd"))
		}
	}
	c, err := StartWire("", "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	if got := progressSteps(t, ClientURL(Members[0])); got != wantProgress {
		t.Fatalf("raftsim serve:\n%s", diff(wantProgress, got, "etcd", "serve"))
	}
}

// etcdBinOrEmpty is etcdBin, or "" when RAFTSIM_ETCD is not set (the
// serve half of a comparison still runs, against the real etcd's answer
// written in the test).
func etcdBinOrEmpty(t *testing.T) string {
	t.Helper()
	if os.Getenv("RAFTSIM_ETCD") == "" {
		return ""
	}
	return etcdBin(t)
}
