package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"

	"github.com/raftsim/raftsim/experiment"
	"github.com/raftsim/raftsim/interrupt"
	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/outfile"
	"github.com/raftsim/raftsim/sim"
)

const experimentUsage = `Usage: raftsim experiment NAME [flags]

Runs many trials of the simulator and summarizes them.

Experiments:
  election-time   the Raft paper's Figure 16: how long a five-member cluster
                  goes without a leader after its leader crashes, for several
                  election-timeout ranges (--graph bottom or top)
  split-votes     how often votes split, and how long elections take, as the
                  cluster grows and the network slows (Ongaro's thesis, ch. 9)

Run 'raftsim experiment NAME --help' for an experiment's flags.
`

func experimentCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, experimentUsage)
		if len(args) == 0 {
			return &exitError{code: exitBadInput}
		}
		return nil
	}
	switch args[0] {
	case "election-time":
		return electionTimeCmd(args[1:], stdout, stderr)
	case "split-votes":
		return splitVotesCmd(args[1:], stdout, stderr)
	case workerArg:
		return workerCmd(stdin, stdout)
	}
	fmt.Fprint(stderr, experimentUsage)
	return badInput("raftsim experiment: unknown experiment %q", args[0])
}

// clusterFlags are the flags that describe the cluster of an experiment.
type clusterFlags struct {
	members     *int
	latency     *string
	disk        *time.Duration
	preVote     *bool
	checkQuorum *bool
	timerRule   *string
}

func addClusterFlags(fs flagSet, def experiment.Cluster) clusterFlags {
	return clusterFlags{
		members:     fs.Int("members", def.Members, "cluster size"),
		latency:     fs.String("latency", def.Latency.String(), `one-way latency between members: "7ms", or "5ms-9ms" uniform`),
		disk:        fs.Duration("disk-latency", def.DiskLatency, "how long a disk write takes to become durable"),
		preVote:     fs.Bool("pre-vote", def.PreVote, "raft's PreVote (etcd's default; the paper's LogCabin had none)"),
		checkQuorum: fs.Bool("check-quorum", def.CheckQuorum, "raft's CheckQuorum (etcd's default; the paper's LogCabin had none)"),
		timerRule: fs.String("timer-rule", def.TimerRule.String(), "raft: etcd's raft as it is, a vote request of a higher term restarts a follower's election timer; "+
			"logcabin: an experiment, the timer runs on unless the vote is granted, as in the paper's LogCabin (the simulator puts raft's timer back after the request)"),
	}
}

func (f clusterFlags) cluster(def experiment.Cluster) (experiment.Cluster, error) {
	c := def
	c.Members, c.DiskLatency, c.PreVote, c.CheckQuorum = *f.members, *f.disk, *f.preVote, *f.checkQuorum
	l, err := netmodel.ParseLatency(*f.latency)
	if err != nil {
		return c, fmt.Errorf("--latency: %v", err)
	}
	c.Latency = l
	if c.TimerRule, err = sim.ParseTimerRule(*f.timerRule); err != nil {
		return c, fmt.Errorf("--timer-rule: %v", err)
	}
	return c, nil
}

// runFlags are the flags of how an experiment runs.
type runFlags struct {
	trials  *int
	workers *int
	seed    *uint64
	out     *string
	format  *string
}

func addRunFlags(fs flagSet, trials int, name string) runFlags {
	return runFlags{
		trials:  fs.Int("trials", trials, "trials per "+name),
		workers: fs.Int("workers", runtime.NumCPU(), "processes that run trials (the results do not depend on it)"),
		seed:    fs.Uint64("seed", 1, "the seed every trial's seed derives from"),
		out:     fs.String("out", ".", `directory for the CSV of every trial and the plot as PNG and SVG ("" for none)`),
		format:  fs.String("format", "text", "text: a table; json: a JSON array of the summaries on standard output"),
	}
}

func (f runFlags) check(name string) error {
	if *f.format != "text" && *f.format != "json" {
		return badInput("%s: --format must be text or json, not %q", name, *f.format)
	}
	if *f.workers < 1 || *f.workers > 64 {
		return badInput("%s: --workers must be between 1 and 64, not %d", name, *f.workers)
	}
	return nil
}

func electionTimeCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("experiment election-time", stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: raftsim experiment election-time [flags]

Reproduces Figure 16 of the Raft paper (section 9.3): the leader of a
settled cluster crashes at a uniformly random moment of its heartbeat
interval (half the minimum election timeout), right after a heartbeat round
that starts every follower's timer at once; the logs are set up so that some
survivors cannot win (two of four with five members); the time is measured
from the crash until every survivor has heard from the new leader. The
bottom graph (the default) scales the minimum timeout, raft's own range
MIN-2·MIN; the top graph (--graph top) varies the randomness at a 150ms
minimum, 150-150 to 150-300, which the simulator draws for raft.

Writes DIR/election-time.csv (every trial), .png and .svg (the CDFs, the
paper's dashed beside ours; election-time-top.* for the top graph), and
prints for each range min, median, mean, p99, max and the share of trials
that took more than one election, beside the paper's figures and the
ratios of our median and p99 to the paper's.

%s`, fs.FlagUsages())
	}
	def := experiment.PaperCluster()
	cf := addClusterFlags(fs, def)
	behind := fs.Int("behind", -1, "survivors whose logs lack the last entry, so that they cannot win (-1: as many as can be, 2 of 4 with 5 members)")
	graph := fs.String("graph", "bottom", "bottom: the paper's ranges 12-24 to 150-300; top: 150-150 to 150-300 (100 trials of 150-150, a tenth of --trials, as the paper)")
	ranges := fs.String("ranges", "", "election-timeout ranges in ms instead of the graph's, MIN-MAX with MIN <= MAX <= 2·MIN (raft's own range is MIN-2·MIN)")
	patience := fs.Duration("patience", experiment.TrialPatience, "how long a trial waits for a leader before it gives up (and counts as that long)")
	rf := addRunFlags(fs, 1000, "range")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return badInput("experiment election-time: unexpected argument %q", fs.Arg(0))
	}
	if err := rf.check("experiment election-time"); err != nil {
		return err
	}
	c, err := cf.cluster(def)
	if err != nil {
		return badInput("experiment election-time: %v", err)
	}
	c.Behind = *behind
	var rs []experiment.Range
	name := "election-time"
	switch *graph {
	case "bottom":
		rs = experiment.PaperRanges
	case "top":
		rs, name = experiment.PaperTopRanges, "election-time-top"
	default:
		return badInput("experiment election-time: --graph must be bottom or top, not %q", *graph)
	}
	if *ranges != "" {
		rs = nil
		for _, s := range strings.Split(*ranges, ",") {
			r, err := experiment.ParseRange(s)
			if err != nil {
				return badInput("experiment election-time: --ranges: %v", err)
			}
			rs = append(rs, r)
		}
	}
	plan := experiment.ElectionTime(c, rs, *rf.trials, *rf.seed)
	for i := range plan.Jobs {
		j := &plan.Jobs[i]
		j.Patience = *patience
		if *graph == "top" && j.Range.Min == j.Range.Max {
			j.Trials = max(*rf.trials/10, 1) // the paper ran 100 trials of 150-150, against 1,000 of the others
		}
	}
	if err := plan.Check(); err != nil {
		return badInput("experiment election-time: %v", err)
	}
	if err := prepareOut("experiment election-time", *rf.out); err != nil {
		return err
	}
	settled, err := experiment.Settle(c, plan.Seed)
	if err != nil {
		return err
	}
	stop := interrupt.Catch()
	defer stop.Stop()
	res, stopped, err := runPlan(plan, *rf.workers, stderr, stop)
	if err != nil {
		return err
	}
	sums := res.Summaries()
	setup := describeCluster(c, settled)
	e := finishedExperiment{name: name, out: *rf.out, res: res, stopped: stopped, stop: stop}
	paper := experiment.PaperByName()
	if *rf.format == "json" {
		if err := experiment.WriteJSON(stdout, sums, paper); err != nil {
			return err
		}
	} else {
		counts := fmt.Sprintf("%d trials per range", *rf.trials)
		for _, j := range plan.Jobs {
			if j.Trials != *rf.trials {
				counts += fmt.Sprintf(" (%d of %s)", j.Trials, j.Name)
			}
		}
		fmt.Fprintf(stdout, "raftsim experiment election-time  seed=%d\n%s; %s\n\n", plan.Seed, setup, counts)
		if err := experiment.WriteTable(stdout, sums, paper); err != nil {
			return err
		}
	}
	return e.finish(stdout, *rf.format, func() (*plot.Plot, error) {
		title := "Time without a leader after the leader crashes"
		if *graph == "top" {
			title += ": the randomness varied"
		}
		return res.CDFPlot(title, setup, *graph == "top")
	})
}

// prepareOut makes an experiment's --out directory before any trial runs
// (exit 2 if it cannot be written); "" writes no files.
func prepareOut(cmd, dir string) error {
	if dir == "" {
		return nil
	}
	name := strings.TrimPrefix(cmd, "experiment ")
	_, err := prepareDir(cmd, "--out", dir, name+".csv", name+".png", name+".svg")
	return err
}

// finishedExperiment is an experiment whose table is printed, with its
// files still to write.
type finishedExperiment struct {
	name    string // the files' name, e.g. election-time
	out     string
	res     *experiment.Results
	stopped bool
	stop    *interrupt.Catcher
}

// finish writes the files after the table, so that a file that cannot be
// written loses nothing printed, and ends an interrupted experiment with a
// line that says so (exit 130): its table and files are of the trials
// that finished.
func (e finishedExperiment) finish(stdout io.Writer, format string, plotIt func() (*plot.Plot, error)) error {
	cmd := "experiment " + strings.TrimSuffix(e.name, "-top")
	if e.out != "" && e.res.Done() > 0 {
		p, err := plotIt()
		if err == nil {
			err = writeExperimentFiles(e.out, e.name, e.res, p)
		}
		if err != nil {
			return &exitError{code: exitBadInput, err: fmt.Errorf("%s: writing the files in %s: %v; the results printed above are whole", cmd, e.out, err)}
		}
		if format == "text" {
			fmt.Fprintf(stdout, "\nwrote %s\n", strings.Join(outFiles(e.out, e.name), ", "))
		}
	}
	if !e.stopped {
		return nil
	}
	sig := interrupt.Name(e.stop.Signal())
	done := fmt.Sprintf("%d of %d trials", e.res.Done(), e.res.Plan.Total())
	if format == "text" {
		fmt.Fprintf(stdout, "\ninterrupted by %s after %s: the results are of the trials that finished\n", sig, done)
	}
	return interrupted("%s: interrupted by %s after %s", cmd, sig, done)
}

// describeCluster says in a line what the trials ran on.
func describeCluster(c experiment.Cluster, s *experiment.Settled) string {
	onOff := func(b bool) string {
		if b {
			return "on"
		}
		return "off"
	}
	out := fmt.Sprintf("%d members, one-way latency %s, disk write %s (broadcast time %s), pre-vote %s, check quorum %s, %s",
		c.Members, c.Latency, c.DiskLatency, s.BroadcastTime(), onOff(c.PreVote), onOff(c.CheckQuorum), timerRuleText[c.TimerRule])
	if b := len(s.Behind()); b > 0 {
		out += fmt.Sprintf(", %d of %d survivors behind", b, c.Members-1)
	}
	return out
}

// timerRuleText names a timer rule in an experiment's setup line.
var timerRuleText = map[sim.TimerRule]string{
	sim.TimerRuleRaft:     "etcd's raft's timer rule",
	sim.TimerRuleLogCabin: "LogCabin's timer rule (--timer-rule logcabin)",
}

func outFiles(dir, name string) []string {
	var out []string
	for _, ext := range []string{".csv", ".png", ".svg"} {
		out = append(out, filepath.Join(dir, name+ext))
	}
	return out
}

// writeExperimentFiles writes the CSV of every trial and the plot.
func writeExperimentFiles(dir, name string, res *experiment.Results, p *plot.Plot) error {
	if _, err := outfile.Dir(dir); err != nil {
		return err
	}
	var csv bytes.Buffer
	if err := res.WriteCSV(&csv); err != nil {
		return err
	}
	var png, svg bytes.Buffer
	if err := experiment.WritePlot(&png, p, "png"); err != nil {
		return err
	}
	if err := experiment.WritePlot(&svg, p, "svg"); err != nil {
		return err
	}
	files := outFiles(dir, name)
	for i, b := range []*bytes.Buffer{&csv, &png, &svg} {
		if err := outfile.WriteFile(files[i], b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// flagSet is the part of pflag.FlagSet the flag helpers use.
type flagSet interface {
	Int(name string, value int, usage string) *int
	String(name string, value string, usage string) *string
	Duration(name string, value time.Duration, usage string) *time.Duration
	Bool(name string, value bool, usage string) *bool
	Uint64(name string, value uint64, usage string) *uint64
}

func splitVotesCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("experiment split-votes", stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: raftsim experiment split-votes [flags]

How often the first election after a leader crash fails because the votes
split, and how long the cluster goes without a leader, against the cluster
size and the one-way latency (Ongaro's thesis, chapter 9). Each trial is the
election-time experiment's, with every survivor's log equal, so that any of
them can win: an election fails only when candidates split the votes.

Writes DIR/split-votes.csv (every trial), .png and .svg (the split-vote
rate against latency, a line per cluster size) and prints a table.

%s`, fs.FlagUsages())
	}
	def := experiment.PaperCluster()
	def.DiskLatency = 0 // the thesis's simulator took no time for disks
	sizes := fs.String("sizes", "3,5,7,9", "cluster sizes")
	latencies := fs.String("latencies", "1ms,2ms,5ms,10ms,20ms,40ms", `one-way latencies, each "7ms" or "5ms-9ms" uniform`)
	rangeFlag := fs.String("range", "150-300", "the election-timeout range in ms, MIN-MAX with MAX = 2·MIN")
	disk := fs.Duration("disk-latency", def.DiskLatency, "how long a disk write takes to become durable")
	preVote := fs.Bool("pre-vote", false, "raft's PreVote")
	checkQuorum := fs.Bool("check-quorum", false, "raft's CheckQuorum")
	rf := addRunFlags(fs, 200, "cluster size and latency")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return badInput("experiment split-votes: unexpected argument %q", fs.Arg(0))
	}
	if err := rf.check("experiment split-votes"); err != nil {
		return err
	}
	var ns []int
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return badInput("experiment split-votes: --sizes: %q is not a number", s)
		}
		ns = append(ns, n)
	}
	var ls []netmodel.Latency
	for _, s := range strings.Split(*latencies, ",") {
		l, err := netmodel.ParseLatency(strings.TrimSpace(s))
		if err != nil {
			return badInput("experiment split-votes: --latencies: %v", err)
		}
		ls = append(ls, l)
	}
	r, err := experiment.ParseRange(*rangeFlag)
	if err != nil {
		return badInput("experiment split-votes: --range: %v", err)
	}
	c := def
	c.DiskLatency, c.PreVote, c.CheckQuorum = *disk, *preVote, *checkQuorum
	plan := experiment.SplitVotes(c, ns, ls, r, *rf.trials, *rf.seed)
	if err := plan.Check(); err != nil {
		return badInput("experiment split-votes: %v", err)
	}
	if err := prepareOut("experiment split-votes", *rf.out); err != nil {
		return err
	}
	stop := interrupt.Catch()
	defer stop.Stop()
	res, stopped, err := runPlan(plan, *rf.workers, stderr, stop)
	if err != nil {
		return err
	}
	onOff := map[bool]string{true: "on", false: "off"}
	setup := fmt.Sprintf("election timeout %s ms, disk write %s, pre-vote %s, check quorum %s, every survivor's log equal",
		r, c.DiskLatency, onOff[c.PreVote], onOff[c.CheckQuorum])
	e := finishedExperiment{name: "split-votes", out: *rf.out, res: res, stopped: stopped, stop: stop}
	if *rf.format == "json" {
		if err := res.WriteSplitVotesJSON(stdout); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "raftsim experiment split-votes  seed=%d\n%s; %d trials each\n\n", plan.Seed, setup, *rf.trials)
		if err := res.WriteSplitVotesTable(stdout); err != nil {
			return err
		}
	}
	return e.finish(stdout, *rf.format, func() (*plot.Plot, error) {
		return res.SplitVotePlot("Split votes after a leader crash", setup)
	})
}
