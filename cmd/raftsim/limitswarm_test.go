//go:build !js

package main

// The build constraint: it reads a child process's rusage, makes device
// nodes and FIFOs, and kills a child that hangs.

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
	"github.com/raftsim/raftsim/swarm"
)

// The limits swarm's bounds on an input that is accepted: the memory every
// documented maximum runs within, and the most CPU time the costliest
// documented combination takes (docs/scenarios.md, Limits; docs/testing.md).
// The wall time is only a hang detector: on the shared machine it is 5 to
// 15 times the CPU time.
const (
	swarmCPUBudget = 300 * time.Second
	swarmHang      = 20 * time.Minute
)

// limitInput is one hostile input: raftsim's arguments, run in a fresh
// directory holding s.yaml (if scenario is set) and the nodes setup makes.
type limitInput struct {
	name     string
	scenario string
	args     []string
	setup    func(t *testing.T, dir string)
	// refuse says the input must be refused up front (exit 2) with where
	// names (a file position, or a flag); otherwise it must finish (exit
	// 0) within the budgets.
	refuse bool
	where  *regexp.Regexp
	// creates are the paths, in the directory, an accepted input may make.
	creates []string
}

var scenarioPos = regexp.MustCompile(`s\.yaml:\d+:\d+: `)

// TestLimitsSwarm runs a seeded swarm of hostile combinations: sizes,
// counts, durations and rates at and around each limit and each combined
// limit, and odd output paths (a device node as root, a FIFO, a directory,
// symlinks to them, a read-only file). Every input is refused up front
// with its position, or finishes within the budgets above, and the
// directory it ran in holds nothing afterwards that it was not allowed to
// create, and every node in it is as it was (issue 29, A swarm of limits).
// RAFTSIM_LIMITS_SWARM is how long it runs (make limits-swarm: 1m, as CI
// runs it; 1h by hand); RAFTSIM_LIMITS_SWARM_SEED replays a seed. Without
// it the test is skipped: make test's budget has no room for it.
func TestLimitsSwarm(t *testing.T) {
	v := os.Getenv("RAFTSIM_LIMITS_SWARM")
	if v == "" {
		t.Skip("set RAFTSIM_LIMITS_SWARM=1m (make limits-swarm, as CI runs it) or 1h")
	}
	budget, err := time.ParseDuration(v)
	if err != nil || budget <= 0 {
		t.Fatalf("RAFTSIM_LIMITS_SWARM=%q: want a positive duration such as 1m or 1h", v)
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("RAFTSIM_LIMITS_SWARM_SEED"); s != "" {
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("RAFTSIM_LIMITS_SWARM_SEED=%q: %v", s, err)
		}
	}
	t.Logf("seed %d (RAFTSIM_LIMITS_SWARM_SEED=%d replays it), for %s", seed, seed, budget)
	rng := rand.New(rand.NewPCG(seed, 29))
	// The accepted inputs' size grows with the time given: a minute runs
	// small ones, an hour reaches the limits themselves.
	scale := min(1, budget.Hours())
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var refused, finished int
	var maxCPU time.Duration
	var maxRSS int64
	var worst string
	start := time.Now()
	for i := 0; time.Since(start) < budget; i++ {
		in := drawLimitInput(rng, scale)
		cpu, rss := runLimitInput(t, exe, i, in)
		if in.refuse {
			refused++
		} else {
			finished++
		}
		if cpu > maxCPU {
			maxCPU, worst = cpu, in.name
		}
		maxRSS = max(maxRSS, rss)
		if t.Failed() {
			t.Fatalf("input %d failed (seed %d)", i, seed)
		}
	}
	t.Logf("%d inputs in %s: %d refused, %d finished; the most CPU time %.1fs (%s), the most memory %d MB",
		refused+finished, time.Since(start).Round(time.Second), refused, finished, maxCPU.Seconds(), worst, maxRSS>>20)
}

// pickOf draws one of xs.
func pickOf[T any](rng *rand.Rand, xs ...T) T { return xs[rng.IntN(len(xs))] }

