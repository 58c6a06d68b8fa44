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

// schedule is a binary min-heap of events ordered by (at, seq).
type schedule struct {
	ev  []event
	seq uint64
}

func (s *schedule) less(i, j int) bool {
	a, b := &s.ev[i], &s.ev[j]
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

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

func (s *schedule) len() int { return len(s.ev) }

// peek returns the time of the earliest event. The schedule must not be empty.
func (s *schedule) peek() Time { return s.ev[0].at }

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
