package ui

import (
	"strings"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

// A lesson's why: step (scenarios.WhyStep) opens the why card as its
// caption comes on screen: on the event whose citations hold the line the
// step names, that line's function shown and the line highlighted. The
// card closes when the step leaves the screen, or as any card does.

// syncLessonWhy also puts raft's source on an open card once it has been
// fetched (the web page; WhyCard.loadSource).
//
// syncLessonWhy opens the card of the step on screen when it has a why:,
// once, and closes the card a step opened when another step replaces it.
func (a *App) syncLessonWhy() {
	if a.Why != nil {
		a.Why.loadSource()
	}
	var o *scenarios.WhyOpened
	if a.Lesson != nil {
		o = a.Lesson.WhyOpened()
	}
	if o == a.lessonWhy {
		return
	}
	if a.Why != nil && a.Why == a.lessonCard {
		a.Why = nil
	}
	a.lessonWhy, a.lessonCard = o, nil
	if o != nil {
		a.lessonCard = BuildLessonWhyCard(a.S.World(), o, a.Lang)
		a.Message, a.Why = nil, a.lessonCard
	}
}

// BuildLessonWhyCard makes the card a why: step opened in world w: the
// event's citations, the one the step names deciding.
func BuildLessonWhyCard(w *sim.World, o *scenarios.WhyOpened, l i18n.Lang) *WhyCard {
	head := w.DescribeIn(l, o.Event)
	if f := strings.Fields(head); len(f) > 1 {
		head = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(head), f[0])) // its time is the card's instant
	}
	c := &WhyCard{Head: head, Log: o.Lines()}
	c.Lede = l.F("raft's line that decided it, in %s:", w.MemberNames()[o.Event.Node-1])
	c.fill(o.Line, l)
	return c
}
