package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/pflag"

	"github.com/raftsim/raftsim/console"
	"github.com/raftsim/raftsim/sim"
	"github.com/raftsim/raftsim/swarm"
	"github.com/raftsim/raftsim/swarm/campaign"
)

// swarmFlags are the flags that say what every seed draws from; workers
// get them too.
func swarmFlags(fs *pflag.FlagSet) func() (swarm.Options, error) {
	def := swarm.DefaultOptions()
	members := fs.String("members", "3,5", "cluster sizes a seed draws from")
	faults := fs.String("faults", "all", "fault kinds a seed may draw: all, none, or a list (crash,partition,...; all,-membership)")
	workload := fs.String("workload", "default", "request kinds: default (all but range), all, or a list (put,get,serializable-get,delete,watch,txn,lease,range)")
	duration := fs.Duration("duration", def.Duration, "virtual time of faults and requests before the final heal")
	rate := fs.Int("rate", def.RequestsPerSecond, "the highest mean number of requests a virtual second a seed draws")
	var bugNames []string
	for _, b := range sim.AllBugs() {
		bugNames = append(bugNames, b.String())
	}
	bugs := fs.StringArray("bug", nil, "inject a bug into every seed (repeatable): "+strings.Join(bugNames, ", "))
	noShrink := fs.Bool("no-shrink", false, "do not shrink failures to minimal reproducers")
	return func() (swarm.Options, error) {
		o := def
		var err error
		if o.Members, err = swarm.ParseMembers(*members); err != nil {
			return o, err
		}
		if o.Faults, err = swarm.ParseFaults(*faults); err != nil {
			return o, err
		}
		if o.Requests, err = swarm.ParseRequests(*workload); err != nil {
			return o, err
		}
		o.Duration, o.RequestsPerSecond, o.Shrink = *duration, *rate, !*noShrink
		for _, name := range *bugs {
			b, err := sim.ParseBug(name)
			if err != nil {
				return o, fmt.Errorf("--bug: %v", err)
			}
			o.Bugs = append(o.Bugs, b)
		}
		return o, o.Check()
	}
}

func swarmCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "merge" {
		return swarmMergeCmd(args[1:], stdout, stderr)
	}
	fs := newFlags("swarm", stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: raftsim swarm [flags]
       raftsim swarm merge [--repro-dir DIR] RESULTS...

Runs many seeds, each a scenario with its own faults and workload drawn from
the seed, with every checker on: the five safety invariants online, liveness
after a final heal, and linearizability at the end. A failure is shrunk to a
minimal scenario that 'raftsim run' replays. See docs/swarm.md.

%s`, fs.FlagUsages())
	}
	seedsFlag := fs.String("seeds", "1-1000", "the seeds to run: a range like 1-10000, or one seed")
	options := swarmFlags(fs)
	shardFlag := fs.String("shard", "1/1", "run only shard K of N of the seeds (K/N); merge the shards' --out files with 'raftsim swarm merge'")
	workers := fs.Int("workers", runtime.NumCPU(), "worker processes")
	outPath := fs.String("out", "", "write every seed's result to this file (JSON lines), for 'raftsim swarm merge'")
	reproDir := fs.String("repro-dir", "swarm-repro", "write the reproducers of failing seeds into this directory")
	worker := fs.Bool("worker", false, "serve seeds from standard input (how raftsim starts its workers)")
	_ = fs.MarkHidden("worker")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return badInput("swarm: unexpected argument %q (see 'raftsim swarm --help')", fs.Arg(0))
	}
	o, err := options()
	if err != nil {
		return badInput("swarm: %v", err)
	}
	// A simulation makes much short-lived garbage and keeps little: a
	// lazier collector buys time at the cost of memory, which is plenty.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	if *worker {
		return campaign.Serve(o, stdin, stdout)
	}
	seeds, err := swarm.ParseSeeds(*seedsFlag)
	if err != nil {
		return badInput("swarm: %v", err)
	}
	shard, err := swarm.ParseShard(*shardFlag)
	if err != nil {
		return badInput("swarm: %v", err)
	}
	if *workers < 1 {
		return badInput("swarm: --workers must be at least 1")
	}
	cfg := campaign.Config{Options: o, Seeds: shard.Seeds(seeds), Workers: *workers, Progress: stderr}
	if f, ok := stderr.(*os.File); ok && console.IsTerminal(f) {
		cfg.Terminal = true
	}
	if *workers > 1 {
		self, err := os.Executable()
		if err != nil {
			return fmt.Errorf("finding this binary to start workers: %w", err)
		}
		cfg.Worker = append([]string{self, "swarm", "--worker"}, o.Args()...)
	}
	fmt.Fprintf(stderr, "raftsim swarm: %d seeds over %d workers\n", len(cfg.Seeds), min(*workers, len(cfg.Seeds)))
	results, err := campaign.Run(cfg)
	if err != nil {
		return err
	}
	h := swarm.Header{Format: swarm.ResultsFormat, Options: o.String(), Args: o.Args(), Seeds: seeds, Shard: shard}
	return finishSwarm(h, results, *outPath, *reproDir, stdout)
}

// finishSwarm writes the results file and the reproducers, prints the
// report, and gives the exit code.
func finishSwarm(h swarm.Header, results []swarm.Result, outPath, reproDir string, stdout io.Writer) error {
	if outPath != "" {
		var b bytes.Buffer
		if err := swarm.WriteResults(&b, h, results); err != nil {
			return err
		}
		if err := os.WriteFile(outPath, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	for _, r := range results {
		if r.Repro == "" {
			continue
		}
		if err := os.MkdirAll(reproDir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(reproDir, swarm.ReproFile(r.Seed)), []byte(r.Repro), 0o644); err != nil {
			return err
		}
	}
	swarm.Report(stdout, h, results, reproDir)
	if code := swarm.ExitCode(results); code != exitOK {
		return &exitError{code: code}
	}
	return nil
}

func swarmMergeCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("swarm merge", stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: raftsim swarm merge [flags] RESULTS...

Merges the --out files of every shard of a campaign and prints exactly what
the campaign prints when run unsharded; writes the reproducers too.

%s`, fs.FlagUsages())
	}
	reproDir := fs.String("repro-dir", "swarm-repro", "write the reproducers of failing seeds into this directory")
	outPath := fs.String("out", "", "write the merged results to this file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return badInput("swarm merge: want the results files of the shards")
	}
	var headers []swarm.Header
	var results [][]swarm.Result
	for _, path := range fs.Args() {
		f, err := os.Open(path)
		if err != nil {
			return badInput("swarm merge: %v", err)
		}
		h, rs, err := swarm.ReadResults(f, path)
		f.Close()
		if err != nil {
			return badInput("swarm merge: %v", err)
		}
		headers, results = append(headers, h), append(results, rs)
	}
	h, all, err := swarm.Merge(headers, results)
	if err != nil {
		return badInput("swarm %v", err)
	}
	return finishSwarm(h, all, *outPath, *reproDir, stdout)
}
