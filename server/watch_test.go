package server

import (
	"fmt"
	"testing"

	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/mvcc"
)

// sinkLog records what watch streams send, by stream.
type sinkLog struct {
	sent     map[string][]int // response numbers
	canceled map[string]string
}

func (l *sinkLog) Send(t string, n int, _ mvcc.WatchResponse) { l.sent[t] = append(l.sent[t], n) }
func (l *sinkLog) Cancel(t string, err string, compact int64) {
	l.canceled[t] = fmt.Sprintf("%s at %d", err, compact)
}

// A member's watch streams: a stream whose client takes nothing holds
// WatchStreamBuffer responses, then its watch is a victim until a response
// is received; a watch from a compacted revision is cancelled with etcd's
// error and its stream closed; losing the leader cancels only the watches
// that require one; a cancelled watch is sent nothing more. (Seen to fail
// with the buffer's check off by one, and with LeaderLost cancelling every
// watch.)
func TestWatchStreams(t *testing.T) {
	kv := NewKV(1)
	log := &sinkLog{sent: map[string][]int{}, canceled: map[string]string{}}
	var ws Watches[string]
	ws.Store(kv.Store, log)
	put := func(key string) {
		p := Put(key, "v")
		_, evs, err := kv.Store.Put(p.Put)
		if err != nil {
			t.Fatal(err)
		}
		ws.Notify(evs)
	}
	all := &etcdserverpb.WatchCreateRequest{Key: []byte("a")}
	ws.Start("slow", all, false)
	ws.Start("leader", all, true)
	for range WatchStreamBuffer + 5 {
		put("a")
	}
	if n := len(log.sent["slow"]); n != WatchStreamBuffer {
		t.Fatalf("a stream nobody reads sent %d responses, want %d", n, WatchStreamBuffer)
	}
	ws.Received("slow")
	if n := len(log.sent["slow"]); n != WatchStreamBuffer+1 {
		t.Fatalf("after one received: %d responses, want %d", n, WatchStreamBuffer+1)
	}
	if last := log.sent["slow"][len(log.sent["slow"])-1]; last != WatchStreamBuffer+1 {
		t.Fatalf("responses numbered up to %d", last)
	}

	if _, err := kv.Store.Compact(kv.Store.Rev()); err != nil {
		t.Fatal(err)
	}
	ws.Start("old", &etcdserverpb.WatchCreateRequest{Key: []byte("a"), StartRevision: 2}, false)
	if got := log.canceled["old"]; got != mvcc.GRPCMessage(mvcc.ErrCompacted)+fmt.Sprintf(" at %d", kv.Store.Rev()) {
		t.Fatalf("a watch from a compacted revision: %q", got)
	}
	if ws.Open() != 2 {
		t.Fatalf("%d streams open, want 2 (the compacted one closed)", ws.Open())
	}

	ws.LeaderLost()
	if got := log.canceled["leader"]; got != ErrNoLeader+" at 0" {
		t.Fatalf("the require-leader watch: %q", got)
	}
	if _, ok := log.canceled["slow"]; ok || ws.Open() != 1 {
		t.Fatalf("LeaderLost cancelled a watch that does not require a leader (%d open)", ws.Open())
	}
	ws.Cancel("slow")
	before := len(log.sent["slow"])
	for range WatchStreamBuffer {
		ws.Received("slow")
	}
	put("a")
	if len(log.sent["slow"]) != before || ws.Open() != 0 || ws.Watching() {
		t.Fatal("a cancelled watch is still sent responses")
	}
}
