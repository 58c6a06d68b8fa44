package swarm

import (
	"fmt"
	"slices"
	"time"

	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

// safetyGrace is how long a shrunk reproducer of a safety violation runs
// after its last step: the violation often comes a little after the fault
// that causes it (an election after a restart, say).
const safetyGrace = 10 * time.Second

// ShrinkBudget is how many runs shrinking may take at most. Delta
// debugging usually needs far fewer; the budget bounds a pathological one.
const ShrinkBudget = 1500

// Shrunk is a failing seed's reproducer.
type Shrunk struct {
	Scenario *scenarios.Scenario
	Outcome  Outcome // how the reproducer fails, without skipping any step
	Runs     int     // runs the shrinking took
	From     int     // steps before shrinking
}

// Shrink finds a small scenario that fails as s did (Outcome.Same): first
// it drops what comes after a safety violation, then it deletes steps by
// delta debugging (Zeller's ddmin, complements first) over the fault
// schedule and the workload, then it tries to make the cluster plainer
// (no loss, duplication or disk latency, a fixed latency, etcd's defaults).
// Steps that could not run are then left out (they did nothing), a caption
// saying what the file shows is put first, and the result is checked to
// fail the same way with no step skipped, as `raftsim run` runs it.
func Shrink(s *scenarios.Scenario, failed Outcome) Shrunk {
	sh := &shrinker{want: failed, budget: ShrinkBudget}
	cur := cloneScenario(s)
	steps := cur.Steps
	if n := len(steps); n > 0 && steps[n-1].Kind == scenarios.StepWait && failed.Verdict != Safety {
		// The final wait lets every request end before the history is
		// checked: it stays, whatever else goes.
		sh.tail, steps = steps[n-1:], steps[:n-1]
	}
	units := groups(steps)
	if failed.Verdict == Safety {
		// An online violation cannot depend on what comes after it; a
		// wait at the end gives it the time to happen, so that no step
		// stays only to make time pass.
		sh.tail = []scenarios.Step{{Kind: scenarios.StepWait, Both: true, Wait: safetyGrace}}
		cut := slices.IndexFunc(units, func(u []scenarios.Step) bool {
			return u[0].At != nil && sim.Time(*u[0].At) > failed.At
		})
		switch {
		case cut >= 0 && sh.fails(cur, units[:cut]):
			units = units[:cut]
		case !sh.fails(cur, units):
			sh.tail = nil
		}
	}
	// A plainer network first: with a fixed latency and no loss the
	// network draws no randomness, so deleting a message does not shift
	// every later one's delay, and deleting steps changes less.
	cur.Steps = sh.flatten(units)
	cur = sh.plainer(cur)
	units = sh.ddmin(cur, groups(cur.Steps[:len(cur.Steps)-len(sh.tail)]))
	cur, units = sh.reseed(cur, units)
	cur.Steps = sh.flatten(units)
	cur = sh.plainer(cur)
	out := sh.finish(cur, s, failed)
	out.From, out.Runs = len(s.Steps), sh.runs
	return out
}

type shrinker struct {
	want   Outcome
	tail   []scenarios.Step // steps that always stay, last
	budget int
	runs   int
}

// fails reports whether s with these steps still fails as wanted.
func (sh *shrinker) fails(s *scenarios.Scenario, units [][]scenarios.Step) bool {
	if sh.budget <= 0 {
		return false
	}
	t := *s
	t.Steps = sh.flatten(units)
	if !namesKnown(&t) {
		return false // it would not even parse: a member it names is never added
	}
	sh.budget--
	sh.runs++
	return Check(&t).Same(sh.want)
}

// ddmin removes units while the scenario still fails: it tries the
// complement of each of n chunks, and doubles n when none can go.
func (sh *shrinker) ddmin(s *scenarios.Scenario, units [][]scenarios.Step) [][]scenarios.Step {
	n := 2
	for len(units) >= 2 && sh.budget > 0 {
		size := (len(units) + n - 1) / n
		reduced := false
		for start := 0; start < len(units); start += size {
			end := min(start+size, len(units))
			comp := append(slices.Clone(units[:start]), units[end:]...)
			if sh.fails(s, comp) {
				units, n, reduced = comp, max(n-1, 2), true
				break
			}
		}
		if !reduced {
			if n >= len(units) {
				break
			}
			n = min(2*n, len(units))
		}
	}
	// One last pass: is any single unit still not needed?
	for i := 0; i < len(units) && len(units) > 1 && sh.budget > 0; {
		comp := append(slices.Clone(units[:i]), units[i+1:]...)
		if sh.fails(s, comp) {
			units = comp
			continue
		}
		i++
	}
	return units
}

// reseedTries is how many other simulation seeds reseed tries for each
// step it tries to delete.
const reseedTries = 12

// reseed goes on deleting steps where ddmin stopped, by also changing the
// scenario's seed. ddmin's result is 1-minimal for its seed: deleting any
// one step changes the timing of everything after it (every delay is a
// draw from one stream), and the failure slips away. Under another seed
// the same failure often needs fewer steps; a reproducer may have any
// seed, so each deletion is tried under a few, and the first that still
// fails is kept.
func (sh *shrinker) reseed(s *scenarios.Scenario, units [][]scenarios.Step) (*scenarios.Scenario, [][]scenarios.Step) {
	for i := 0; i < len(units) && len(units) > 1 && sh.budget > 0; {
		comp := append(slices.Clone(units[:i]), units[i+1:]...)
		found := false
		for k := uint64(1); k <= reseedTries && !found; k++ {
			t := cloneScenario(s)
			t.Seed = s.Seed + k*1_000_003 // any other seed; these are far from the campaign's
			t.Config.Seed = t.Seed
			if sh.fails(t, comp) {
				s, units, found = t, comp, true
			}
		}
		if !found {
			i++
		}
	}
	return s, units
}

// plainer tries, one at a time, to make the cluster's configuration
// plainer, keeping each change with which the scenario still fails.
func (sh *shrinker) plainer(s *scenarios.Scenario) *scenarios.Scenario {
	def := sim.DefaultConfig()
	changes := []func(c *sim.Config){
		func(c *sim.Config) { c.Network.Loss = netmodel.Ratio{} },
		func(c *sim.Config) { c.Network.Duplicate = netmodel.Ratio{} },
		func(c *sim.Config) { c.DiskLatency = 0 },
		func(c *sim.Config) { c.SnapshotEvery = 0 },
		func(c *sim.Config) { c.Network.Latency = netmodel.Fixed(c.Network.Latency.Min) },
		func(c *sim.Config) { c.PreVote = def.PreVote },
		func(c *sim.Config) { c.CheckQuorum = def.CheckQuorum },
	}
	units := [][]scenarios.Step{s.Steps[:len(s.Steps)-len(sh.tail)]}
	for _, change := range changes {
		t := cloneScenario(s)
		change(&t.Config)
		if !configEqual(t.Config, s.Config) && sh.fails(t, units) {
			s = t
		}
	}
	return s
}

// finish leaves out the steps that were skipped (they did nothing), names
// and captions the reproducer, and checks that it fails as wanted when run
// as `raftsim run` runs it. If it does not (which would be a bug in the
// skipping), the shrunk scenario with its skipped steps is returned.
func (sh *shrinker) finish(cur, orig *scenarios.Scenario, failed Outcome) Shrunk {
	ran, r := run(cur, true)
	sh.runs++
	kept := cloneScenario(cur)
	kept.Steps = nil
	var dropped *time.Duration // the at: of the last step left out, if the next has none
	for i, st := range cur.Steps {
		if slices.Contains(ran.Skipped, i) {
			if st.At != nil {
				dropped = st.At
			}
			continue
		}
		// A step with no at: runs when the step before it ends: when it
		// followed a step left out, it keeps the time that step ran at.
		if st.At == nil && dropped != nil {
			at := *dropped + st.After
			st.At, st.After = &at, 0
		}
		dropped = nil
		kept.Steps = append(kept.Steps, st)
	}
	if r != nil {
		kept = concrete(kept, r)
	}
	if failed.Verdict == Liveness && failed.Check == "pending" {
		kept.Steps = append(kept.Steps, pendingSteps(failed)...)
	}
	kept.Title = scenarios.Text{En: fmt.Sprintf("Swarm seed %d: %s", orig.Seed, failed.Check)}
	kept.Summary = scenarios.Text{En: fmt.Sprintf("Found by raftsim swarm with seed %d and shrunk from %d steps. It fails with %s.", orig.Seed, len(orig.Steps), failed)}
	zero := time.Duration(0)
	intro := scenarios.Step{Kind: scenarios.StepSay, At: &zero, Both: true, Text: scenarios.Text{En: caption(orig.Seed, failed, kept.Config.Bugs)}}
	kept.Steps = append([]scenarios.Step{intro}, kept.Steps...)
	for i := range kept.Steps {
		kept.Steps[i].Pos = scenarios.Pos{File: kept.Name, Line: i + 1, Col: 1}
	}
	out := check(kept, false)
	sh.runs++
	if out.Same(failed) || failed.Check == "pending" {
		return Shrunk{Scenario: kept, Outcome: out}
	}
	return Shrunk{Scenario: cur, Outcome: ran}
}

// pendingSteps end a reproducer of a request that never ended: a caption,
// and the expectation, which fails, that it timed out as a request nobody
// answers must.
func pendingSteps(failed Outcome) []scenarios.Step {
	label := failed.Label
	return []scenarios.Step{
		{Kind: scenarios.StepSay, Both: true, Text: scenarios.Text{En: "Every request must end: answered, refused, or timed out by its client. " + label + " never did."}},
		{Kind: scenarios.StepExpect, Both: true, Conds: []scenarios.Condition{{Kind: scenarios.CondOp, Label: label, Status: scenarios.OpTimeout}}},
	}
}

// caption is the reproducer's first caption: where it comes from, and what
// to look for.
func caption(seed uint64, failed Outcome, bugs []sim.Bug) string {
	s := fmt.Sprintf("Found by raftsim swarm, seed %d", seed)
	for i, b := range bugs {
		if i == 0 {
			s += ", with the injected bug "
		} else {
			s += ", "
		}
		s += b.String() + " (" + b.Summary() + ")"
	}
	switch {
	case failed.Verdict == Safety && failed.Check == sim.RaftAssertion:
		return s + ". Watch for the moment raft's own assertion refuses to go on, and stops the run: " + failed.Detail
	case failed.Verdict == Safety:
		return s + ". Watch for the moment the " + failed.Check + " checker stops the run."
	case failed.Verdict == NotLinearizable:
		return s + ". At the end, the linearizability checker finds no order of the client requests that explains what they saw."
	case failed.Verdict == Liveness:
		return s + ". After the final heal, the cluster does not recover: " + failed.Detail
	}
	return s + ". " + failed.String()
}

// concrete replaces each $variable with the members its let bound in the
// run r, and drops the lets: the same commands, easier to read. (A let
// binds @leader as it resolves at that moment, and the run is the same.)
func concrete(s *scenarios.Scenario, r *scenarios.Runner) *scenarios.Scenario {
	sub := func(refs []scenarios.NodeRef) []scenarios.NodeRef {
		var out []scenarios.NodeRef
		for _, ref := range refs {
			names, ok := r.Bound(ref.Name)
			if ref.Kind != scenarios.RefVar || !ok {
				out = append(out, ref)
				continue
			}
			for _, n := range names {
				out = append(out, scenarios.NodeRef{Pos: ref.Pos, Kind: scenarios.RefName, Name: n})
			}
		}
		return out
	}
	t := cloneScenario(s)
	t.Steps = nil
	for _, st := range s.Steps {
		if st.Kind == scenarios.StepLet {
			continue
		}
		st.Nodes, st.From, st.To = sub(st.Nodes), sub(st.From), sub(st.To)
		var groups [][]scenarios.NodeRef
		for _, g := range st.Groups {
			groups = append(groups, sub(g))
		}
		st.Groups = groups
		if v := sub([]scenarios.NodeRef{st.Via}); len(v) == 1 {
			st.Via = v[0]
		}
		t.Steps = append(t.Steps, st)
	}
	return t
}

// namesKnown reports whether every member a step names by name is a
// bootstrap member or added by an add_member before it, as the parser
// requires: deleting an add_member leaves the steps that name its member
// behind.
func namesKnown(s *scenarios.Scenario) bool {
	known := map[string]bool{}
	for _, m := range s.Config.Members {
		known[m] = true
	}
	ok := func(refs ...scenarios.NodeRef) bool {
		for _, r := range refs {
			if r.Kind == scenarios.RefName && !known[r.Name] {
				return false
			}
		}
		return true
	}
	for _, st := range s.Steps {
		if !ok(st.Nodes...) || !ok(st.From...) || !ok(st.To...) || !ok(st.Via) {
			return false
		}
		for _, g := range st.Groups {
			if !ok(g...) {
				return false
			}
		}
		if st.Kind == scenarios.StepAddMember {
			known[st.Name] = true
		}
	}
	return true
}

// groups splits steps into the units shrinking keeps or drops whole: a let
// and the step that uses it go together.
func groups(steps []scenarios.Step) [][]scenarios.Step {
	var out [][]scenarios.Step
	for i := 0; i < len(steps); i++ {
		if steps[i].Kind == scenarios.StepLet && i+1 < len(steps) {
			out = append(out, steps[i:i+2])
			i++
			continue
		}
		out = append(out, steps[i:i+1])
	}
	return out
}

// flatten joins units back into steps, with the tail last.
func (sh *shrinker) flatten(units [][]scenarios.Step) []scenarios.Step {
	var out []scenarios.Step
	for _, u := range units {
		out = append(out, u...)
	}
	return append(out, sh.tail...)
}

// cloneScenario copies s deeply enough to change its steps and config.
func cloneScenario(s *scenarios.Scenario) *scenarios.Scenario {
	t := *s
	t.Steps = slices.Clone(s.Steps)
	t.Config.Members = slices.Clone(s.Config.Members)
	t.Config.Clients = slices.Clone(s.Config.Clients)
	t.Config.Bugs = slices.Clone(s.Config.Bugs)
	return &t
}

func configEqual(a, b sim.Config) bool {
	return a.Network == b.Network && a.DiskLatency == b.DiskLatency && a.SnapshotEvery == b.SnapshotEvery &&
		a.PreVote == b.PreVote && a.CheckQuorum == b.CheckQuorum
}
