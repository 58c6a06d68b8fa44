package scenarios

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/raftsim/raftsim/sim"
)

// A lesson that points at raft's code (issue 32). A say or pause step may
// carry why:, which opens the "why" card on one of raft's own log lines
// (or a decision sim cites, such as a commit) as the caption comes on
// screen:
//
//	- say: {en: "...", zh: "..."}
//	  why: {member: $voter, says: "rejected MsgVote from", cites: "raft.go:1259 (*raft).Step"}
//
// says: is a piece of raft's formatted message; the card shows the latest
// line, up to the step's instant, whose message holds it, of member:'s raft
// (any member's without it). cites: is the line the step names, as `raftsim
// run --why` prints it: the file inside go.etcd.io/raft/v3, the line, the
// function. The run checks it: when no line says says:, or the line that
// does is not the one cites: names, the step fails (exit 1) at the why:'s
// position, so a lesson that points at a line of raft's code holds only
// while raft's decision is made there.

// WhyStep is a narrative step's why:.
type WhyStep struct {
	Pos    Pos      // where why: is
	Member *NodeRef // whose raft logged it; nil: any member's
	Says   string   // a piece of raft's message
	// Cites is the line the step names: File:Line Func.
	File string
	Line int
	Func string
}

// Cite writes the citation the step names, "raft.go:1259 (*raft).Step".
func (w WhyStep) Cite() string { return fmt.Sprintf("%s:%d %s", w.File, w.Line, w.Func) }

var whyKeys = []string{"member", "says", "cites"}

var citesRE = regexp.MustCompile(`^([\w./-]+\.go):([1-9][0-9]*) (\S+)$`)

// why reads a step's why:.
func (p *parser) why(st *Step, k, v *yaml.Node) {
	if !st.Kind.Narrative() || st.Kind == StepChapter {
		p.errorf(p.pos(k), "why: goes with a say or pause (the card opens as that caption comes on screen), not with %s", st.Kind)
		return
	}
	f := p.mapping(v, "why", whyKeys)
	if f == nil {
		return
	}
	w := WhyStep{Pos: p.pos(k)}
	ok := true
	if x := f.get("member"); x != nil {
		r, good := p.ref(x, "why member")
		w.Member, ok = &r, good
	}
	if x := f.get("says"); x == nil {
		p.errorf(p.pos(v), `why: missing says: (a piece of raft's log line, like "rejected MsgVote from")`)
		ok = false
	} else if s, good := p.str(x, "why says"); !good {
		ok = false
	} else if strings.TrimSpace(s) == "" {
		p.errorf(p.pos(x), "why says: is empty; want a piece of raft's log line")
		ok = false
	} else {
		w.Says = s
	}
	if x := f.get("cites"); x == nil {
		p.errorf(p.pos(v), `why: missing cites: (the line of raft's source, as run --why prints it, like "raft.go:1259 (*raft).Step")`)
		ok = false
	} else if s, good := p.str(x, "why cites"); !good {
		ok = false
	} else if m := citesRE.FindStringSubmatch(s); m == nil {
		p.errorf(p.pos(x), `why cites: want FILE:LINE FUNCTION as run --why prints it, like "raft.go:1259 (*raft).Step", found %q`, s)
		ok = false
	} else {
		w.File, w.Func = m[1], m[3]
		w.Line, _ = strconv.Atoi(m[2])
	}
	if ok {
		st.Why = &w
	}
}

// whyNode writes a step's why: back.
func whyNode(w *WhyStep) *yaml.Node {
	m := ymap(true)
	if w.Member != nil {
		yadd(m, "member", yref(*w.Member))
	}
	yadd(m, "says", ystr(w.Says))
	yadd(m, "cites", ystr(w.Cite()))
	return m
}

// validateWhy checks a why:'s member names one member.
func (v *validator) validateWhy(st *Step) {
	if st.Why != nil && st.Why.Member != nil {
		v.single(*st.Why.Member, "why member")
	}
}

// WhyOpened is the card a why: step opened: the event whose citations
// hold the line (its Why, one citation a line), and which of them it is.
type WhyOpened struct {
	Step  *WhyStep
	Event sim.Event
	Line  int // the index of the line in Event.Why's lines
}

// Lines are the event's citations.
func (o *WhyOpened) Lines() []string { return strings.Split(o.Event.Why, "\n") }

// Cite is the line the card opens on.
func (o *WhyOpened) Cite() string { return o.Lines()[o.Line] }

// WhyOpened is the card the latest narrative step opened with its why:, or
// nil (the step has none, or no narrative step has run).
func (r *Runner) WhyOpened() *WhyOpened { return r.whyOpen }

// openWhy finds the line a narrative step's why: opens the card on and
// checks it is the line the step cites. The world on screen captures no
// citations unless the run's Why is on, so it replays the run up to now
// with them (sim.ReplayWhy), as the window's card does: the same commands
// give the same world.
func (r *Runner) openWhy(s *Step) *ExpectError {
	r.whyOpen = nil
	// A lesson's flipped run judges its key claim only (onlyExpect > 0);
	// one with every expect soft (-1) still checks its why: steps.
	if s.Why == nil || r.opts.onlyExpect > 0 {
		return nil
	}
	w := s.Why
	fail := func(observed string) *ExpectError {
		return &ExpectError{Pos: w.Pos, What: fmt.Sprintf("why: raft's line that says %q is %s", w.Says, w.Cite()), Observed: observed, At: r.w.Now()}
	}
	var node uint64
	who := "any member's"
	if w.Member != nil {
		name, err := r.resolveOne(*w.Member)
		if err != nil {
			return fail(err.Msg)
		}
		for i, n := range r.w.MemberNames() {
			if n == name {
				node = uint64(i + 1) // member i has raft ID i+1
			}
		}
		if node == 0 {
			return fail(name + " is not a member")
		}
		who = name + "'s"
	}
	world := r.w
	if !world.Why() {
		var err error
		if world, err = sim.ReplayWhy(r.w.Config(), r.w.Commands(), r.w.Now()); err != nil {
			return fail(fmt.Sprintf("replaying the run with raft's reasons: %v", err))
		}
	}
	for i := world.HistoryLen() - 1; i >= world.HistoryStart(); i-- {
		e := world.EventAt(i)
		if e.Why == "" || node != 0 && e.Node != node {
			continue
		}
		lines := strings.Split(e.Why, "\n")
		for j := len(lines) - 1; j >= 0; j-- {
			_, msg, found := strings.Cut(lines[j], ": ")
			if !found || !strings.Contains(msg, w.Says) {
				continue
			}
			if !strings.HasPrefix(lines[j], w.Cite()+": ") {
				return fail(fmt.Sprintf("raft logged it at %s", lines[j]))
			}
			r.whyOpen = &WhyOpened{Step: w, Event: e, Line: j}
			if r.opts.Why {
				r.note("why card: " + lines[j])
			}
			return nil
		}
	}
	return fail(fmt.Sprintf("no line of %s raft says %q by now", who, w.Says))
}
