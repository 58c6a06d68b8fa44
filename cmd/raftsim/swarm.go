package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/pflag"

	"github.com/raftsim/raftsim/console"
	"github.com/raftsim/raftsim/interrupt"
	"github.com/raftsim/raftsim/outfile"
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
		// A worker leaves SIGINT and SIGTERM to the campaign, which a
		// Ctrl-C reaches too: the campaign stops it when it stops.
		signal.Ignore(interrupt.Signals...)
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
	if *workers < 1 || *workers > 64 {
		return badInput("swarm: --workers must be between 1 and 64, not %d", *workers)
	}
	h := swarm.Header{Format: swarm.ResultsFormat, Options: o.String(), Args: o.Args(), Seeds: seeds, Shard: shard}
	out, err := openSwarmOutputs("swarm", h, *outPath, *reproDir)
	if err != nil {
		return err
	}
	defer out.close()
	cfg := campaign.Config{Options: o, Seeds: seeds, Shard: shard, Workers: *workers, Progress: stderr}
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
	total := shard.Count(seeds)
	fmt.Fprintf(stderr, "raftsim swarm: %d seeds over %d workers\n", total, min(uint64(*workers), total))
	// Ctrl-C (or SIGTERM) stops the campaign between seeds: the report,
	// the results file and the reproducers hold every seed that finished.
	stop := interrupt.Catch()
	defer stop.Stop()
	cfg.Stop = stop.Done()
	rep := swarm.NewReporter(stdout, h, *reproDir)
	cfg.Result = func(r swarm.Result) error { return out.add(rep, r) }
	outcome, runErr := campaign.Run(cfg)
	return out.finish(rep, runErr, outcome.Stopped, fmt.Sprintf("%d of %d seeds", outcome.Done, outcome.Total), stop)
}

// swarmOutputs are where a campaign (or a merge) writes what it finds, as
// it finds it: the results file, the reproducers and the report.
type swarmOutputs struct {
	cmd           string
	results       *swarm.ResultsWriter
	file          *outfile.File
	outPath       string
	reproDir      string
	madeReproDir  []string // the directories made for the reproducers
	reproducers   int
	failedToWrite error
}

// openSwarmOutputs creates the results file and the reproducer directory
// before any seed runs, so that a path that cannot be written is exit 2
// at once (the reproducer directory was found bad only after every seed
// had run).
func openSwarmOutputs(cmd string, h swarm.Header, outPath, reproDir string) (*swarmOutputs, error) {
	o := &swarmOutputs{cmd: cmd, outPath: outPath, reproDir: reproDir}
	made, err := prepareDir(cmd, "--repro-dir", reproDir, "swarm-seed-*.yaml")
	if err != nil {
		return nil, err
	}
	o.madeReproDir = made
	if outPath != "" {
		f, err := createOutput(cmd, "--out", outPath)
		if err != nil {
			o.close()
			return nil, err
		}
		o.file = f
		if o.results, err = swarm.NewResultsWriter(f, h); err != nil {
			o.close()
			return nil, badInput("%s: --out: writing %s: %v", cmd, outPath, err)
		}
	}
	return o, nil
}

// add writes one seed's result out: its line in the results file, its
// reproducer, its lines of the report. An error stops the campaign; what
// was written before it stays.
func (o *swarmOutputs) add(rep *swarm.Reporter, r swarm.Result) error {
	if o.results != nil {
		if err := o.results.Write(r); err != nil {
			o.failedToWrite = fmt.Errorf("%s: writing the results to %s: %v; the results of the %d seeds before seed %d are in it",
				o.cmd, o.outPath, err, o.results.Written(), r.Seed)
			return o.failedToWrite
		}
	}
	if r.Repro != "" {
		path := filepath.Join(o.reproDir, swarm.ReproFile(r.Seed))
		if err := outfile.WriteFile(path, []byte(r.Repro)); err != nil {
			o.failedToWrite = fmt.Errorf("%s: writing the reproducer of seed %d: %v; the %d written before it are in %s",
				o.cmd, r.Seed, err, o.reproducers, o.reproDir)
			return o.failedToWrite
		}
		o.reproducers++
	}
	rep.Add(r)
	return nil
}

// finish ends the report and gives the exit code: 130 when stopped by a
// signal (done says how far it got), 2 when an output could not be
// written, else the campaign's.
func (o *swarmOutputs) finish(rep *swarm.Reporter, runErr error, stopped bool, done string, stop *interrupt.Catcher) error {
	rep.End()
	closeErr := o.close()
	switch {
	case o.failedToWrite != nil:
		return &exitError{code: exitBadInput, err: o.failedToWrite}
	case runErr != nil:
		return runErr
	case closeErr != nil:
		return &exitError{code: exitBadInput, err: fmt.Errorf("%s: writing the results to %s: %v", o.cmd, o.outPath, closeErr)}
	case stopped:
		sig := interrupt.Name(stop.Signal())
		fmt.Fprintf(rep.Writer(), "interrupted by %s after %s: the totals above are of the seeds that finished", sig, done)
		if o.outPath != "" {
			fmt.Fprintf(rep.Writer(), ", and %s holds their results", o.outPath)
		}
		fmt.Fprintln(rep.Writer())
		return interrupted("%s: interrupted by %s after %s", o.cmd, sig, done)
	}
	if code := rep.ExitCode(); code != exitOK {
		return &exitError{code: code}
	}
	return nil
}

// close writes the results file into place (what was written of it, a
// line a seed, also when the campaign stopped early), and removes the
// reproducer directory if it was made for this campaign and nothing was
// written into it.
func (o *swarmOutputs) close() error {
	var err error
	if o.file != nil {
		err = o.file.Commit()
		o.file = nil
	}
	if o.reproducers == 0 {
		outfile.RemoveEmpty(o.madeReproDir) // only if empty
		o.madeReproDir = nil
	}
	return err
}

func swarmMergeCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("swarm merge", stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: raftsim swarm merge [flags] RESULTS...

Merges the --out files of every shard of a campaign and prints exactly what
the campaign prints when run unsharded; writes the reproducers too. Every
header and line is checked first (the shards, the seeds, the verdicts, the
reproducers), so that nothing is printed or written from files that do not
hold a whole campaign.

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
	if fs.NArg() > swarm.MaxShards {
		return badInput("swarm merge: %d files: a campaign has at most %d shards", fs.NArg(), swarm.MaxShards)
	}
	// The files are read twice: once to check them whole, once to merge.
	var h swarm.Header
	merge := func(emit func(swarm.Result) error) error {
		var readers []*swarm.ResultsReader
		for _, path := range fs.Args() {
			f, err := os.Open(path)
			if err != nil {
				return badInput("swarm merge: %v", err)
			}
			defer f.Close()
			rr, err := swarm.NewResultsReader(f, path)
			if err != nil {
				return badInput("swarm merge: %v", err)
			}
			readers = append(readers, rr)
		}
		var err error
		if h, err = swarm.Merge(readers, emit); err != nil {
			var ee *exitError
			if errors.As(err, &ee) {
				return err
			}
			return badInput("swarm %v", err)
		}
		return nil
	}
	if err := merge(func(swarm.Result) error { return nil }); err != nil {
		return err
	}
	out, err := openSwarmOutputs("swarm merge", h, *outPath, *reproDir)
	if err != nil {
		return err
	}
	defer out.close()
	rep := swarm.NewReporter(stdout, h, *reproDir)
	err = merge(func(r swarm.Result) error { return out.add(rep, r) })
	if out.failedToWrite != nil {
		err = nil // finish reports it
	}
	return out.finish(rep, err, false, "", nil)
}
