package swarm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

// Verdict is how a seed's run ended.
type Verdict string

// The verdicts. Every one but Pass and Unknown is a failure.
const (
	Pass Verdict = "pass"
	// Safety: one of the five invariants of the Raft paper's Figure 3
	// broke; the simulator caught it online and stopped.
	Safety Verdict = "safety"
	// NotLinearizable: the client history has no linearization.
	NotLinearizable Verdict = "linearizability"
	// Liveness: after the final heal there was no leader in time, a write
	// did not succeed in time, or a request never ended.
	Liveness Verdict = "liveness"
	// Panic: the simulator (or raft inside it) panicked.
	Panic Verdict = "panic"
	// Invalid: the scenario could not run at all. It is a bug in the
	// generator, and counts as a failure so that it is seen.
	Invalid Verdict = "invalid"
	// Unknown: the linearizability check could not decide within its
	// budget. Not a failure; reported on its own.
	Unknown Verdict = "unknown"
)

// LinearizabilityBudget is the search steps the linearizability check of
// one seed may take (about a microsecond each) before it answers unknown.
// Nearly every swarm history needs a few thousand.
const LinearizabilityBudget = 1_000_000

// Failed reports whether the verdict is a failure.
func (v Verdict) Failed() bool { return v != Pass && v != Unknown }

// Outcome is what running one scenario found.
type Outcome struct {
	Verdict Verdict
	// Check names what failed: the invariant ("Election Safety"), "leader"
	// (no leader after the final heal), "pending" (a request never ended),
	// and so on.
	Check  string
	Detail string
	At     sim.Time // when it failed (for a safety violation, the instant)
	Label  string   // for "pending": the request that never ended

	End      sim.Time // the virtual time the run reached
	Events   int
	Requests int // client requests sent
	Checked  int // operations the linearizability check looked at
	Skipped  []int
}

// Same reports whether o and p are the same failure: the same verdict and
// the same check. Shrinking keeps a change only when the failure stays the
// same.
func (o Outcome) Same(p Outcome) bool { return o.Verdict == p.Verdict && o.Check == p.Check }

func (o Outcome) String() string {
	switch o.Verdict {
	case Pass:
		return "pass"
	case Safety:
		return fmt.Sprintf("safety violation: %s: %s (at %s)", o.Check, o.Detail, o.At)
	case NotLinearizable:
		return "the client history is not linearizable: " + o.Detail
	}
	return fmt.Sprintf("%s: %s", o.Verdict, o.Detail)
}

// Check runs a scenario with every checker on, going past steps that cannot
// run (a generated fault may find nobody to act on; see
// scenarios.RunOptions.SkipStepErrors), and judges it: a safety violation
// stops the run; at its end, the liveness expectations must have held,
// every request (but open watches) must have ended, and the client history
// must be linearizable.
func Check(s *scenarios.Scenario) (out Outcome) {
	return check(s, true)
}

func check(s *scenarios.Scenario, skip bool) Outcome {
	out, _ := run(s, skip)
	return out
}

// run is check, and also returns the runner, to see what its lets bound.
func run(s *scenarios.Scenario, skip bool) (out Outcome, r *scenarios.Runner) {
	defer func() {
		if r := recover(); r != nil {
			out = Outcome{Verdict: Panic, Check: "panic", Detail: firstLine(fmt.Sprint(r))}
		}
	}()
	r, err := scenarios.NewRunner(s, scenarios.RunOptions{SkipStepErrors: skip})
	if err != nil {
		return Outcome{Verdict: Invalid, Check: "config", Detail: err.Error()}, nil
	}
	_, runErr := r.Run()
	w := r.World()
	out = Outcome{End: w.Now(), Events: w.HistoryLen(), Requests: int(w.OpCount()), Skipped: r.Skipped()}
	var v *sim.Violation
	var ee *scenarios.ExpectError
	switch {
	case errors.As(runErr, &v):
		out.Verdict, out.Check, out.Detail, out.At = Safety, v.Invariant, v.Detail, v.At
		return out, r
	case errors.As(runErr, &ee):
		out.Verdict, out.Detail, out.At = Liveness, ee.What+": "+ee.Observed, ee.At
		out.Check = "expect"
		if strings.HasPrefix(ee.What, "leader:") {
			out.Check = "leader"
		}
		return out, r
	case runErr != nil:
		out.Verdict, out.Check, out.Detail = Invalid, "step", runErr.Error()
		return out, r
	}
	for _, op := range w.Ops() {
		if op != nil && op.Status == sim.OpPending && op.Kind != sim.OpWatch {
			out.Verdict, out.Check, out.At, out.Label = Liveness, "pending", w.Now(), op.Label
			out.Detail = fmt.Sprintf("request %s (%s via %s, sent at %s) never ended", op.Label, op.Kind, op.Client, op.Start)
			return out, r
		}
	}
	lin := w.CheckLinearizabilityWithin(LinearizabilityBudget)
	out.Checked = lin.Checked
	switch {
	case lin.OK:
		out.Verdict = Pass
	case lin.Result == "NOT linearizable":
		out.Verdict, out.Check, out.Detail = NotLinearizable, "linearizability", lin.Detail
	default:
		out.Verdict, out.Check, out.Detail = Unknown, "linearizability", lin.Detail
	}
	return out, r
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
