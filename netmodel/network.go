package netmodel

import (
	"math"
	"math/rand/v2"
	"time"
)

// NodeID names an endpoint of a link. It is the raft ID of a member.
type NodeID = uint64

// LinkProps are the properties of one directed link.
type LinkProps struct {
	Latency   Latency
	Loss      Ratio // probability that a message is lost in flight
	Duplicate Ratio // probability that a message is delivered twice
}

// DropReason says why a message did not arrive.
type DropReason uint8

// The reasons a message is dropped. Every drop carries exactly one.
const (
	NotDropped  DropReason = iota
	DropCut                // the link was cut (partition, isolate or cut) at send or arrival
	DropLoss               // lost in flight by the link's loss ratio
	DropDown               // the destination was down (crashed or removed) when it arrived
	DropQueue              // the destination was stalled and its input queue was full
	DropUnknown            // the destination is not a member of the network
	// DropClusterMismatch: the destination runs a member of another
	// cluster (etcd's peer transport refuses a message whose cluster ID
	// is not its own).
	DropClusterMismatch
	// DropRemovedMember: the sender was removed from the destination's
	// cluster (by --force-new-cluster): etcd's peer transport refuses a
	// message from a member ID it has removed.
	DropRemovedMember
)

var dropReasonNames = [...]string{"", "partition", "loss", "destination-down", "queue-full", "unknown-destination", "cluster-id-mismatch", "removed-member"}

func (r DropReason) String() string {
	if int(r) < len(dropReasonNames) {
		return dropReasonNames[r]
	}
	return "drop(?)"
}

// Plan is the network's decision about one message, made when it is sent.
type Plan struct {
	Dropped   DropReason    // NotDropped, DropCut (cut at send) or DropLoss (lost in flight)
	ArriveAt  time.Duration // when it arrives, or for DropLoss when it vanishes
	Duplicate bool          // a second copy arrives at DuplicateAt
	DupAt     time.Duration
}

type link struct {
	props      *LinkProps // nil: the network default
	cut        bool
	lastArrive time.Duration // FIFO: nothing on this link arrives before this
}

// Network holds every directed link between the nodes it knows. Links are
// stored densely, indexed by node ID, because they are consulted for every
// message sent and delivered.
type Network struct {
	def   LinkProps
	rng   *rand.Rand
	links [][]link // links[from][to]
}

// New returns a network whose links all have props def until changed. rng is
// the network's own random stream.
func New(def LinkProps, rng *rand.Rand) *Network {
	return &Network{def: def, rng: rng}
}

func (n *Network) at(from, to NodeID) *link {
	for NodeID(len(n.links)) <= from {
		n.links = append(n.links, nil)
	}
	row := n.links[from]
	for NodeID(len(row)) <= to {
		row = append(row, link{})
	}
	n.links[from] = row
	return &row[to]
}

// Default returns the properties of links that have not been changed.
func (n *Network) Default() LinkProps { return n.def }

// Props returns the properties of the link from → to.
func (n *Network) Props(from, to NodeID) LinkProps {
	if l := n.at(from, to); l.props != nil {
		return *l.props
	}
	return n.def
}

// SetProps changes the properties of the link from → to.
func (n *Network) SetProps(from, to NodeID, p LinkProps) {
	n.at(from, to).props = &p
}

// Cut drops every message from → to until Restore or HealAll.
func (n *Network) Cut(from, to NodeID) { n.at(from, to).cut = true }

// Restore reconnects from → to.
func (n *Network) Restore(from, to NodeID) { n.at(from, to).cut = false }

// IsCut reports whether from → to is cut.
func (n *Network) IsCut(from, to NodeID) bool {
	if from < NodeID(len(n.links)) && to < NodeID(len(n.links[from])) {
		return n.links[from][to].cut
	}
	return false
}

// HealAll restores every cut link. Changed link properties stay.
func (n *Network) HealAll() {
	for _, row := range n.links {
		for i := range row {
			row[i].cut = false
		}
	}
}

// Partition heals the network and then cuts every link, both ways, between
// nodes in different groups. A partition describes the whole connectivity,
// so a second partition replaces the first rather than adding to it.
func (n *Network) Partition(groups [][]NodeID) {
	n.HealAll()
	for gi, g := range groups {
		for gj, h := range groups {
			if gi == gj {
				continue
			}
			for _, a := range g {
				for _, b := range h {
					n.Cut(a, b)
				}
			}
		}
	}
}

// Isolate cuts every link between id and the others, both ways.
func (n *Network) Isolate(id NodeID, others []NodeID) {
	for _, o := range others {
		if o != id {
			n.Cut(id, o)
			n.Cut(o, id)
		}
	}
}

// Link is one directed link, for listing cuts.
type Link struct{ From, To NodeID }

// Cuts lists the cut links in (from, to) order.
func (n *Network) Cuts() []Link {
	var cuts []Link
	for from, row := range n.links {
		for to, l := range row {
			if l.cut {
				cuts = append(cuts, Link{From: NodeID(from), To: NodeID(to)})
			}
		}
	}
	return cuts
}

// Send decides the fate of one message sent from → to at now. Randomness is
// drawn in a fixed order (loss, latency, duplicate, duplicate latency) and
// only for properties that are neither 0 nor certain.
func (n *Network) Send(from, to NodeID, now time.Duration) Plan {
	l := n.at(from, to)
	if l.cut {
		return Plan{Dropped: DropCut, ArriveAt: now}
	}
	p := &n.def
	if l.props != nil {
		p = l.props
	}
	if p.Loss.Hit(n.rng) {
		return Plan{Dropped: DropLoss, ArriveAt: later(now, p.Latency.Draw(n.rng)/2)}
	}
	arrive := max(later(now, p.Latency.Draw(n.rng)), l.lastArrive)
	l.lastArrive = arrive
	plan := Plan{ArriveAt: arrive}
	if p.Duplicate.Hit(n.rng) {
		plan.Duplicate = true
		plan.DupAt = max(later(now, p.Latency.Draw(n.rng)), arrive)
		l.lastArrive = plan.DupAt
	}
	return plan
}

// later returns now + d, saturating at the largest time rather than
// wrapping into the past: an absurd latency means a message that never
// arrives, not one that arrived before it was sent.
func later(now, d time.Duration) time.Duration {
	if d > 0 && now > math.MaxInt64-d {
		return math.MaxInt64
	}
	return now + d
}