// around draws a count at or around limit: just under, at, just over, or
// far over.
func around(rng *rand.Rand, limit int) int {
	return max(1, limit+pickOf(rng, -1, 0, 0, 1, 1, limit, 1000*limit))
}

func drawLimitInput(rng *rand.Rand, scale float64) limitInput {
	switch rng.IntN(5) {
	case 0, 1:
		return drawLoad(rng, scale)
	case 2:
		return drawSwarmFlags(rng, scale)
	case 3:
		return drawStartAt(rng)
	default:
		return drawOutput(rng)
	}
}

// drawLoad draws a cluster (members, snapshot_every, compaction) and a
// load around the combined limit.
func drawLoad(rng *rand.Rand, scale float64) limitInput {
	members := pickOf(rng, 1, 3, 5, 6, 17, 98, 99, 100)
	every := pickOf(rng, uint64(0), 1, 2, 7, 100, 10_000, 100_001)
	compacted := rng.IntN(3) == 0
	rate := pickOf(rng, 1, 1000, 10_000, 10_001)
	keys := pickOf(rng, 1, 1000, sim.MaxLoadKeys, sim.MaxLoadKeys+1)
	var names []string
	for i := range min(members, scenarios.MaxMembers+1) {
		names = append(names, fmt.Sprintf("etcd-%d", i+1))
	}
	cfg := sim.DefaultConfig()
	cfg.Members, cfg.SnapshotEvery = names, every
	cluster := fmt.Sprintf("members: [%s], snapshot_every: %d", strings.Join(names, ", "), every)
	if compacted {
		cfg.Topology, cfg.CompactionInterval = "stacked", 5*time.Second
		cluster += ", topology: stacked, compaction_interval: 5s"
	}
	limit, _ := sim.LoadLimit(&cfg, min(rate, sim.MaxLoadRate), min(keys, sim.MaxLoadKeys), 0)
	requests := around(rng, limit)
	refuse := members > scenarios.MaxMembers || rate > sim.MaxLoadRate || keys > sim.MaxLoadKeys || requests > limit
	if !refuse {
		// What a run accepted costs: members × requests, and the
		// snapshots' work. A short swarm runs a small part of it.
		work := float64(members) * float64(requests)
		if every > 0 {
			work = max(work, float64(members)*float64(requests)*float64(requests)/float64(every)/250)
		}
		if most := scale * 1.2e6; work > most {
			requests = max(1, int(float64(requests)*most/work))
		}
		rate = max(1, min(rate, requests))
	}
	// The load's for: makes about requests requests at rate.
	forMs := max(1, int64(requests)*1000/int64(rate))
	for sim.LoadRequests(time.Duration(forMs)*time.Millisecond, rate) < requests {
		forMs++
	}
	requests = sim.LoadRequests(time.Duration(forMs)*time.Millisecond, rate)
	refuse = refuse || requests > limit
	if !refuse {
		// The whole run's rules, up to the latest the last step can end
		// (the expect's 60s, the load, the wait): the compactors' writes
		// and the heartbeats.
		end := 61*time.Second + time.Duration(forMs)*time.Millisecond
		refuse = sim.CheckCompactors(&cfg, "load", end, requests, min(rate, sim.MaxLoadRate), min(keys, sim.MaxLoadKeys), 0) != nil ||
			sim.CheckHeartbeats(&cfg, len(cfg.Members), "load", end) != nil
	}
	return limitInput{
		name: fmt.Sprintf("%d members, snapshot_every %d, compacted %v, a load of %d requests at %d a second on %d keys", members, every, compacted, requests, rate, keys),
		scenario: fmt.Sprintf("name: s\ncluster: {%s}\nsteps:\n  - expect: {leader: any, within: 60s}\n  - load: {for: %dms, rate: %d, keys: %d, mix: {put: 3, get: 1, delete: 1}}\n  - wait: 1s\n",
			cluster, forMs, rate, keys),
		args:   []string{"run", "-q", "s.yaml"},
		refuse: refuse, where: scenarioPos,
	}
}

