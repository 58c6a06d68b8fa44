package swarm

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
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
	return Seeds{First: first, Last: last}, nil
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

// ParseShard reads "K/N".
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	sh := Shard{}
	var err1, err2 error
	sh.K, err1 = strconv.Atoi(k)
	sh.Of, err2 = strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || sh.Of < 1 || sh.K < 1 || sh.K > sh.Of {
		return Shard{}, fmt.Errorf("--shard: want K/N with 1 <= K <= N, like 2/4, not %q", s)
	}
	return sh, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.Of) }

// Seeds returns the shard's seeds of the range, in order.
func (s Shard) Seeds(r Seeds) []uint64 {
	var out []uint64
	for seed := r.First + uint64(s.K-1); seed >= r.First && seed <= r.Last; seed += uint64(s.Of) {
		out = append(out, seed)
	}
	return out
}

// WriteResults writes a results file: the header, then one line a seed.
func WriteResults(w io.Writer, h Header, results []Result) error {
	enc := json.NewEncoder(w)
	if err := enc.Encode(h); err != nil {
		return err
	}
	for i := range results {
		if err := enc.Encode(&results[i]); err != nil {
			return err
		}
	}
	return nil
}

// ReadResults reads a results file.
func ReadResults(r io.Reader, name string) (Header, []Result, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var h Header
	var out []Result
	line := 0
	for sc.Scan() {
		line++
		var err error
		if line == 1 {
			err = json.Unmarshal(sc.Bytes(), &h)
			if err == nil && h.Format != ResultsFormat {
				err = fmt.Errorf("not a swarm results file of format %d", ResultsFormat)
			}
		} else {
			var res Result
			err = json.Unmarshal(sc.Bytes(), &res)
			out = append(out, res)
		}
		if err != nil {
			return h, nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return h, nil, fmt.Errorf("%s: %v", name, err)
	}
	if line == 0 {
		return h, nil, fmt.Errorf("%s: empty: not a swarm results file", name)
	}
	return h, out, nil
}

// Merge joins the results of the shards of one campaign. Every shard must
// be there exactly once, each with every one of its seeds, so that the
// merged results are exactly those of the campaign run unsharded.
func Merge(headers []Header, results [][]Result) (Header, []Result, error) {
	if len(headers) == 0 {
		return Header{}, nil, errors.New("merge: no results files")
	}
	h := headers[0]
	n := h.Shard.Of
	seen := make([]bool, n+1)
	var all []Result
	for i, hi := range headers {
		if hi.Options != h.Options || hi.Seeds != h.Seeds || hi.Shard.Of != n {
			return Header{}, nil, fmt.Errorf("merge: file %d is from another campaign (seeds %s, shard %s, %s), not seeds %s in %d shards, %s",
				i+1, hi.Seeds, hi.Shard, hi.Options, h.Seeds, n, h.Options)
		}
		if seen[hi.Shard.K] {
			return Header{}, nil, fmt.Errorf("merge: shard %s is there twice", hi.Shard)
		}
		seen[hi.Shard.K] = true
		want := hi.Shard.Seeds(hi.Seeds)
		got := make([]uint64, len(results[i]))
		for j, r := range results[i] {
			got[j] = r.Seed
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			return Header{}, nil, fmt.Errorf("merge: shard %s has %d results, not one for each of its %d seeds (was it interrupted?)", hi.Shard, len(got), len(want))
		}
		all = append(all, results[i]...)
	}
	for k := 1; k <= n; k++ {
		if !seen[k] {
			return Header{}, nil, fmt.Errorf("merge: shard %d/%d is missing", k, n)
		}
	}
	slices.SortFunc(all, func(a, b Result) int { return cmpUint(a.Seed, b.Seed) })
	h.Shard = Shard{K: 1, Of: 1}
	return h, all, nil
}

// ReproFile is the name of a failing seed's reproducer in the reproducer
// directory.
func ReproFile(seed uint64) string { return "swarm-seed-" + strconv.FormatUint(seed, 10) + ".yaml" }

// Report writes what a campaign found: a line for each failure and each
// seed the linearizability check could not decide, then the totals. It is
// a function of the header and the results alone (no times, no worker
// counts), so that a campaign prints the same whichever way it ran.
// reproDir is where the reproducers are written.
func Report(w io.Writer, h Header, results []Result, reproDir string) {
	results = slices.Clone(results)
	slices.SortFunc(results, func(a, b Result) int { return cmpUint(a.Seed, b.Seed) })
	fmt.Fprintf(w, "raftsim swarm: seeds %s", h.Seeds)
	if h.Shard.Of > 1 {
		fmt.Fprintf(w, " (shard %s: %d seeds)", h.Shard, len(h.Shard.Seeds(h.Seeds)))
	}
	fmt.Fprintf(w, "\n  %s\n", h.Options)
	counts := map[Verdict]int{}
	checks := map[string]int{}
	var virtual, events, requests, checked int64
	for _, r := range results {
		counts[r.Verdict]++
		virtual += r.EndNS
		events += int64(r.Events)
		requests += int64(r.Requests)
		checked += int64(r.Checked)
		switch {
		case r.Verdict.Failed():
			checks[string(r.Verdict)+": "+r.Check]++
			fmt.Fprintf(w, "FAIL seed %d: %s\n", r.Seed, r.outcome())
			fmt.Fprintf(w, "  drew: %s\n", r.Profile)
			path := reproPath(reproDir, r.Seed)
			fmt.Fprintf(w, "  reproducer: %s (%d steps, shrunk from %d); replay with: raftsim run %s\n", path, r.ReproSteps, r.Steps, path)
		case r.Verdict == Unknown:
			fmt.Fprintf(w, "UNKNOWN seed %d: the linearizability check could not decide: %s\n", r.Seed, r.Detail)
		}
	}
	failed := 0
	for v, n := range counts {
		if v.Failed() {
			failed += n
		}
	}
	fmt.Fprintf(w, "%d seeds: %d passed, %d failed, %d unknown\n", len(results), counts[Pass], failed, counts[Unknown])
	if failed > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(checks)) {
			parts = append(parts, fmt.Sprintf("%d %s", checks[k], k))
		}
		fmt.Fprintf(w, "  failures: %s\n", strings.Join(parts, "; "))
	}
	fmt.Fprintf(w, "  simulated %s of virtual time: %d events, %d client requests, %d operations checked for linearizability\n",
		sim.Time(virtual), events, requests, checked)
}

func (r Result) outcome() string {
	o := Outcome{Verdict: r.Verdict, Check: r.Check, Detail: r.Detail, At: sim.Time(r.AtNS)}
	return o.String()
}

func reproPath(dir string, seed uint64) string {
	if dir == "" || dir == "." {
		return ReproFile(seed)
	}
	return strings.TrimSuffix(dir, "/") + "/" + ReproFile(seed)
}

// ReproPath is where Report says a seed's reproducer is.
func ReproPath(dir string, seed uint64) string { return reproPath(dir, seed) }

// ExitCode is what a campaign exits with: 3 when a safety invariant broke
// or a history is not linearizable, 1 for any other failure, 0 otherwise.
func ExitCode(results []Result) int {
	code := 0
	for _, r := range results {
		switch {
		case r.Verdict == Safety || r.Verdict == NotLinearizable:
			return 3
		case r.Verdict.Failed():
			code = 1
		}
	}
	return code
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
