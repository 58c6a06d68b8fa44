package sim

import (
	pb "go.etcd.io/raft/v3/raftpb"
)

// evKind is what a scheduled event does when its time comes.
type evKind uint8

const (
	evTick              evKind = iota // a member's clock ticks
	evDeliver                         // a message arrives at a member
	evDiskDone                        // a member's pending write becomes durable
	evStallEnd                        // a stalled member resumes
	evRequestArrive                   // a client request reaches a member
	evReplyArrive                     // a member's reply reaches its client
	evClientTimeout                   // a client gives up on a request
	evReadRetry                       // a member resends a ReadIndex nobody answered (etcd: every 500ms)
	evReportSnapshot                  // tell a leader how a MsgSnap it sent fared
	evReportUnreachable               // tell a member a peer could not be reached
	evWatchArrive                     // a watch event reaches its client
)

// event is one entry of the schedule. It is a plain value so that the heap
// allocates nothing per event.
type event struct {
	at   Time
	seq  uint64 // insertion order breaks ties: same-time events run FIFO
	node uint64 // the member it happens to
	peer uint64
	id   uint64 // message ID (evDeliver), or watch event index
	sent Time   // evDeliver: when it was sent
	msg  *pb.Message
	op   *Op
	rep  *reply      // evReplyArrive
	wev  *WatchEvent // evWatchArrive
	inc  uint32      // the member's incarnation when scheduled; a crash makes it stale
	kind evKind
	flag bool // evReportSnapshot: failed; evDeliver: this is a duplicate
	lost bool // evDeliver: the network loses it; it vanishes at this time
	// evDeliver: it reached a stalled member and waits in its queue
	arrived bool
}

// schedule orders events by (at, seq). Most events are scheduled a fixed
// delay ahead (a tick, a client hop, a timeout, a disk write): since now
// never goes back, events of one delay come due in the order they were
// scheduled, so each delay has a FIFO lane and only events of varying delay
// (message deliveries) go into the binary heap. This keeps the heap small:
// a client's 7s timeouts would otherwise pile up in it by the hundred.
type schedule struct {
	ev    []event // the heap
	lanes []lane
	seq   uint64
}

type lane struct {
	delay Time
	q     []event
	head  int
}

func (s *schedule) less(i, j int) bool {
	a, b := &s.ev[i], &s.ev[j]
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// push schedules e at e.at.
func (s *schedule) push(e event) {
	s.seq++
	e.seq = s.seq
	s.ev = append(s.ev, e)
	i := len(s.ev) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s.ev[i], s.ev[p] = s.ev[p], s.ev[i]
		i = p
	}
}

// after schedules e delay after now, which must not be earlier than the
// now of any earlier call.
func (s *schedule) after(now, delay Time, e event) {
	s.seq++
	e.seq, e.at = s.seq, now.plus(delay)
	for i := range s.lanes {
		if s.lanes[i].delay == delay {
			s.lanes[i].q = append(s.lanes[i].q, e)
			return
		}
	}
	s.lanes = append(s.lanes, lane{delay: delay, q: []event{e}})
}

// next returns where the earliest event is (-1: the heap, else a lane) and
// its time.
func (s *schedule) next() (int, Time, bool) {
	where, ok := -1, false
	var at Time
	var seq uint64
	if len(s.ev) > 0 {
		at, seq, ok = s.ev[0].at, s.ev[0].seq, true
	}
	for i := range s.lanes {
		l := &s.lanes[i]
		if l.head == len(l.q) {
			continue
		}
		e := &l.q[l.head]
		if !ok || e.at < at || e.at == at && e.seq < seq {
			where, at, seq, ok = i, e.at, e.seq, true
		}
	}
	return where, at, ok
}

// take removes and returns the earliest event, found by next.
func (s *schedule) take(where int) event {
	if where < 0 {
		return s.pop()
	}
	l := &s.lanes[where]
	e := l.q[l.head]
	l.q[l.head] = event{} // drop references for the GC
	l.head++
	switch {
	case l.head == len(l.q):
		l.q, l.head = l.q[:0], 0
	case l.head >= 64 && 2*l.head >= len(l.q):
		n := copy(l.q, l.q[l.head:])
		clear(l.q[n:])
		l.q, l.head = l.q[:n], 0
	}
	return e
}

// pending calls f for every scheduled event, in no particular order.
func (s *schedule) pending(f func(*event)) {
	for i := range s.ev {
		f(&s.ev[i])
	}
	for i := range s.lanes {
		l := &s.lanes[i]
		for j := l.head; j < len(l.q); j++ {
			f(&l.q[j])
		}
	}
}

func (s *schedule) pop() event {
	top := s.ev[0]
	n := len(s.ev) - 1
	s.ev[0] = s.ev[n]
	s.ev[n] = event{} // drop references for the GC
	s.ev = s.ev[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && s.less(r, l) {
			c = r
		}
		if !s.less(c, i) {
			break
		}
		s.ev[i], s.ev[c] = s.ev[c], s.ev[i]
		i = c
	}
	return top
}
