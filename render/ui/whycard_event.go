package ui

import (
	"strings"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/sim"
)

// The why card of what is not a message (issue 32): a click on a member's
// labels (its role, term and vote) opens it on the member's latest role
// change or vote, and a click on a cell of the logs panel on the decision
// that put the entry there: its commit when it is committed, else its
// append. Like a message's card, it replays the session with raft's
// citations on (sim.ReplayWhy) to find the event.

// whyEventKind is what a card of an event is about.
type whyEventKind uint8

const (
	whyRole whyEventKind = iota // a member's role, term or vote
	whyCell                     // an entry of a member's log
)

// OpenWhyRole opens the card of member's latest role change or vote.
func (a *App) OpenWhyRole(member string) {
	a.Message, a.Why = nil, BuildWhyEventCard(a.S.World(), whyRole, member, 0, false, a.Lang)
}

// OpenWhyCell opens the card of member's entry at index (committed: the
// member's commit index holds it).
func (a *App) OpenWhyCell(member string, index uint64, committed bool) {
	a.Message, a.Why = nil, BuildWhyEventCard(a.S.World(), whyCell, member, index, committed, a.Lang)
}

// BuildWhyEventCard makes the card of one of member's events in the world
// on screen: its latest role change (whyRole), or the commit or append of
// its entry at index (whyCell).
func BuildWhyEventCard(now *sim.World, kind whyEventKind, member string, index uint64, committed bool, l i18n.Lang) *WhyCard {
	c := &WhyCard{Head: member}
	w, err := sim.ReplayWhy(now.Config(), now.Commands(), now.Now())
	if err != nil {
		c.Lede = l.F("raft's reasons cannot be shown: %v", err)
		return c
	}
	var node uint64
	for i, n := range w.MemberNames() {
		if n == member {
			node = uint64(i + 1) // member i has raft ID i+1
		}
	}
	i, want := -1, ""
	switch {
	case node == 0:
	case kind == whyRole:
		// The latest that raft gave reasons for: one that only learns the
		// leader changes none of the labels.
		i, want = latestEvent(w, node, func(j int, e sim.Event) bool {
			return e.Kind == sim.EvRole && len(handlingWhy(w, j)) > 0
		}), "became |cast |rejected "
	case committed:
		// The first commit that reached the entry: a commit index only grows.
		for j := w.HistoryStart(); j < w.HistoryLen(); j++ {
			if e := w.EventAt(j); e.Kind == sim.EvCommit && e.Node == node && e.Index >= index {
				i, want = j, "commits up to index"
				break
			}
		}
	default:
		// The latest append that wrote it: a later one may have overwritten
		// an earlier entry at the index.
		i, want = latestEvent(w, node, func(_ int, e sim.Event) bool {
			return e.Kind == sim.EvPersist && e.Index >= index && e.Index-uint64(e.N) < index
		}), "appends up to index"
	}
	if i < 0 {
		c.Lede = l.T("raft logged nothing for it")
		return c
	}
	e := w.EventAt(i)
	head := w.DescribeIn(l, e)
	if f := strings.Fields(head); len(f) > 1 {
		head = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(head), f[0])) // its time is the card's instant
	}
	c.Head = head
	c.Log = handlingWhy(w, i)
	if len(c.Log) == 0 {
		c.Lede = l.T("raft logged nothing for it")
		return c
	}
	c.Lede = l.F("raft's line that decided it, in %s:", member)
	hi := len(c.Log) - 1
	for k := len(c.Log) - 1; k >= 0; k-- {
		if _, msg, ok := strings.Cut(c.Log[k], ": "); ok && containsAny(msg, strings.Split(want, "|")) {
			hi = k
			break
		}
	}
	c.fill(hi, l)
	return c
}

// latestEvent is the index of node's latest event that ok holds, or -1.
func latestEvent(w *sim.World, node uint64, ok func(int, sim.Event) bool) int {
	for i := w.HistoryLen() - 1; i >= w.HistoryStart(); i-- {
		if e := w.EventAt(i); e.Node == node && ok(i, e) {
			return i
		}
	}
	return -1
}

// handlingWhy is the citations of event i and of its member's events
// before it in the same handling (the same instant, back to the message
// the member stepped): raft's lines go to the first event recorded after
// them, so a role change's reasons are often on the persist or the send
// recorded just before it.
func handlingWhy(w *sim.World, i int) []string {
	e := w.EventAt(i)
	var lines []string
	for j := i; j >= w.HistoryStart(); j-- {
		p := w.EventAt(j)
		if p.At != e.At {
			break
		}
		if p.Node != e.Node {
			continue
		}
		if p.Why != "" {
			lines = append(strings.Split(p.Why, "\n"), lines...)
		}
		if p.Kind == sim.EvDeliver {
			break // the input the handling began with
		}
	}
	return lines
}

func containsAny(s string, frags []string) bool {
	for _, f := range frags {
		if f != "" && strings.Contains(s, f) {
			return true
		}
	}
	return false
}
