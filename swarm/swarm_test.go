package swarm

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

// TestGeneratedScenariosAreFiles writes each seed's scenario as a file and
// reads it back: the file must parse (the validator accepts what the
// generator builds), and run to the same end, event for event, as the
// scenario the generator built.
func TestGeneratedScenariosAreFiles(t *testing.T) {
	o := DefaultOptions()
	for seed := uint64(1); seed <= 12; seed++ {
		s, _ := Generate(seed, o)
		data, err := scenarios.MarshalScenario(s)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		back, err := scenarios.Parse(s.Name+".yaml", data)
		if err != nil {
			t.Fatalf("seed %d: the written scenario does not parse: %v", seed, err)
		}
		a, b := Check(s), Check(back)
		if a.Verdict != b.Verdict || a.Events != b.Events || a.End != b.End || a.Requests != b.Requests || !slices.Equal(a.Skipped, b.Skipped) {
			t.Errorf("seed %d: generated %+v, read back %+v", seed, a, b)
		}
		if again, _ := Generate(seed, o); !bytes.Equal(mustMarshal(t, again), data) {
			t.Errorf("seed %d: two generations differ", seed)
		}
	}
}

func mustMarshal(t *testing.T, s *scenarios.Scenario) []byte {
	t.Helper()
	data, err := scenarios.MarshalScenario(s)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestSeedsDrawDifferentRuns: a campaign is only as good as its variety.
// Over a few seeds every fault kind, every request kind and both cluster
// sizes must be drawn, and the runs must differ.
func TestSeedsDrawDifferentRuns(t *testing.T) {
	o := DefaultOptions()
	faults, requests, sizes := map[Fault]bool{}, map[Request]bool{}, map[int]bool{}
	ends := map[int]bool{}
	for seed := uint64(1); seed <= 20; seed++ {
		s, p := Generate(seed, o)
		for _, f := range p.Faults {
			faults[f] = true
		}
		for _, r := range p.Requests {
			requests[r] = true
		}
		sizes[len(s.Config.Members)] = true
		ends[len(s.Steps)] = true
	}
	for _, f := range o.Faults {
		if !faults[f] {
			t.Errorf("no seed drew fault %s", f)
		}
	}
	for _, r := range o.Requests {
		if !requests[r] {
			t.Errorf("no seed drew request kind %s", r)
		}
	}
	if !sizes[3] || !sizes[5] {
		t.Errorf("cluster sizes drawn: %v", sizes)
	}
	if len(ends) < 15 {
		t.Errorf("only %d different step counts over 20 seeds", len(ends))
	}
}

// TestUnmodifiedSimulatorPasses runs a short campaign on the simulator as
// it is: every seed must pass (a failure here is a finding: read its
// reproducer).
func TestUnmodifiedSimulatorPasses(t *testing.T) {
	n := uint64(60)
	if testing.Short() {
		n = 10
	}
	o := DefaultOptions()
	o.Shrink = false
	for seed := uint64(1); seed <= n; seed++ {
		if r := RunSeed(seed, o); r.Verdict.Failed() {
			t.Errorf("seed %d: %s\n%s", seed, r.outcome(), r.Repro)
		}
	}
}

// TestEveryBugIsFound: for each injected bug, a campaign with the default
// options finds a safety violation or a non-linearizable history within
// 1,000 seeds; its shrunk reproducer is a handful of steps, names the bug,
// and fails the same way when run as `raftsim run` runs it, skipping
// nothing. (cmd/raftsim's test checks the exit code.)
func TestEveryBugIsFound(t *testing.T) {
	for _, bug := range sim.AllBugs() {
		t.Run(bug.String(), func(t *testing.T) {
			r, repro := firstFailure(t, bug)
			if r.ReproSteps > 10 { // the caption, the final wait, and a handful of faults and requests
				t.Errorf("seed %d: the reproducer has %d steps, want a handful:\n%s", r.Seed, r.ReproSteps, r.Repro)
			}
			if !slices.Equal(repro.Config.Bugs, []sim.Bug{bug}) {
				t.Errorf("seed %d: the reproducer runs with bugs %v", r.Seed, repro.Config.Bugs)
			}
			out := check(repro, false)
			if out.Verdict != r.Verdict || (r.Verdict == Safety && out.Check != r.Check) {
				t.Errorf("seed %d: found %s, the reproducer gives %s\n%s", r.Seed, r.outcome(), out, r.Repro)
			}
			if len(out.Skipped) > 0 {
				t.Errorf("seed %d: the reproducer has steps that cannot run: %v", r.Seed, out.Skipped)
			}
			without := *repro
			without.Config.Bugs = nil
			if out := Check(&without); out.Verdict != Pass {
				t.Errorf("seed %d: without the bug the reproducer still fails: %s", r.Seed, out)
			}
		})
	}
}

// firstFailure runs seeds from 1 with the bug until one breaks an
// invariant or linearizability, and returns its result and reproducer.
func firstFailure(t *testing.T, bug sim.Bug) (Result, *scenarios.Scenario) {
	t.Helper()
	o := DefaultOptions()
	o.Bugs = []sim.Bug{bug}
	o.Shrink = false
	for seed := uint64(1); seed <= 1000; seed++ {
		s, _ := Generate(seed, o)
		out := Check(s)
		if out.Verdict != Safety && out.Verdict != NotLinearizable {
			continue
		}
		o.Shrink = true
		r := RunSeed(seed, o)
		repro, err := scenarios.Parse(ReproFile(seed), []byte(r.Repro))
		if err != nil {
			t.Fatalf("seed %d: the reproducer does not parse: %v\n%s", seed, err, r.Repro)
		}
		t.Logf("%s: seed %d: %s; reproducer of %d steps (from %d) after %d runs", bug, seed, r.outcome(), r.ReproSteps, r.Steps, r.ShrinkRuns)
		return r, repro
	}
	t.Fatalf("%s: no seed from 1 to 1000 fails", bug)
	return Result{}, nil
}

// TestShardsCoverEverySeedOnce: the shards of a range are disjoint and
// together are the range.
func TestShardsCoverEverySeedOnce(t *testing.T) {
	r := Seeds{First: 7, Last: 50}
	for n := 1; n <= 6; n++ {
		var all []uint64
		for k := 1; k <= n; k++ {
			sh := Shard{K: k, Of: n}
			before := len(all)
			all = slices.AppendSeq(all, sh.All(r))
			if got := uint64(len(all) - before); got != sh.Count(r) {
				t.Errorf("shard %s: %d seeds, but Count says %d", sh, got, sh.Count(r))
			}
		}
		slices.Sort(all)
		if len(all) != int(r.Count()) || all[0] != r.First || all[len(all)-1] != r.Last || len(slices.Compact(all)) != int(r.Count()) {
			t.Errorf("%d shards: %v", n, all)
		}
	}
}

// TestMergeOfShardsIsTheCampaign splits a campaign (with failures, so that
// reproducers are in the results) into 4 shards, writes each shard's
// results file, merges them and prints the report: it must be exactly the
// report of the campaign run whole.
func TestMergeOfShardsIsTheCampaign(t *testing.T) {
	o := DefaultOptions()
	o.Bugs = []sim.Bug{sim.BugApplyUncommitted}
	seeds := Seeds{First: 1, Last: 16}
	var whole []Result
	for seed := range (Shard{K: 1, Of: 1}).All(seeds) {
		whole = append(whole, RunSeed(seed, o))
	}
	hdr := Header{Format: ResultsFormat, Options: o.String(), Args: o.Args(), Seeds: seeds, Shard: Shard{K: 1, Of: 1}}
	var want bytes.Buffer
	Report(&want, hdr, whole, "repro")

	files := map[int][]byte{}
	for _, k := range []int{3, 1, 4, 2} { // any order
		h := hdr
		h.Shard = Shard{K: k, Of: 4}
		var rs []Result
		for seed := range h.Shard.All(seeds) {
			rs = append(rs, RunSeed(seed, o))
		}
		var file bytes.Buffer
		if err := WriteResults(&file, h, rs); err != nil {
			t.Fatal(err)
		}
		files[k] = file.Bytes()
	}
	// merge merges the files of the shards in the order given.
	merge := func(order ...int) (Header, []Result, error) {
		var readers []*ResultsReader
		for _, k := range order {
			rr, err := NewResultsReader(bytes.NewReader(files[k]), fmt.Sprintf("shard-%d", k))
			if err != nil {
				return Header{}, nil, err
			}
			readers = append(readers, rr)
		}
		var out []Result
		h, err := Merge(readers, func(r Result) error { out = append(out, r); return nil })
		return h, out, err
	}
	mh, merged, err := merge(3, 1, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	Report(&got, mh, merged, "repro")
	if got.String() != want.String() {
		t.Errorf("merged report:\n%s\nwhole campaign:\n%s", got.String(), want.String())
	}
	if !strings.Contains(want.String(), "FAIL seed 1:") {
		t.Errorf("the campaign found nothing to merge:\n%s", want.String())
	}
	if _, _, err := merge(3, 1, 4); err == nil || !strings.Contains(err.Error(), "give one for each shard") {
		t.Errorf("three shards of four merged: %v", err)
	}
	if _, _, err := merge(3, 1, 4, 4); err == nil || !strings.Contains(err.Error(), "shard 4/4 is there twice") {
		t.Errorf("a shard given twice merged: %v", err)
	}
	// A shard's file with its first result cut out.
	lines := bytes.SplitAfter(files[1], []byte("\n"))
	files[1] = bytes.Join(append(lines[:1:1], lines[2:]...), nil)
	if _, _, err := merge(1, 2, 3, 4); err == nil || !strings.Contains(err.Error(), "shard-1:2: seed 5, but shard 1/4 has no result for seed 1 before it") {
		t.Errorf("a shard with a seed missing merged: %v", err)
	}
}

// TestShrinkKeepsTheFailure shrinks a stale read to its few steps and
// checks the reproducer's first caption says what it shows.
func TestShrinkKeepsTheFailure(t *testing.T) {
	o := DefaultOptions()
	o.Bugs = []sim.Bug{sim.BugStaleLocalRead}
	r, repro := firstFailure(t, sim.BugStaleLocalRead)
	if r.Verdict != NotLinearizable {
		t.Fatalf("stale-local-read gave %s", r.outcome())
	}
	if repro.Steps[0].Kind != scenarios.StepSay || !strings.Contains(repro.Steps[0].Text.En, "stale-local-read") {
		t.Errorf("the reproducer starts with %+v", repro.Steps[0])
	}
	if last := repro.Steps[len(repro.Steps)-1]; last.Kind != scenarios.StepWait {
		t.Errorf("a reproducer of a history ends with the wait that lets its requests end, not %s", last.Kind)
	}
}

// TestMembershipIsBounded: a long seed's schedule added a member at most
// membership faults and never stopped: seed 1 at --duration 1h --rate 10
// added 1,409 members, and `raftsim swarm` with it peaked at 1.41 GiB
// (issue 29). The cluster as the schedule knows it stays within
// maxScheduledMembers, so a seed's run is at most that many members.
func TestMembershipIsBounded(t *testing.T) {
	o := DefaultOptions()
	o.Duration, o.RequestsPerSecond = time.Hour, 10
	s, _ := Generate(1, o)
	members := len(s.Config.Members)
	most := members
	for _, st := range s.Steps {
		switch st.Kind {
		case scenarios.StepAddMember:
			members++
		case scenarios.StepRemoveMember:
			members--
		}
		most = max(most, members)
	}
	if most > maxScheduledMembers {
		t.Errorf("seed 1 at 1h: the schedule reaches %d members, more than %d", most, maxScheduledMembers)
	}
}