// drawSwarmFlags draws the swarm's duration and rate around their limits
// and their product's.
func drawSwarmFlags(rng *rand.Rand, scale float64) limitInput {
	d := pickOf(rng, time.Second, 36*time.Second, 36*time.Second+time.Millisecond, time.Minute, time.Hour, time.Hour+time.Second, 0)
	rate := pickOf(rng, -1, 0, 1, 10, 11, 999, 1000, 1001)
	o := swarm.DefaultOptions()
	o.Duration, o.RequestsPerSecond = d, rate
	refuse := o.Check() != nil
	if !refuse && float64(d/time.Second)*float64(rate+10) > scale*float64(swarm.MaxRequests) {
		// Too long for a short swarm: as long as scale allows.
		d = max(time.Second, time.Duration(scale*float64(swarm.MaxRequests)/float64(rate+10))*time.Second)
	}
	seed := 1 + rng.Uint64N(1<<20)
	return limitInput{
		name:   fmt.Sprintf("swarm seed %d, --duration %s --rate %d", seed, d, rate),
		args:   []string{"swarm", "--seeds", fmt.Sprint(seed), "--duration", d.String(), "--rate", fmt.Sprint(rate), "--workers", "1", "--no-shrink", "--repro-dir", "repro"},
		refuse: refuse, where: regexp.MustCompile(`--(duration|rate)`),
		creates: []string{"repro"},
	}
}

// drawStartAt draws link --at around the limit on virtual time.
func drawStartAt(rng *rand.Rand) limitInput {
	at := pickOf(rng, time.Duration(0), time.Second, scenarios.MaxRunTime, scenarios.MaxRunTime+time.Millisecond, 100_000*time.Hour, -time.Second)
	return limitInput{
		name:   fmt.Sprintf("link --at %s", at),
		args:   []string{"link", "split-brain", "--at", at.String()},
		refuse: at < 0 || at > scenarios.MaxRunTime, where: regexp.MustCompile(`--at`),
	}
}

