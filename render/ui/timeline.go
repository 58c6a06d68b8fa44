package ui

import (
	"image/color"
	"math"
	"strings"
	"time"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/sim"
)

// MarkKind is what a timeline mark stands for.
type MarkKind uint8

// The kinds of timeline mark, in drawing order (later ones on top).
const (
	MarkCommit    MarkKind = iota // the leader's commit index advanced
	MarkElection                  // a member became a (pre-)candidate
	MarkLeader                    // a member became leader
	MarkFault                     // a fault or an operator action
	MarkCaption                   // a scenario caption
	MarkViolation                 // a safety invariant broke
)

// Mark is one event on the timeline strip.
type Mark struct {
	At   sim.Time
	Kind MarkKind
	Text string // for the tooltip
}

// MarkColor returns the colour of a kind of mark; each kind also has its
// own row and height on the strip.
func MarkColor(k MarkKind) color.RGBA {
	switch k {
	case MarkCommit:
		return Blue
	case MarkElection:
		return Orange
	case MarkLeader:
		return BluishGreen
	case MarkFault:
		return Vermillion
	case MarkCaption:
		return ReddishPurple
	}
	return Black
}

// MarkKinds lists the mark kinds with their legend words.
var MarkKinds = []struct {
	Kind MarkKind
	Name string
}{{MarkLeader, i18n.N("leader")}, {MarkElection, i18n.N("election")}, {MarkCommit, i18n.N("commit")},
	{MarkFault, i18n.N("fault/action")}, {MarkCaption, i18n.N("caption")}}

// markScanner turns history events into timeline marks. It follows each
// member's role so that commits are marked only at the leader, and
// follows each client operation's path through the cluster.
type markScanner struct {
	roles  map[uint64]raft.StateType
	lead   uint64 // the member that most recently became leader
	paths  map[uint64][]Hop
	commit uint64
	// sent: by message ID, the hops a proposal or read-index request
	// that is on its way would make (the operation and its path's
	// index), until it arrives or is dropped.
	sent map[uint64][]sentHop
}

// sentHop is a hop of an operation's path waiting on a message.
type sentHop struct {
	op  uint64
	hop int
}

// Hop is one member a client operation reached.
type Hop struct {
	Member string
	// Failed: the client gave up on this member and failed over to the
	// next endpoint.
	Failed bool
	// Forwarded: the member passed the operation on (a proposal, or a
	// read-index request) to the next hop, the leader it knew.
	Forwarded bool
	// Reached: the message that forwarded the operation here arrived;
	// Leader: this member led when it did. Dropped: why the message was
	// lost instead ("partition", ...). A forwarded hop with none of these
	// is still on its way.
	Reached, Leader bool
	Dropped         string
	// Msg is the ID of the message that forwarded the operation here
	// (the newest, for a read index asked again); 0 for a hop the client
	// sent it to.
	Msg uint64
}

