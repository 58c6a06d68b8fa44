package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"

	"github.com/raftsim/raftsim/experiment"
	"github.com/raftsim/raftsim/netmodel"
)

const experimentUsage = `Usage: raftsim experiment NAME [flags]

Runs many trials of the simulator and summarizes them.

Experiments:
  election-time   the Raft paper's Figure 16 (bottom): how long a five-member
                  cluster goes without a leader after its leader crashes, for
                  several election-timeout ranges
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
}

func addClusterFlags(fs flagSet, def experiment.Cluster) clusterFlags {
	return clusterFlags{
		members:     fs.Int("members", def.Members, "cluster size"),
		latency:     fs.String("latency", def.Latency.String(), `one-way latency between members: "7ms", or "5ms-9ms" uniform`),
		disk:        fs.Duration("disk-latency", def.DiskLatency, "how long a disk write takes to become durable"),
		preVote:     fs.Bool("pre-vote", def.PreVote, "raft's PreVote (etcd's default; the paper's LogCabin had none)"),
		checkQuorum: fs.Bool("check-quorum", def.CheckQuorum, "raft's CheckQuorum (etcd's default; the paper's LogCabin had none)"),
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

Reproduces the bottom graph of the Raft paper's Figure 16 (section 9.3): the
leader of a settled cluster crashes at a uniformly random moment of its
heartbeat interval (half the minimum election timeout), right after a
heartbeat round that starts every follower's timer at once; the logs are set
up so that some survivors cannot win (two of four with five members); the
time is measured from the crash until every survivor has heard from the new
leader. Ticks are 1ms, so a range 150-300 is raft's election timeout of 150
ticks, drawn from [150, 300).

Writes DIR/election-time.csv (every trial), .png and .svg (the CDFs), and
prints min, median, mean, p99 and max for each range beside the paper's.

%s`, fs.FlagUsages())
	}
	def := experiment.PaperCluster()
	cf := addClusterFlags(fs, def)
	behind := fs.Int("behind", -1, "survivors whose logs lack the last entry, so that they cannot win (-1: as many as can be, 2 of 4 with 5 members)")
	ranges := fs.String("ranges", "12-24,25-50,50-100,100-200,150-300", "election-timeout ranges in ms, MIN-MAX with MAX = 2·MIN (raft draws from [ET, 2·ET))")
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
	for _, s := range strings.Split(*ranges, ",") {
		r, err := experiment.ParseRange(s)
		if err != nil {
			return badInput("experiment election-time: --ranges: %v", err)
		}
		rs = append(rs, r)
	}
	plan := experiment.ElectionTime(c, rs, *rf.trials, *rf.seed)
	if err := plan.Check(); err != nil {
		return badInput("experiment election-time: %v", err)
	}
	settled, err := experiment.Settle(c, plan.Seed)
	if err != nil {
		return err
	}
	res, err := runPlan(plan, *rf.workers, stderr)
	if err != nil {
		return err
	}
	sums := res.Summaries()
	setup := describeCluster(c, settled)
	if *rf.out != "" {
		p, err := res.CDFPlot("Time without a leader after the leader crashes", setup)
		if err != nil {
			return err
		}
		if err := writeExperimentFiles(*rf.out, "election-time", res, p); err != nil {
			return err
		}
	}
	if *rf.format == "json" {
		return experiment.WriteJSON(stdout, sums)
	}
	fmt.Fprintf(stdout, "raftsim experiment election-time  seed=%d\n%s; %d trials per range\n\n", plan.Seed, setup, *rf.trials)
	if err := experiment.WriteTable(stdout, sums, experiment.PaperByName()); err != nil {
		return err
	}
	if *rf.out != "" {
		fmt.Fprintf(stdout, "\nwrote %s\n", strings.Join(outFiles(*rf.out, "election-time"), ", "))
	}
	return nil
}

// describeCluster says in a line what the trials ran on.
func describeCluster(c experiment.Cluster, s *experiment.Settled) string {
	onOff := func(b bool) string {
		if b {
			return "on"
		}
		return "off"
	}
	out := fmt.Sprintf("%d members, one-way latency %s, disk write %s (broadcast time %s), pre-vote %s, check quorum %s",
		c.Members, c.Latency, c.DiskLatency, s.BroadcastTime(), onOff(c.PreVote), onOff(c.CheckQuorum))
	if b := len(s.Behind()); b > 0 {
		out += fmt.Sprintf(", %d of %d survivors behind", b, c.Members-1)
	}
	return out
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
	if err := os.MkdirAll(dir, 0o755); err != nil {
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
		if err := os.WriteFile(files[i], b.Bytes(), 0o644); err != nil {
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
	res, err := runPlan(plan, *rf.workers, stderr)
	if err != nil {
		return err
	}
	onOff := map[bool]string{true: "on", false: "off"}
	setup := fmt.Sprintf("election timeout %s ms, disk write %s, pre-vote %s, check quorum %s, every survivor's log equal",
		r, c.DiskLatency, onOff[c.PreVote], onOff[c.CheckQuorum])
	if *rf.out != "" {
		p, err := res.SplitVotePlot("Split votes after a leader crash", setup)
		if err != nil {
			return err
		}
		if err := writeExperimentFiles(*rf.out, "split-votes", res, p); err != nil {
			return err
		}
	}
	if *rf.format == "json" {
		return res.WriteSplitVotesJSON(stdout)
	}
	fmt.Fprintf(stdout, "raftsim experiment split-votes  seed=%d\n%s; %d trials each\n\n", plan.Seed, setup, *rf.trials)
	if err := res.WriteSplitVotesTable(stdout); err != nil {
		return err
	}
	if *rf.out != "" {
		fmt.Fprintf(stdout, "\nwrote %s\n", strings.Join(outFiles(*rf.out, "split-votes"), ", "))
	}
	return nil
}
