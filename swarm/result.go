package swarm

import (
	"fmt"
	"iter"
	"strconv"
	"strings"

	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

// Result is what one seed found. A campaign's results, one JSON line each
// after a Header line, are all that `raftsim swarm merge` needs to print
// what the campaign printed.
type Result struct {
	Seed     uint64  `json:"seed"`
	Verdict  Verdict `json:"verdict"`
	Check    string  `json:"check,omitempty"`
	Detail   string  `json:"detail,omitempty"`
	AtNS     int64   `json:"at_ns,omitempty"`
	EndNS    int64   `json:"end_ns"`
	Steps    int     `json:"steps"`
	Events   int     `json:"events"`
	Requests int     `json:"requests"`
	Checked  int     `json:"checked"`

	// For a failure: what the seed drew, and its shrunk reproducer.
	Profile    string `json:"profile,omitempty"`
	Repro      string `json:"repro,omitempty"` // the reproducer's YAML
	ReproSteps int    `json:"repro_steps,omitempty"`
	ShrinkRuns int    `json:"shrink_runs,omitempty"`
}

// RunSeed generates a seed's scenario, checks it and, if it fails and the
// options say so, shrinks it to a reproducer.
func RunSeed(seed uint64, o Options) Result {
	s, profile := Generate(seed, o)
	out := Check(s)
	r := Result{Seed: seed, Verdict: out.Verdict, Check: out.Check, Detail: out.Detail, AtNS: int64(out.At),
		EndNS: int64(out.End), Steps: len(s.Steps), Events: out.Events, Requests: out.Requests, Checked: out.Checked}
	if !out.Verdict.Failed() {
		return r
	}
	r.Profile = profile.String()
	repro := s
	if o.Shrink && out.Verdict != Invalid {
		sh := Shrink(s, out)
		repro, r.ShrinkRuns = sh.Scenario, sh.Runs
	}
	data, err := scenarios.MarshalScenario(repro)
	if err != nil {
		r.Repro = "# the reproducer could not be written: " + err.Error() + "\n"
		return r
	}
	r.Repro, r.ReproSteps = string(data), len(repro.Steps)
	return r
}

// Header is the first line of a results file: what the campaign was.
type Header struct {
	Format  int      `json:"swarm_results"` // 1
	Options string   `json:"options"`       // Options.String()
	Args    []string `json:"args"`          // Options.Args()
	Seeds   Seeds    `json:"seeds"`
	Shard   Shard    `json:"shard"`
}

// ResultsFormat is the version of the results file format.
const ResultsFormat = 1

// Seeds is a campaign's range of seeds, First to Last.
type Seeds struct {
	First uint64 `json:"first"`
	Last  uint64 `json:"last"`
}

// MaxSeeds bounds the seeds of one campaign, so that every count of them
// fits an int64. A campaign's memory does not grow with its seeds: they
// are drawn one at a time, and results are written out as they come.
const MaxSeeds = 1 << 62

// ParseSeeds reads "1-10000" or "42".
func ParseSeeds(s string) (Seeds, error) {
	lo, hi, isRange := strings.Cut(strings.TrimSpace(s), "-")
	first, err1 := strconv.ParseUint(lo, 10, 64)
	last, err2 := first, error(nil)
	if isRange {
		last, err2 = strconv.ParseUint(hi, 10, 64)
	}
	if err1 != nil || err2 != nil || last < first {
		return Seeds{}, fmt.Errorf("--seeds: want a range like 1-10000 (or one seed, like 42), not %q", s)
	}
	r := Seeds{First: first, Last: last}
	if err := r.check(); err != nil {
		return Seeds{}, fmt.Errorf("--seeds: %v", err)
	}
	return r, nil
}

// check refuses a range that is backwards or holds more than MaxSeeds.
func (s Seeds) check() error {
	switch {
	case s.Last < s.First:
		return fmt.Errorf("the range %d-%d ends before it starts", s.First, s.Last)
	case s.Last-s.First >= MaxSeeds:
		return fmt.Errorf("the range %d-%d holds more than %d seeds, the most a campaign may run", s.First, s.Last, uint64(MaxSeeds))
	}
	return nil
}

func (s Seeds) String() string {
	if s.First == s.Last {
		return strconv.FormatUint(s.First, 10)
	}
	return fmt.Sprintf("%d-%d", s.First, s.Last)
}

// Count is how many seeds the range holds.
func (s Seeds) Count() uint64 { return s.Last - s.First + 1 }

// Shard is one of Of slices of a campaign: the seeds whose offset from the
// first is K-1 modulo Of. Interleaving keeps the shards equally hard.
type Shard struct {
	K  int `json:"k"`
	Of int `json:"of"`
}

// MaxShards bounds how many shards a campaign is cut into; merging them
// needs every shard's file open at once.
const MaxShards = 1000

// ParseShard reads "K/N".
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	sh := Shard{}
	var err1, err2 error
	sh.K, err1 = strconv.Atoi(k)
	sh.Of, err2 = strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("--shard: want K/N with 1 <= K <= N, like 2/4, not %q", s)
	}
	if err := sh.check(); err != nil {
		return Shard{}, fmt.Errorf("--shard: %v", err)
	}
	return sh, nil
}

// check refuses a shard that is not one of 1 to MaxShards.
func (s Shard) check() error {
	switch {
	case s.Of < 1 || s.Of > MaxShards:
		return fmt.Errorf("%s: a campaign is cut into 1 to %d shards, not %d", s, MaxShards, s.Of)
	case s.K < 1 || s.K > s.Of:
		return fmt.Errorf("%s: want K/N with 1 <= K <= N", s)
	}
	return nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.Of) }

// Count returns how many of r's seeds the shard holds.
func (s Shard) Count(r Seeds) uint64 {
	skip := uint64(s.K - 1)
	if skip > r.Last-r.First {
		return 0
	}
	return (r.Last-r.First-skip)/uint64(s.Of) + 1
}

// All returns the shard's seeds of r, in order, one at a time: a campaign
// of a hundred million seeds never holds them all.
func (s Shard) All(r Seeds) iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		n := s.Count(r)
		seed := r.First + uint64(s.K-1)
		for i := uint64(0); i < n; i++ {
			if !yield(seed) {
				return
			}
			seed += uint64(s.Of) // NB: no wrap: the last one is not stepped past
		}
	}
}

// of returns the shard (its K) that holds seed of r.
func (s Shard) of(r Seeds, seed uint64) int { return int((seed-r.First)%uint64(s.Of)) + 1 }

// ReproFile is the name of a failing seed's reproducer in the reproducer
// directory.
func ReproFile(seed uint64) string { return "swarm-seed-" + strconv.FormatUint(seed, 10) + ".yaml" }

func reproPath(dir string, seed uint64) string {
	if dir == "" || dir == "." {
		return ReproFile(seed)
	}
	return strings.TrimSuffix(dir, "/") + "/" + ReproFile(seed)
}

// ReproPath is where Report says a seed's reproducer is.
func ReproPath(dir string, seed uint64) string { return reproPath(dir, seed) }

func (r Result) outcome() string {
	o := Outcome{Verdict: r.Verdict, Check: r.Check, Detail: r.Detail, At: sim.Time(r.AtNS)}
	return o.String()
}
