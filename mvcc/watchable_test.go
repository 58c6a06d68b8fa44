package mvcc

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// consumer records what a watch is sent, and takes no more than room
// responses (room < 0: any number).
type consumer struct {
	got  []string
	room int
}

func (c *consumer) send(r WatchResponse) bool {
	if c.room == 0 {
		return false
	}
	c.room--
	if r.CompactRevision != 0 {
		c.got = append(c.got, fmt.Sprintf("compacted at %d", r.CompactRevision))
		return true
	}
	var evs []string
	for _, e := range r.Events {
		s := e.Type.String() + " " + string(e.Kv.Key) + "=" + string(e.Kv.Value)
		if e.PrevKv != nil {
			s += " prev=" + string(e.PrevKv.Value)
		}
		evs = append(evs, s)
	}
	c.got = append(c.got, fmt.Sprintf("rev %d: %s", r.Revision, strings.Join(evs, ", ")))
	return true
}

func (c *consumer) take() []string { got := c.got; c.got = nil; return got }

// The three groups of etcd's watchable store: a synced watch is sent each
// write's events; one from an old revision is caught up in one response;
// one from a compacted revision is cancelled; a watch whose consumer is
// full becomes a victim, keeps what it could not send, and once its
// consumer has room is sent it and caught up; a restored store catches
// every watch up on it.
func TestWatchableStore(t *testing.T) {
	s := New()
	ws := NewWatchable(s)
	put := func(k, v string) {
		t.Helper()
		_, evs, err := s.Put(&pb.PutRequest{Key: []byte(k), Value: []byte(v)})
		if err != nil {
			t.Fatal(err)
		}
		ws.Notify(evs)
	}
	want := func(c *consumer, lines ...string) {
		t.Helper()
		if got := c.take(); !slices.Equal(got, lines) {
			t.Fatalf("got %q, want %q", got, lines)
		}
	}
	s.ReportEvents(true)
	put("a", "1") // rev 2
	now := &consumer{room: -1}
	ws.Watch([]byte("a"), nil, 0, true, now.send)
	put("a", "2") // rev 3
	put("b", "1") // rev 4
	want(now, "rev 3: PUT a=2 prev=1")

	old := &consumer{room: -1}
	ws.Watch([]byte("a"), []byte("c"), 2, false, old.send)
	want(old, "rev 4: PUT a=1, PUT a=2, PUT b=1")
	put("b", "2") // rev 5
	want(old, "rev 5: PUT b=2")

	slow := &consumer{room: 1}
	ws.Watch([]byte("b"), nil, 0, false, slow.send)
	put("b", "3") // rev 6: taken
	put("b", "4") // rev 7: the consumer is full: a victim
	put("b", "5") // rev 8: not sent to a victim
	want(slow, "rev 6: PUT b=3")
	if len(ws.victims) != 1 {
		t.Fatalf("%d victims, want 1", len(ws.victims))
	}
	slow.room = -1
	ws.SyncVictims()
	want(slow, "rev 7: PUT b=4", "rev 8: PUT b=5") // what it kept, then the catch-up
	put("b", "6")
	want(slow, "rev 9: PUT b=6")
	if ws.Len() != 3 || len(ws.victims) != 0 || len(ws.unsynced) != 0 {
		t.Fatalf("groups: %d synced, %d unsynced, %d victims", len(ws.synced), len(ws.unsynced), len(ws.victims))
	}

	if _, err := s.Compact(7); err != nil {
		t.Fatal(err)
	}
	gone := &consumer{room: -1}
	ws.Watch([]byte("a"), nil, 3, false, gone.send)
	want(gone, "compacted at 7")
	if ws.Len() != 3 {
		t.Fatalf("a cancelled watch is kept: %d watches", ws.Len())
	}

	// A snapshot's store, further on: the watches catch up on it.
	r := New()
	for _, v := range []string{"x", "y", "z", "w", "v", "u", "t", "s", "r", "q"} {
		if _, _, err := r.Put(&pb.PutRequest{Key: []byte("b"), Value: []byte(v)}); err != nil {
			t.Fatal(err)
		}
	}
	ws.Restore(r)
	want(slow, "rev 11: PUT b=r, PUT b=q")
	want(now)
}
