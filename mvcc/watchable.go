package mvcc

import (
	"slices"

	"go.etcd.io/etcd/api/v3/mvccpb"
)

// WatchableStore keeps a store's watches, as etcd's watchableStore does
// (server/storage/mvcc/watchable_store.go), in three groups:
//
//   - synced: caught up with the store; each write's events go to them as
//     it is applied (Notify).
//   - unsynced: behind, from a revision the store has passed (a watch
//     created from an old revision, or every watch after a snapshot
//     replaced the store); they are caught up from the store's history.
//     etcd does it every 100ms; here it is done at once.
//   - victims: watches whose consumer could not take what they were sent
//     (their stream is full); they keep it and are tried again by
//     SyncVictims, etcd's syncVictimsLoop, then go back to the synced or
//     the unsynced group.
//
// The store it watches can be replaced (Restore). Watches are kept in the
// order they were made, so that the same run sends the same responses.
type WatchableStore struct {
	s                         *Store
	synced, unsynced, victims []*Watcher
}

// WatchResponse is what a watch is sent at once: the events of one
// revision (or, catching up, of every revision up to Revision), or its
// cancellation because the revision it needs has been compacted.
type WatchResponse struct {
	Events []mvccpb.Event
	// Revision is the store's revision the response reflects: its header's.
	Revision int64
	// CompactRevision is set when the watch is cancelled because the
	// events it needs are compacted: the compaction's revision.
	CompactRevision int64
}

// Watcher is one watch: the keys [Key, End) (End empty: Key alone; GteEnd:
// every key from Key on), from a revision on.
type Watcher struct {
	Key, End []byte
	// PrevKV: its events carry the key as it was before, when that
	// revision can still be read.
	PrevKV bool
	// send gives a response to the watch's consumer, and reports false
	// when the consumer is full: the watch becomes a victim.
	send func(WatchResponse) bool
	// next is the first revision it has not been sent.
	next    int64
	pending *WatchResponse // a victim's: what its consumer could not take
	// start is the revision it was asked to start from (0: the next).
	start int64
}

// NewWatchable returns the watches of s, none yet.
func NewWatchable(s *Store) *WatchableStore { return &WatchableStore{s: s} }

// Len returns how many watches there are.
func (ws *WatchableStore) Len() int { return len(ws.synced) + len(ws.unsynced) + len(ws.victims) }

// Watch makes a watch of [key, end) from revision startRev (0: from the
// next one), whose responses go to send. A watch from a revision the store
// has passed is caught up at once (it may be cancelled at once, if its
// revision is compacted).
func (ws *WatchableStore) Watch(key, end []byte, startRev int64, prevKV bool, send func(WatchResponse) bool) *Watcher {
	w := &Watcher{Key: key, End: end, PrevKV: prevKV, send: send, start: startRev}
	cur := ws.s.Rev()
	if startRev == 0 || startRev > cur {
		w.next = max(cur+1, startRev)
		ws.synced = append(ws.synced, w)
		return w
	}
	w.next = startRev
	ws.unsynced = append(ws.unsynced, w)
	ws.syncWatchers()
	return w
}

// Cancel removes a watch; it is sent nothing more.
func (ws *WatchableStore) Cancel(w *Watcher) {
	for _, g := range []*[]*Watcher{&ws.synced, &ws.unsynced, &ws.victims} {
		*g = slices.DeleteFunc(*g, func(x *Watcher) bool { return x == w })
	}
}

// Notify gives the events of one write (one revision, in order) to the
// synced watches, as etcd's watchableStore.notify.
func (ws *WatchableStore) Notify(evs []mvccpb.Event) {
	if len(evs) == 0 {
		return
	}
	rev := evs[0].Kv.ModRevision
	kept := ws.synced[:0]
	var victims []*Watcher
	for _, w := range ws.synced {
		if w.next > rev {
			kept = append(kept, w) // a watch from a future revision
			continue
		}
		w.next = rev + 1
		if r := w.filter(evs, rev); len(r.Events) > 0 && !w.send(r) {
			w.pending = &r
			victims = append(victims, w)
			continue
		}
		kept = append(kept, w)
	}
	clear(ws.synced[len(kept):])
	ws.synced = kept
	ws.victims = append(ws.victims, victims...)
}

// filter keeps the events of w's keys, with the key as it was before only
// when w asked for it.
func (w *Watcher) filter(evs []mvccpb.Event, rev int64) WatchResponse {
	r := WatchResponse{Revision: rev}
	for i := range evs {
		if !InRange(evs[i].Kv.Key, w.Key, w.End) {
			continue
		}
		ev := mvccpb.Event{Type: evs[i].Type, Kv: evs[i].Kv}
		if w.PrevKV {
			ev.PrevKv = evs[i].PrevKv
		}
		r.Events = append(r.Events, ev)
	}
	return r
}

// syncWatchers catches the unsynced watches up from the store's history,
// as etcd's syncWatchers: each is sent every event since its revision in
// one response, then is synced; one whose revision is compacted is sent
// its cancellation and removed.
func (ws *WatchableStore) syncWatchers() {
	unsynced := ws.unsynced
	ws.unsynced = nil
	cur := ws.s.Rev()
	for _, w := range unsynced {
		evs, err := ws.s.Changes(w.next)
		if err != nil {
			w.send(WatchResponse{Revision: cur, CompactRevision: ws.s.CompactRev()})
			continue
		}
		w.next = cur + 1
		if r := w.filter(evs, cur); len(r.Events) > 0 && !w.send(r) {
			w.pending = &r
			ws.victims = append(ws.victims, w)
			continue
		}
		ws.synced = append(ws.synced, w)
	}
}

// SyncVictims tries again to give the victims what their consumers could
// not take, as etcd's syncVictimsLoop: one that takes it goes back to the
// synced group, or to the unsynced one if the store has moved on since,
// to be caught up.
func (ws *WatchableStore) SyncVictims() {
	if len(ws.victims) == 0 {
		return
	}
	victims := ws.victims
	ws.victims = nil
	cur := ws.s.Rev()
	for _, w := range victims {
		if !w.send(*w.pending) {
			ws.victims = append(ws.victims, w)
			continue
		}
		w.pending = nil
		if w.next <= cur {
			ws.unsynced = append(ws.unsynced, w)
		} else {
			ws.synced = append(ws.synced, w)
		}
	}
	ws.syncWatchers()
}

// Restore watches s instead, a store restored from a snapshot, as etcd's
// watchableStore.Restore: every watch becomes unsynced and is caught up
// from the revision it had reached (raft log compaction is not MVCC
// compaction: only a watch whose revision s has compacted is cancelled).
func (ws *WatchableStore) Restore(s *Store) {
	ws.s = s
	ws.unsynced = append(ws.unsynced, ws.synced...)
	ws.synced = nil
	ws.syncWatchers()
}

// Synced reports the store's revision, and whether every watch of ws
// (one stream's) is synced, as etcd's progressIfSync decides whether a
// progress notification goes out: each is in the synced group (not
// unsynced, not a victim) and the store has reached the revision it
// starts from. A progress notification that says so carries the
// revision: the watches have been sent every event up to it.
func (ws *WatchableStore) Synced(watchers []*Watcher) (int64, bool) {
	rev := ws.s.Rev()
	for _, w := range watchers {
		if !slices.Contains(ws.synced, w) || rev < w.start {
			return rev, false
		}
	}
	return rev, true
}
