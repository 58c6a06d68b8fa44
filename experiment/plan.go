package experiment

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"time"
)

// Job is a batch of trials of one kind: one election-timeout range on one
// cluster.
type Job struct {
	Name    string // how the results call it, e.g. "12-24"; it also keys the trials' seeds
	Cluster Cluster
	Range   Range
	Trials  int
	// Patience is how long a trial waits for a leader before it gives up
	// (0: TrialPatience).
	Patience time.Duration `json:",omitempty"`
}

// patience returns how long the job's trials wait for a leader.
func (j Job) patience() time.Duration {
	if j.Patience > 0 {
		return j.Patience
	}
	return TrialPatience
}

// Plan is what an experiment runs: its jobs, and the seed every trial's
// seed derives from.
type Plan struct {
	Seed uint64
	Jobs []Job
}

// ElectionTime is the plan of the paper's Figure 16: trials of each range
// on one cluster.
func ElectionTime(c Cluster, ranges []Range, trials int, seed uint64) Plan {
	p := Plan{Seed: seed}
	for _, r := range ranges {
		p.Jobs = append(p.Jobs, Job{Name: r.String(), Cluster: c, Range: r, Trials: trials})
	}
	return p
}

// MaxTrials bounds the trials of a plan, all its jobs together: every
// trial is kept for the percentiles, the CSV and the plots (about a
// hundred bytes each), and a million of the paper's trials take minutes.
const MaxTrials = 1_000_000

// Check says what is wrong with the plan, if anything.
func (p Plan) Check() error {
	if len(p.Jobs) == 0 {
		return fmt.Errorf("nothing to run")
	}
	total := 0
	names := map[string]bool{}
	for _, j := range p.Jobs {
		if err := j.Cluster.check(); err != nil {
			return err
		}
		if j.Trials < 1 || j.Trials > MaxTrials {
			return fmt.Errorf("trials must be between 1 and %d, not %d", MaxTrials, j.Trials)
		}
		if total += j.Trials; total > MaxTrials {
			return fmt.Errorf("%d jobs of %d trials: more than %d trials in all, the most an experiment runs (its trials are kept for the percentiles and plots); ask for fewer",
				len(p.Jobs), j.Trials, MaxTrials)
		}
		if r := j.Range; r.Min < 2 || r.Max < r.Min || r.Max > 2*r.Min {
			return fmt.Errorf("bad election-timeout range %s: want MIN-MAX in ms with 2 <= MIN <= MAX <= 2·MIN", r)
		}
		if j.Patience < 0 || j.Patience > time.Hour {
			return fmt.Errorf("a trial's patience must be between 0 and 1h, not %s", j.Patience)
		}
		if names[j.Name] {
			return fmt.Errorf("two jobs are called %q", j.Name)
		}
		names[j.Name] = true
	}
	return nil
}

// Total returns how many trials the plan runs.
func (p Plan) Total() int {
	n := 0
	for _, j := range p.Jobs {
		n += j.Trials
	}
	return n
}

// TrialSeed derives the seed of trial i of the job called job from the
// experiment's seed, so that a trial's result depends on nothing else: not
// on the other jobs, nor on which worker runs it.
func TrialSeed(seed uint64, job string, i int) uint64 {
	h := fnv.New64a()
	h.Write([]byte(job + "/" + strconv.Itoa(i)))
	// splitmix64 of the mix, so that nearby seeds give unrelated trials.
	z := seed*0x9e3779b97f4a7c15 ^ h.Sum64()
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// RunShare runs worker's share of the plan (of workers sharing it: trial i
// of each job is run by worker i mod workers), in order, handing each
// trial to emit as it finishes. Workers that share a plan must be separate
// processes (see the package comment).
func RunShare(p Plan, worker, workers int, emit func(Trial) error) error {
	if err := p.Check(); err != nil {
		return err
	}
	if workers < 1 || worker < 0 || worker >= workers {
		return fmt.Errorf("worker %d of %d", worker, workers)
	}
	settled := map[Cluster]*Settled{}
	for j, job := range p.Jobs {
		s := settled[job.Cluster]
		if s == nil {
			var err error
			if s, err = Settle(job.Cluster, p.Seed); err != nil {
				return err
			}
			settled[job.Cluster] = s
		}
		for i := worker; i < job.Trials; i += workers {
			t, err := s.Trial(job.Range, TrialSeed(p.Seed, job.Name, i), job.patience())
			if err != nil {
				return fmt.Errorf("%s, trial %d: %w", job.Name, i, err)
			}
			t.Job, t.Index = j, i
			if err := emit(t); err != nil {
				return err
			}
		}
	}
	return nil
}

// Results are the trials of a plan, by job, in trial order.
type Results struct {
	Plan   Plan
	Trials [][]Trial // Trials[job][i]
}

// Collect gathers trials, in any order, into results; it fails unless
// every trial of the plan is there exactly once.
func Collect(p Plan, trials []Trial) (*Results, error) {
	r := &Results{Plan: p, Trials: make([][]Trial, len(p.Jobs))}
	for j, job := range p.Jobs {
		r.Trials[j] = make([]Trial, job.Trials)
	}
	seen := make([][]bool, len(p.Jobs))
	for j, job := range p.Jobs {
		seen[j] = make([]bool, job.Trials)
	}
	for _, t := range trials {
		if t.Job < 0 || t.Job >= len(p.Jobs) || t.Index < 0 || t.Index >= p.Jobs[t.Job].Trials {
			return nil, fmt.Errorf("a trial %d of job %d is not in the plan", t.Index, t.Job)
		}
		if seen[t.Job][t.Index] {
			return nil, fmt.Errorf("trial %d of %s came twice", t.Index, p.Jobs[t.Job].Name)
		}
		seen[t.Job][t.Index] = true
		r.Trials[t.Job][t.Index] = t
	}
	for j := range seen {
		if i := slices.Index(seen[j], false); i >= 0 {
			return nil, fmt.Errorf("trial %d of %s is missing", i, p.Jobs[j].Name)
		}
	}
	return r, nil
}

// CollectSome gathers the trials that an interrupted run finished: each
// job's, in trial order, whatever is missing. It keeps the plan's jobs,
// some with fewer trials than planned, or none.
func CollectSome(p Plan, trials []Trial) *Results {
	r := &Results{Plan: p, Trials: make([][]Trial, len(p.Jobs))}
	for _, t := range trials {
		if t.Job >= 0 && t.Job < len(p.Jobs) {
			r.Trials[t.Job] = append(r.Trials[t.Job], t)
		}
	}
	for j := range r.Trials {
		slices.SortFunc(r.Trials[j], func(a, b Trial) int { return a.Index - b.Index })
	}
	return r
}

// Done returns how many trials the results hold.
func (r *Results) Done() int {
	n := 0
	for _, ts := range r.Trials {
		n += len(ts)
	}
	return n
}

// Summaries summarizes each job.
func (r *Results) Summaries() []Summary {
	var out []Summary
	for j, job := range r.Plan.Jobs {
		s := Summarize(job.Name, r.Trials[j])
		s.Patience = job.patience()
		out = append(out, s)
	}
	return out
}
