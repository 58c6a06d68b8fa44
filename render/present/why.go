package present

import "github.com/raftsim/raftsim/scenarios"

// WhyOpened is the "why" card the run's latest narrative step opened with
// its why: (scenarios.WhyOpened), or nil.
func (r *Run) WhyOpened() *scenarios.WhyOpened { return r.r.WhyOpened() }

// WhyOpened is the card the step on screen opens with its why:, or nil:
// the step has none, a step that ran waits to be shown, or the teacher
// has the cluster. The run stops at each narrative step until it is shown,
// so the step on screen is the run's latest while nothing waits.
func (p *Presenter) WhyOpened() *scenarios.WhyOpened {
	if p.run == nil || p.shown < 0 || p.shown != p.run.Narrated()-1 {
		return nil
	}
	return p.run.WhyOpened()
}
