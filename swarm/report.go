package swarm

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/raftsim/raftsim/sim"
)

// Reporter writes what a campaign finds as it finds it: the campaign's
// header at once, a line for each failure and each seed the
// linearizability check could not decide as its result comes (results
// come in seed order), and the totals at the end. It keeps counts, not
// results, so that a campaign of any length reports in bounded memory.
// What it writes is a function of the header and the results alone (no
// times, no worker counts), so that a campaign prints the same whichever
// way it ran, and `raftsim swarm merge` prints what the campaign would.
type Reporter struct {
	w        io.Writer
	h        Header
	reproDir string

	n                                  uint64
	counts                             map[Verdict]int
	checks                             map[string]int
	virtual, events, requests, checked int64
	code                               int
}

// NewReporter starts the report of the campaign h; reproDir is where the
// reproducers are written.
func NewReporter(w io.Writer, h Header, reproDir string) *Reporter {
	fmt.Fprintf(w, "raftsim swarm: seeds %s", h.Seeds)
	if h.Shard.Of > 1 {
		fmt.Fprintf(w, " (shard %s: %d seeds)", h.Shard, h.Shard.Count(h.Seeds))
	}
	fmt.Fprintf(w, "\n  %s\n", h.Options)
	return &Reporter{w: w, h: h, reproDir: reproDir, counts: map[Verdict]int{}, checks: map[string]int{}}
}

// Add reports one seed's result.
func (p *Reporter) Add(r Result) {
	p.n++
	p.counts[r.Verdict]++
	p.virtual += r.EndNS
	p.events += int64(r.Events)
	p.requests += int64(r.Requests)
	p.checked += int64(r.Checked)
	switch {
	case r.Verdict == Safety || r.Verdict == NotLinearizable:
		p.code = 3
	case r.Verdict.Failed() && p.code == 0:
		p.code = 1
	}
	switch {
	case r.Verdict.Failed():
		p.checks[string(r.Verdict)+": "+r.Check]++
		fmt.Fprintf(p.w, "FAIL seed %d: %s\n", r.Seed, r.outcome())
		fmt.Fprintf(p.w, "  drew: %s\n", r.Profile)
		path := reproPath(p.reproDir, r.Seed)
		fmt.Fprintf(p.w, "  reproducer: %s (%d steps, shrunk from %d); replay with: raftsim run %s\n", path, r.ReproSteps, r.Steps, path)
	case r.Verdict == Unknown:
		fmt.Fprintf(p.w, "UNKNOWN seed %d: the linearizability check could not decide: %s\n", r.Seed, r.Detail)
	}
}

// Writer returns where the report goes, for a line after it.
func (p *Reporter) Writer() io.Writer { return p.w }

// Seeds returns how many results it has had.
func (p *Reporter) Seeds() uint64 { return p.n }

// End writes the totals.
func (p *Reporter) End() {
	failed := 0
	for v, n := range p.counts {
		if v.Failed() {
			failed += n
		}
	}
	fmt.Fprintf(p.w, "%d seeds: %d passed, %d failed, %d unknown\n", p.n, p.counts[Pass], failed, p.counts[Unknown])
	if failed > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(p.checks)) {
			parts = append(parts, fmt.Sprintf("%d %s", p.checks[k], k))
		}
		fmt.Fprintf(p.w, "  failures: %s\n", strings.Join(parts, "; "))
	}
	fmt.Fprintf(p.w, "  simulated %s of virtual time: %d events, %d client requests, %d operations checked for linearizability\n",
		sim.Time(p.virtual), p.events, p.requests, p.checked)
}

// ExitCode is what the campaign exits with: 3 when a safety invariant
// broke or a history is not linearizable, 1 for any other failure, 0
// otherwise.
func (p *Reporter) ExitCode() int { return p.code }

// Report writes the whole report of results (in any order).
func Report(w io.Writer, h Header, results []Result, reproDir string) {
	results = slices.Clone(results)
	slices.SortFunc(results, func(a, b Result) int { return cmp.Compare(a.Seed, b.Seed) })
	p := NewReporter(w, h, reproDir)
	for _, r := range results {
		p.Add(r)
	}
	p.End()
}
