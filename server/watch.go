package server

import (
	"slices"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"

	"github.com/raftsim/raftsim/mvcc"
)

// ErrNoLeader is etcd's answer at a member that knows no leader, to a
// request that requires one (a watch with clientv3's WithRequireLeader)
// and in a Status call's errors.
const ErrNoLeader = "etcdserver: no leader"

// WatchStreamBuffer is how many responses a watch stream holds before its
// watch becomes a victim: etcd's chanBufLen. A response is held from the
// moment the member sends it until its client has it (Received).
const WatchStreamBuffer = 128

// Watches are the watch streams a member's clients have open, over the
// member's watchable store (etcd's v3rpc watch server, its
// serverWatchStreams, over mvcc's watchableStore). T is the member's
// handle on one watch (its client's request); a stream is known by it.
// The member delivers: what a stream sends goes to the WatchSink.
type Watches[T comparable] struct {
	store   *mvcc.WatchableStore // nil until the member has a store
	sink    WatchSink[T]
	streams []*watchStream[T] // in the order opened
}

// WatchSink is where a member's watch streams send, to their clients.
type WatchSink[T any] interface {
	// Send sends t's client response number n (from 1) of its watch.
	Send(t T, n int, r mvcc.WatchResponse)
	// Cancel ends t's watch with etcd's error err: its revision is
	// compacted (at compact), or it required a leader and the member has
	// lost it.
	Cancel(t T, err string, compact int64)
	// Progress sends t's client response number n: a progress
	// notification, no events and the store's revision rev. all: on
	// behalf of every watch of the client's stream (watch ID -1, the
	// answer to a progress request); else of t's watch alone (the
	// periodic notification of a watch created with progress_notify).
	Progress(t T, n int, rev int64, all bool)
}

type watchStream[T any] struct {
	t             T
	requireLeader bool
	watcher       *mvcc.Watcher // nil until the store has made it
	sent          int           // responses sent so far
	inFlight      int           // responses sent and not yet received
	// progressNotify: created with progress_notify; progressDue: no
	// events were sent since the last periodic notification was due
	// (etcd's serverWatchStream.progress).
	progressNotify, progressDue bool
}

// Store watches s: a member's first store, or one restored from a
// snapshot, which every watch is caught up on (as etcd's
// watchableStore.Restore: raft log compaction is not MVCC compaction, and
// ends no watch; only a watch whose next revision the snapshot's store has
// compacted is cancelled). Streams send to sink.
func (ws *Watches[T]) Store(s *mvcc.Store, sink WatchSink[T]) {
	ws.sink = sink
	if ws.store == nil {
		ws.store = mvcc.NewWatchable(s)
		return
	}
	ws.store.Restore(s)
}

// Start opens a stream for t's watch r: the member has answered that it
// is created; the watchable store catches it up from its start revision.
// requireLeader: it is cancelled when the member loses its leader
// (LeaderLost).
func (ws *Watches[T]) Start(t T, r *etcdserverpb.WatchCreateRequest, requireLeader bool) {
	s := &watchStream[T]{t: t, requireLeader: requireLeader, progressNotify: r.ProgressNotify, progressDue: true}
	ws.streams = append(ws.streams, s)
	s.watcher = ws.store.Watch(r.Key, r.RangeEnd, r.StartRevision, r.PrevKv,
		func(r mvcc.WatchResponse) bool { return ws.send(s, r) })
}

// send sends a watch response on s, or reports that s is full. A response
// that cancels the watch (its revision is compacted) ends the stream.
func (ws *Watches[T]) send(s *watchStream[T], r mvcc.WatchResponse) bool {
	if r.CompactRevision != 0 {
		ws.sink.Cancel(s.t, mvcc.GRPCMessage(mvcc.ErrCompacted), r.CompactRevision)
		ws.drop(s.t) // the store has let it go
		return true
	}
	if s.inFlight >= WatchStreamBuffer {
		return false
	}
	s.sent++
	s.inFlight++
	s.progressDue = false // etcd elides the next progress notification
	ws.sink.Send(s.t, s.sent, r)
	return true
}