// drawOutput points an output of a command at an odd node, made in the
// directory: refused with the path named, the node left as it was. A
// directory output (experiment --out, swarm --repro-dir) takes a
// directory or a symlink to one as it is, and makes one that is absent,
// but never its missing parents (docs/scenarios.md, Outputs).
func drawOutput(rng *rand.Rand) limitInput {
	kinds := []string{"fifo", "dir", "dirlink", "fifolink", "readonly", "missingdir", "missingparent", "absent"}
	if os.Geteuid() == 0 {
		kinds = append(kinds, "device", "devicelink")
	}
	kind := pickOf(rng, kinds...)
	path := "out"
	switch kind {
	case "missingdir":
		path = "no/such/dir/out"
	case "missingparent":
		path = "no/out"
	}
	type output struct {
		args  []string
		isDir bool
	}
	outputs := []output{
		{[]string{"run", "-q", "s.yaml", "--trace", path}, false},
		{[]string{"run", "-q", "s.yaml", "--linearizability-html", path}, false},
		{[]string{"export", "s.yaml", "--lamport", path}, false},
		{[]string{"swarm", "--seeds", "1", "--duration", "1s", "--workers", "1", "--out", path, "--repro-dir", "repro"}, false},
		{[]string{"swarm", "--seeds", "1", "--duration", "1s", "--workers", "1", "--repro-dir", path}, true},
		{[]string{"experiment", "election-time", "--trials", "2", "--workers", "1", "--out", path}, true},
	}
	o := pickOf(rng, outputs...)
	accepted := kind == "absent" || o.isDir && (kind == "dir" || kind == "dirlink")
	in := limitInput{
		name:     fmt.Sprintf("%s at a %s", strings.Join(o.args, " "), kind),
		scenario: "name: s\ncluster: {members: 3}\nsteps:\n  - expect: {leader: any, within: 5s}\n  - put: {via: n1, key: k, value: v}\n  - wait: 1s\n",
		args:     o.args,
		refuse:   !accepted,
		where:    regexp.MustCompile(regexp.QuoteMeta(path)),
		creates:  []string{"out", "repro"},
	}
	if kind == "dirlink" {
		in.creates = append(in.creates, "target") // written through the link
	}
	in.setup = func(t *testing.T, dir string) {
		p := filepath.Join(dir, "out")
		var err error
		switch kind {
		case "fifo":
			err = syscall.Mkfifo(p, 0o644)
		case "dir":
			err = os.Mkdir(p, 0o755)
		case "readonly":
			err = os.WriteFile(p, []byte("keep me\n"), 0o444)
		case "device":
			err = syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|7) // as /dev/full
		case "dirlink":
			if err = os.Mkdir(filepath.Join(dir, "target"), 0o755); err == nil {
				err = os.Symlink("target", p)
			}
		case "fifolink":
			if err = syscall.Mkfifo(filepath.Join(dir, "target"), 0o644); err == nil {
				err = os.Symlink("target", p)
			}
		case "devicelink":
			if err = syscall.Mknod(filepath.Join(dir, "target"), syscall.S_IFCHR|0o666, 1<<8|7); err == nil {
				err = os.Symlink("target", p)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return in
}

// runLimitInput runs in, checks its outcome and what it left, and returns
// the child's CPU time and peak memory.
func runLimitInput(t *testing.T, exe string, i int, in limitInput) (time.Duration, int64) {
	t.Helper()
	dir := t.TempDir()
	if in.scenario != "" {
		if err := os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(in.scenario), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if in.setup != nil {
		in.setup(t, dir)
	}
	before := dirState(t, dir)
	cmd := exec.Command(exe, in.args...)
	cmd.Env = append(os.Environ(), asRaftsim+"=1")
	cmd.Dir = dir
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	startAt := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	hang := time.AfterFunc(swarmHang, func() { cmd.Process.Kill() })
	err := cmd.Wait()
	hang.Stop()
	took := time.Since(startAt)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	rss := ru.Maxrss << 10 // KiB on Linux
	code := cmd.ProcessState.ExitCode()
	t.Logf("%d. raftsim %s (%s): exit %d, %.1fs (CPU %.1fs), %d MB", i, strings.Join(in.args, " "), in.name, code, took.Seconds(), cpu.Seconds(), rss>>20)
	fail := func(format string, args ...any) {
		t.Errorf("%d. raftsim %s (%s): %s; output:\n%s", i, strings.Join(in.args, " "), in.name, fmt.Sprintf(format, args...), tail(out.String(), 2000))
	}
	switch {
	case took >= swarmHang:
		fail("still running after %s: killed as a hang (%v)", swarmHang, err)
	case in.refuse && code != exitBadInput:
		fail("exit %d, want %d: refused up front", code, exitBadInput)
	case in.refuse && !in.where.MatchString(out.String()):
		fail("refused without naming %s", in.where)
	case !in.refuse && code != 0:
		fail("exit %d, want 0", code)
	case !in.refuse && cpu > swarmCPUBudget:
		fail("CPU time %.1fs, more than the %s budget", cpu.Seconds(), swarmCPUBudget)
	case rss > memoryCap:
		fail("peak RSS %d MB, more than 1 GiB", rss>>20)
	}
	after := dirState(t, dir)
	may := func(name string) bool { // an accepted input may make or write it
		return !in.refuse && slices.Contains(in.creates, strings.SplitN(name, string(filepath.Separator), 2)[0])
	}
	for name, st := range before {
		if after[name] != st && !may(name) {
			fail("%s changed: %s, was %s", name, after[name], st)
		}
	}
	for name := range after {
		if _, ok := before[name]; ok {
			continue
		}
		if !may(name) {
			fail("left %s, which it was not to create", name)
		}
	}
	return cpu, rss
}

// dirState is nodeState of every path under dir, by its name in dir.
func dirState(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = nodeState(t, p)
		return nil
	})
	return out
}
