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
	evTickAdvance                     // a starting member polls its peer connections (election tick advance)
	evPublishRetry                    // a member's publication has not applied within the request timeout
	evVersionCheck                    // the leader checks the cluster version again
	evPeerArrive                      // a lease request forwarded by a member reaches the leader
	evPeerReply                       // the leader's answer to a forwarded lease request gets back
	evPeerRetry                       // a member tries a forwarded lease request again
	evCompactor                       // a kube-apiserver's compaction timer fires
	evKeepAlive                       // a keep-alive stream sends its next keep-alive
	evLoad                            // a load sends its next request (peer: the load)
	evClientRetry                     // a client sends a request again after clientv3's backoff
	evProgressRequest                 // a watch stream's progress request reaches its member (rep.stream)
	evProgressTick                    // a progress_notify watch's periodic progress timer fires
)

// event is one entry of the schedule.
type event struct {
	at   Time
	node uint64 // the member it happens to
	peer uint64
	id   uint64 // evDeliver: the message's ID
	sent Time   // evDeliver: when it was sent
	msg  *pb.Message
	op   *Op
	rep  *reply // evReplyArrive, evWatchArrive
	inc  uint32 // the member's incarnation when scheduled; a crash makes it stale (evDeliver: the sender's group)
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
// (message deliveries) go into a binary heap. This keeps the heap small: a
// client's 7s timeouts would otherwise pile up in it by the hundred.
//
// The heap and the lanes order small keys; the events themselves stay put
// in slots, so that ordering them moves 24 bytes at a time, not 72.
type schedule struct {
	heap  []key
	lanes []lane
	slots []event
	free  []int32 // slots not in use
	seq   uint64

	// The lane whose head is earliest (-1: all are empty), if known. It
	// changes only when a lane's head does.
	firstLane      int
	firstLaneKnown bool
}

type key struct {
	at   Time
	seq  uint64 // insertion order breaks ties: same-time events run FIFO
	slot int32
}

func (a key) before(b key) bool { return a.at < b.at || a.at == b.at && a.seq < b.seq }

type lane struct {
	delay Time
	q     []key
	head  int
}

// put takes a free slot for an event at at and returns its key.
func (s *schedule) put(at Time) key {
	s.seq++
	var slot int32
	if n := len(s.free); n > 0 {
		slot = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		slot = int32(len(s.slots))
		s.slots = append(s.slots, event{})
	}
	return key{at: at, seq: s.seq, slot: slot}
}

// push schedules an event at at and returns it, zero, to be filled in
// before anything else is scheduled (which may move the slots).
//
// NB: the event is filled in where it stays. Copying one that was just
// built costs more than it seems: a copy reads it 16 bytes at a time while
// its fields were written 8 bytes at a time, and each such read stalls.
func (s *schedule) push(at Time) *event {
	k := s.put(at)
	s.heap = append(s.heap, k)
	// Sift up, moving parents down into the hole rather than swapping.
	i := len(s.heap) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !k.before(s.heap[p]) {
			break
		}
		s.heap[i] = s.heap[p]
		i = p
	}
	s.heap[i] = k
	e := &s.slots[k.slot]
	e.at = at
	return e
}

// after schedules an event delay after now, which must not be earlier
// than the now of any earlier call, and returns it as push does.
func (s *schedule) after(now, delay Time) *event {
	e, _ := s.afterSlot(now, delay)
	return e
}

// afterSlot is after, and also returns the event's slot, which stays its
// own until it is taken and released.
func (s *schedule) afterSlot(now, delay Time) (*event, int32) {
	k := s.put(now.plus(delay))
	s.addToLane(delay, k)
	e := &s.slots[k.slot]
	e.at = k.at
	return e, k.slot
}

func (s *schedule) addToLane(delay Time, k key) {
	for i := range s.lanes {
		if l := &s.lanes[i]; l.delay == delay {
			if l.head == len(l.q) {
				s.firstLaneKnown = false // a new head
			}
			l.q = append(l.q, k)
			return
		}
	}
	s.lanes = append(s.lanes, lane{delay: delay, q: []key{k}})
	s.firstLaneKnown = false
}

// earliestLane returns the lane whose head is earliest, or -1.
func (s *schedule) earliestLane() int {
	if !s.firstLaneKnown {
		s.firstLane, s.firstLaneKnown = -1, true
		var first key
		for i := range s.lanes {
			l := &s.lanes[i]
			if l.head == len(l.q) {
				continue
			}
			if k := l.q[l.head]; s.firstLane < 0 || k.before(first) {
				s.firstLane, first = i, k
			}
		}
	}
	return s.firstLane
}

// next returns where the earliest event is (-1: the heap, else a lane) and
// its time.
func (s *schedule) next() (int, Time, bool) {
	i := s.earliestLane()
	switch {
	case i < 0 && len(s.heap) == 0:
		return -1, 0, false
	case i < 0:
		return -1, s.heap[0].at, true
	}
	l := &s.lanes[i]
	if k := l.q[l.head]; len(s.heap) == 0 || k.before(s.heap[0]) {
		return i, k.at, true
	}
	return -1, s.heap[0].at, true
}

// take removes the earliest event, found by next, from the order and
// returns its slot, to be released once it has been handled.
func (s *schedule) take(where int) int32 {
	var k key
	if where < 0 {
		k = s.pop()
	} else {
		l := &s.lanes[where]
		k = l.q[l.head]
		l.head++
		s.firstLaneKnown = false
		switch {
		case l.head == len(l.q):
			l.q, l.head = l.q[:0], 0
		case l.head >= 64 && 2*l.head >= len(l.q):
			n := copy(l.q, l.q[l.head:])
			l.q, l.head = l.q[:n], 0
		}
	}
	return k.slot
}

// release frees a slot that take returned.
func (s *schedule) release(slot int32) {
	s.slots[slot] = event{} // drop references for the GC
	s.free = append(s.free, slot)
}

// pending calls f for every scheduled event, in no particular order.
func (s *schedule) pending(f func(*event)) {
	for _, k := range s.heap {
		f(&s.slots[k.slot])
	}
	for i := range s.lanes {
		l := &s.lanes[i]
		for _, k := range l.q[l.head:] {
			f(&s.slots[k.slot])
		}
	}
}

func (s *schedule) pop() key {
	top := s.heap[0]
	n := len(s.heap) - 1
	last := s.heap[n]
	s.heap = s.heap[:n]
	if n == 0 {
		return top
	}
	// Sift the last key down from the root, moving children up into the
	// hole rather than swapping.
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && s.heap[r].before(s.heap[c]) {
			c = r
		}
		if !s.heap[c].before(last) {
			break
		}
		s.heap[i] = s.heap[c]
		i = c
	}
	s.heap[i] = last
	return top
}