func (sc *markScanner) mark(w *sim.World, e sim.Event) (Mark, bool) {
	if sc.roles == nil {
		sc.roles, sc.paths = map[uint64]raft.StateType{}, map[uint64][]Hop{}
		sc.sent = map[uint64][]sentHop{}
	}
	name := func(id uint64) string { return w.MemberNames()[id-1] }
	switch e.Kind {
	case sim.EvRole:
		prev := sc.roles[e.Node]
		sc.roles[e.Node] = e.Role
		if e.Role == prev {
			return Mark{}, false
		}
		switch e.Role {
		case raft.StateLeader:
			sc.lead = e.Node
			return Mark{At: e.At, Kind: MarkLeader, Text: w.Describe(e)}, true
		case raft.StateCandidate, raft.StatePreCandidate:
			return Mark{At: e.At, Kind: MarkElection, Text: w.Describe(e)}, true
		}
		if sc.lead == e.Node {
			sc.lead = 0
		}
	case sim.EvCommit:
		if e.Node == sc.lead && e.Index > sc.commit {
			sc.commit = e.Index
			return Mark{At: e.At, Kind: MarkCommit, Text: w.Describe(e)}, true
		}
	case sim.EvRequest:
		sc.paths[e.Op] = append(sc.paths[e.Op], Hop{Member: name(e.Node)})
	case sim.EvSend:
		// A member passing an operation on to the leader it knows: a
		// forwarded proposal whose entry holds the write's request ID, or
		// a read-index request whose context is the read's ID
		// (World.Carries). Nothing is guessed from which member sent a
		// message while the operation waited there.
		t := e.Msg.Type
		if t != pb.MsgProp && t != pb.MsgReadIndex {
			break
		}
		for _, id := range w.Carries(e.Msg.ID) {
			hops := sc.paths[id]
			if len(hops) == 0 {
				continue
			}
			last := &hops[len(hops)-1]
			switch {
			case last.Member == name(e.Node) && !last.Forwarded:
				last.Forwarded = true
				sc.paths[id] = append(hops, Hop{Member: name(e.Peer), Msg: e.Msg.ID})
			case len(hops) >= 2 && hops[len(hops)-2].Member == name(e.Node) && hops[len(hops)-2].Forwarded && !last.Forwarded:
				// The member asks again (a read index, every 500ms): the
				// hop is the newest attempt's.
				*last = Hop{Member: name(e.Peer), Msg: e.Msg.ID}
			default:
				continue
			}
			sc.sent[e.Msg.ID] = append(sc.sent[e.Msg.ID], sentHop{op: id, hop: len(sc.paths[id]) - 1})
		}
	case sim.EvDeliver, sim.EvDrop:
		// The forwarded message arrived, or was lost: its hops say so. (A
		// duplicate delivery of one already settled changes nothing.)
		for _, sh := range sc.sent[e.Msg.ID] {
			h := &sc.paths[sh.op][sh.hop]
			if h.Msg != e.Msg.ID {
				continue // a newer attempt has the hop (a read index asked again)
			}
			if e.Kind == sim.EvDrop {
				h.Dropped = e.Reason.String()
			} else {
				h.Reached, h.Leader = true, sc.roles[e.Node] == raft.StateLeader
			}
		}
		delete(sc.sent, e.Msg.ID)
	case sim.EvReply:
		// An answer, a timeout or a failover.
		if strings.HasPrefix(e.Text, "failover: ") || strings.HasPrefix(e.Text, "retry: ") {
			// The client gives up on this member and sends the request
			// (again) to the member the event names (e.Peer: its
			// balancer's next pick).
			hops := sc.paths[e.Op]
			hops[len(hops)-1].Failed = true
			if e.Peer != 0 {
				next := name(e.Peer)
				sc.paths[e.Op] = append(hops, Hop{Member: next})
			}
		}
	case sim.EvFault:
		return Mark{At: e.At, Kind: MarkFault, Text: w.Describe(e)}, true
	case sim.EvCaption:
		return Mark{At: e.At, Kind: MarkCaption, Text: e.Text}, true
	case sim.EvViolation:
		return Mark{At: e.At, Kind: MarkViolation, Text: e.Text}, true
	}
	return Mark{}, false
}

// Span is the stretch of virtual time the timeline strip shows: from 0 to
// a little past the head of the branch, and never less than 5 seconds.
func Span(head sim.Time) sim.Time {
	const minSpan = sim.Time(5 * time.Second)
	return max(minSpan, head+head/20)
}

// LessonSpan is how much virtual time a lesson's timeline spans: the
// lesson, from its start to its last step (or as far as time has gone,
// if the cluster ran on), and a twentieth more, so that its end is not
// at the very edge.
func LessonSpan(end, head sim.Time) sim.Time {
	t := max(end, head)
	return max(sim.Time(time.Millisecond), t+t/20)
}

// Track returns the part of the timeline strip that maps to time.
func Track(l Layout) Rect {
	pad := l.Px(12)
	r := l.Timeline
	return Rect{r.X + pad, r.Y + l.Px(6), math.Max(1, r.W-2*pad), l.trackH()}
}

// XAtTime returns the x on the track of a virtual time.
func XAtTime(track Rect, span, t sim.Time) float64 {
	if span <= 0 {
		return track.X
	}
	f := math.Max(0, math.Min(1, float64(t)/float64(span)))
	return track.X + f*track.W
}

// TimeAtX returns the virtual time under an x on the track, clamped to
// [0, span], and rounded to the millisecond so that a seek lands on a time
// a person can read and type.
func TimeAtX(track Rect, span sim.Time, x float64) sim.Time {
	f := math.Max(0, math.Min(1, (x-track.X)/track.W))
	t := sim.Time(f * float64(span))
	return t / sim.Time(time.Millisecond) * sim.Time(time.Millisecond)
}

// TickStep returns the spacing of the timeline's time labels: a round
// number of seconds (or of milliseconds) giving at most n labels over span.
func TickStep(span sim.Time, n float64) sim.Time {
	n = math.Max(1, n)
	for _, step := range []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond,
		100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second,
		5 * time.Second, 10 * time.Second, 20 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute,
		5 * time.Minute, 10 * time.Minute, 30 * time.Minute, time.Hour} {
		if float64(span)/float64(step) <= n {
			return sim.Time(step)
		}
	}
	return sim.Time(time.Hour) * (span/sim.Time(time.Hour)/sim.Time(n) + 1)
}
