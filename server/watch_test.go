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
	progress []string
}

func (l *sinkLog) Progress(t string, n int, rev int64, all bool) {
	l.sent[t] = append(l.sent[t], n)
	l.progress = append(l.progress, fmt.Sprintf("%s #%d rev %d all=%v", t, n, rev, all))
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

// Progress as etcd v3.6's watch server and watchable store decide it: a
// progress request is answered with the store's current revision, once,
// for every watch of the stream, when all of them are synced, and not at
// all while one is a victim or waits for a future start revision; a
// progress_notify watch's periodic notification is elided after a tick
// in which it was sent events. (Seen to fail with Synced answering true
// for victims, and with the elision left out.)
func TestWatchProgress(t *testing.T) {
	kv := NewKV(1)
	log := &sinkLog{sent: map[string][]int{}, canceled: map[string]string{}}
	var ws Watches[string]
	ws.Store(kv.Store, log)
	put := func(key string) {
		_, evs, err := kv.Store.Put(Put(key, "v").Put)
		if err != nil {
			t.Fatal(err)
		}
		ws.Notify(evs)
	}
	progress := func(want ...string) {
		t.Helper()
		if fmt.Sprint(log.progress) != fmt.Sprint(want) {
			t.Fatalf("progress notifications %q, want %q", log.progress, want)
		}
		log.progress = nil
	}
	ws.Start("a", &etcdserverpb.WatchCreateRequest{Key: []byte("a"), ProgressNotify: true}, false)
	ws.Start("b", &etcdserverpb.WatchCreateRequest{Key: []byte("b")}, false)
	for range 5 {
		put("c")
	}
	ws.RequestProgress([]string{"a", "b"})
	progress("a #1 rev 6 all=true")
	ws.RequestProgress(nil)
	ws.RequestProgress([]string{"gone"})
	progress()

	// A watch from a revision the store has not reached holds the
	// stream's progress back until it has.
	ws.Start("future", &etcdserverpb.WatchCreateRequest{Key: []byte("f"), StartRevision: 8}, false)
	ws.RequestProgress([]string{"future", "a"})
	progress()
	put("c")
	put("c")
	ws.RequestProgress([]string{"future", "a"})
	progress("future #1 rev 8 all=true")

	// A victim (its stream full) holds it back until it has room again.
	for range WatchStreamBuffer {
		put("b")
	}
	put("b") // b's stream is full: b is a victim
	ws.RequestProgress([]string{"a", "b"})
	progress()
	ws.Received("b")
	ws.RequestProgress([]string{"a", "b"})
	progress(fmt.Sprintf("a #2 rev %d all=true", kv.Store.Rev()))

	// The periodic notification: a (progress_notify) gets one per tick
	// without events; b (without) none.
	ws.ProgressTick("a")
	ws.ProgressTick("b")
	progress(fmt.Sprintf("a #3 rev %d all=false", kv.Store.Rev()))
	put("a")
	ws.ProgressTick("a")
	progress()
	ws.ProgressTick("a")
	progress(fmt.Sprintf("a #5 rev %d all=false", kv.Store.Rev()))
}