// RequestProgress answers a progress request on a client's stream, whose
// watches at this member are ts' (etcd's RequestProgressAll): when every
// one of them is synced, one progress notification with the store's
// current revision goes out on the first (watch ID -1, for all of them);
// while one is not, nothing does, and the client asks again. Watches the
// member no longer has are left out; with none, nothing is sent.
func (ws *Watches[T]) RequestProgress(ts []T) {
	var streams []*watchStream[T]
	var watchers []*mvcc.Watcher
	for _, t := range ts {
		if s := ws.find(t); s != nil && s.watcher != nil {
			streams = append(streams, s)
			watchers = append(watchers, s.watcher)
		}
	}
	if len(streams) == 0 || ws.store == nil {
		return
	}
	ws.progress(streams[0], watchers, true)
}

// ProgressTick is the periodic progress timer of t's stream (etcd's
// --watch-progress-notify-interval): a watch created with progress_notify
// that was sent no events since the last tick is sent a progress
// notification of its own, if it is synced.
func (ws *Watches[T]) ProgressTick(t T) {
	s := ws.find(t)
	if s == nil || !s.progressNotify || ws.store == nil {
		return
	}
	if s.progressDue && s.watcher != nil {
		ws.progress(s, []*mvcc.Watcher{s.watcher}, false)
	}
	s.progressDue = true
}

// progress sends a progress notification on s when watchers are synced.
// Like any response it takes a place in the stream's buffer; a full
// stream drops it, as etcd's watcher.send does.
func (ws *Watches[T]) progress(s *watchStream[T], watchers []*mvcc.Watcher, all bool) {
	rev, ok := ws.store.Synced(watchers)
	if !ok || s.inFlight >= WatchStreamBuffer {
		return
	}
	s.sent++
	s.inFlight++
	ws.sink.Progress(s.t, s.sent, rev, all)
}

// ProgressNotify reports whether t's watch was created with
// progress_notify.
func (ws *Watches[T]) ProgressNotify(t T) bool {
	s := ws.find(t)
	return s != nil && s.progressNotify
}

// Received is the last event of a response on t's stream received by its
// client: the response has left the stream, and a watch the member could
// not send to (a victim) may get its turn.
func (ws *Watches[T]) Received(t T) {
	if s := ws.find(t); s != nil {
		s.inFlight--
	}
	if ws.store != nil {
		ws.store.SyncVictims()
	}
}

// Notify gives the events of one applied write to the watches.
func (ws *Watches[T]) Notify(evs []mvccpb.Event) { ws.store.Notify(evs) }

// Watching reports whether the store has a watch (a write need not report
// its events without one).
func (ws *Watches[T]) Watching() bool { return ws.store.Len() > 0 }

// LeaderLost cancels the watches that require a leader, as etcd's
// monitorLeader does once LeaderMonitor says so, each with ErrNoLeader.
func (ws *Watches[T]) LeaderLost() {
	for _, s := range slices.Clone(ws.streams) {
		if s.requireLeader {
			ws.sink.Cancel(s.t, ErrNoLeader, 0)
			ws.Cancel(s.t)
		}
	}
}

// Cancel ends t's watch at the member, if its stream is here: the stream
// forgets it and the store sends it nothing more.
func (ws *Watches[T]) Cancel(t T) {
	s := ws.find(t)
	if s == nil {
		return
	}
	ws.drop(t)
	if ws.store != nil && s.watcher != nil {
		ws.store.Cancel(s.watcher)
	}
}

// Open returns how many streams are open.
func (ws *Watches[T]) Open() int { return len(ws.streams) }

// All calls f for each open stream's t, in the order opened (a crash ends
// them).
func (ws *Watches[T]) All(f func(T)) {
	for _, s := range ws.streams {
		f(s.t)
	}
}

func (ws *Watches[T]) find(t T) *watchStream[T] {
	for _, s := range ws.streams {
		if s.t == t {
			return s
		}
	}
	return nil
}

func (ws *Watches[T]) drop(t T) {
	ws.streams = slices.DeleteFunc(ws.streams, func(s *watchStream[T]) bool { return s.t == t })
}
