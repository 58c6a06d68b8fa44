package scenarios

import (
	"strings"

	"github.com/raftsim/raftsim/sim"
)

// linearizability checks the client history so far, once per history
// length: a linearizable: condition is checked at every instant of its
// window, and the history only grows.
func (r *Runner) linearizability() sim.Linearizability {
	if r.linLen != r.w.HistoryLen() || r.linLen == 0 {
		r.lin, r.linLen = r.w.CheckLinearizability(), r.w.HistoryLen()
	}
	return r.lin
}

// ExpectsNotLinearizable reports whether an expectation that the client
// history is not linearizable (linearizable: false) has held: the run
// shows a violation on purpose (a stale lease read), so a NOT
// linearizable verdict at its end is what the scenario predicts.
func (r *Runner) ExpectsNotLinearizable() bool { return r.expectsNotLin }

// afterHeld notes what an expectation that just held means beyond itself: the
// logs a log: condition saw, printed under it so that the transcript shows
// them (the Figure 8 lesson's panels), and a linearizable: false.
func (r *Runner) afterHeld(s *Step) {
	var logs []string
	for i := range s.Conds {
		c := &s.Conds[i]
		switch c.Kind {
		case CondLinearizable:
			if !c.Converged {
				r.expectsNotLin = true
			}
		case CondLog:
			names, err := r.resolveAll([]NodeRef{c.Node})
			if err != nil {
				continue
			}
			for _, n := range names {
				terms, _ := r.w.LogTerms(n)
				logs = append(logs, n+" "+formatTerms(terms))
			}
		}
	}
	if len(logs) > 0 {
		r.note("  " + r.lang.F("logs (the term of each entry, from index 1): %s", strings.Join(logs, "  ")))
	}
}
