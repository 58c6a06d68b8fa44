package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/raftsim/raftsim/interrupt"
	"github.com/raftsim/raftsim/outfile"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

// newFlags returns a flag set that reports errors instead of exiting.
func newFlags(name string, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	return fs
}

// parseFlags parses args; a bad flag is bad input (exit 2), --help is not.
func parseFlags(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return &exitError{code: exitOK}
		}
		return &exitError{code: exitBadInput, err: fmt.Errorf("raftsim %s: %v (see 'raftsim %s --help')", fs.Name(), err, fs.Name())}
	}
	return nil
}

func runCmd(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("run", stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: raftsim run FILE|NAME [flags]\n\nRuns a scenario headless and prints its transcript.\n\n%s", fs.FlagUsages())
	}
	seed := fs.Uint64("seed", 0, "override the scenario's seed")
	tracePath := fs.String("trace", "", "write the JSON Lines trace to this file")
	format := fs.String("format", "text", "transcript format: text or json")
	quiet := fs.BoolP("quiet", "q", false, "print only captions, expectations and the result")
	lang := fs.String("lang", "en", "caption language: en or zh")
	heartbeats := fs.Bool("heartbeats", false, "include heartbeats in the text transcript")
	why := fs.Bool("why", false, "cite raft's own log line (file:line, function, message) under each event it led to, and in the trace's why field")
	linHTML := fs.String("linearizability-html", "", "write porcupine's visualization of the client history to this HTML file")
	compare := fs.StringArray("compare", nil, "KEY=VALUE: run it again with a cluster or network setting changed and say where the runs first differ; twice: four runs (--trace FILE writes FILE.1, FILE.2, ...)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return &exitError{code: exitBadInput, err: fmt.Errorf("run: want exactly one FILE or lesson NAME")}
	}
	if *lang != "en" && *lang != "zh" {
		return badInput("run: --lang must be en or zh, not %q", *lang)
	}
	if *format != "text" && *format != "json" {
		return badInput("run: --format must be text or json, not %q", *format)
	}
	if len(*compare) > 0 || isCompareLesson(fs.Arg(0)) {
		if *format != "text" || *linHTML != "" {
			return badInput("run: --compare writes text transcripts and --trace files; --format json and --linearizability-html are for one run")
		}
		return runCompare(compareRun{arg: fs.Arg(0), settings: *compare, tracePath: *tracePath,
			opts: scenarios.RunOptions{Seed: *seed, SeedSet: fs.Changed("seed"), Lang: *lang, Heartbeats: *heartbeats, Why: *why,
				Quiet: *quiet, ForgetHistory: true}}, stdout)
	}
	s, err := scenarios.Load(fs.Arg(0))
	if err != nil {
		return &exitError{code: exitBadInput, err: err}
	}
	// Every output is created before the first step, so that a path that
	// cannot be written is exit 2 before any work.
	var traceFile, htmlFile *outfile.File
	if *tracePath != "" {
		if traceFile, err = createOutput("run", "--trace", *tracePath); err != nil {
			return err
		}
		defer traceFile.Close()
	}
	if *linHTML != "" {
		if htmlFile, err = createOutput("run", "--linearizability-html", *linHTML); err != nil {
			return err
		}
		defer htmlFile.Close()
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	// A headless run keeps no more of its history than it has yet to
	// write out: the trace goes to a spool file as the run goes.
	opts := scenarios.RunOptions{Seed: *seed, SeedSet: fs.Changed("seed"), Lang: *lang, Heartbeats: *heartbeats, Why: *why, Quiet: *quiet,
		ForgetHistory: true}
	if *format == "text" {
		opts.Transcript = out
	}
	var sp *spool
	if *format == "json" || traceFile != nil {
		if sp, err = newSpool(*tracePath); err != nil {
			return err
		}
		defer sp.remove()
		opts.Trace = sp
	}
	// Ctrl-C (or SIGTERM) stops the run at the next instant; what it did
	// so far is written out as at the end of a run.
	stop := interrupt.Catch()
	defer stop.Stop()
	opts.Stop = stop.Interrupted
	r, err := scenarios.NewRunner(s, opts)
	if err != nil {
		return &exitError{code: exitBadInput, err: err}
	}
	w := r.World()
	if *linHTML != "" {
		w.KeepCheckedHistory() // porcupine's page needs the whole client history
	}
	if *format == "text" {
		fmt.Fprintf(out, "raftsim run %s  seed=%d\n", s.Name, w.Seed())
	}
	st, runErr := r.Run()
	wasInterrupted := st == scenarios.Interrupted
	if sp != nil {
		if err := writeRunTrace(sp, out, traceFile, w, s.Name, *format, *tracePath); err != nil {
			return err
		}
	}
	var lin *sim.Linearizability
	if w.Violation() == nil && !wasInterrupted {
		l := w.CheckLinearizability()
		lin = &l
	}
	if htmlFile != nil {
		if err := writeHTML(htmlFile, lin); err != nil {
			return fmt.Errorf("run: --linearizability-html: %w", err)
		}
	}
	if wasInterrupted {
		return finishInterruptedRun(out, r, *format, stop.Signal())
	}
	return finishRun(out, r, runErr, lin, *format)
}

// writeRunTrace writes the spooled trace: to out, for --format json,
// and to traceFile, for --trace.
func writeRunTrace(sp *spool, out io.Writer, traceFile *outfile.File, w *sim.World, name, format, tracePath string) error {
	// The header names the members the run ended with, so it is
	// written now, before the events spooled.
	if format == "json" {
		if err := sp.writeTo(out, w, name); err != nil {
			return err
		}
	}
	if traceFile != nil {
		return commitTrace(sp, traceFile, w, name, tracePath)
	}
	return nil
}

// finishRun ends a run that came to its end: the summary (text or json)
// and the exit its outcome maps to.
func finishRun(out *bufio.Writer, r *scenarios.Runner, runErr error, lin *sim.Linearizability, format string) error {
	w := r.World()
	if format == "text" {
		fmt.Fprintln(out, r.Summary(lin))
	}
	outcome := runOutcome(runErr, lin, w.Seed(), r.ExpectsNotLinearizable())
	if format == "json" {
		if err := writeSummaryJSON(out, r, lin, outcome); err != nil {
			return err
		}
	}
	out.Flush()
	return outcome
}

// finishInterruptedRun ends a run that a signal stopped: the summary of
// what ran, a line that says it was interrupted, and exit 130.
func finishInterruptedRun(out *bufio.Writer, r *scenarios.Runner, format string, sig os.Signal) error {
	w := r.World()
	why := fmt.Sprintf("interrupted by %s at virtual time %s, before the scenario's end; the client history was not checked", interrupt.Name(sig), w.Now())
	outcome := interrupted("run: interrupted by %s (seed=%d)", interrupt.Name(sig), w.Seed())
	if format == "json" {
		if err := writeSummaryJSON(out, r, nil, outcome); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(out, r.Summary(nil))
		fmt.Fprintln(out, why)
	}
	out.Flush()
	return outcome
}

// runOutcome maps how a run ended to an exit code. A history that is not
// linearizable is a violation, unless the scenario expected exactly that
// (linearizable: false held).
func runOutcome(runErr error, lin *sim.Linearizability, seed uint64, expectedNotLin bool) error {
	var v *sim.Violation
	var ee *scenarios.ExpectError
	var pe *scenarios.Error
	switch {
	case errors.As(runErr, &v):
		return &exitError{code: exitViolation, err: v}
	case errors.As(runErr, &ee):
		return &exitError{code: exitExpect, err: fmt.Errorf("%w\n  seed=%d", ee, seed)}
	case errors.As(runErr, &pe):
		return &exitError{code: exitBadInput, err: pe}
	case runErr != nil:
		return runErr
	case lin != nil && !lin.OK && lin.Result == "NOT linearizable" && !expectedNotLin:
		return &exitError{code: exitViolation, err: fmt.Errorf("safety violation: the client history is not linearizable (seed=%d; write it out with --linearizability-html)", seed)}
	}
	return nil
}

// runSummary is the last line of `run --format json`: how the run ended.
type runSummary struct {
	Summary struct {
		Seed              uint64 `json:"seed"`
		VirtualTimeNS     int64  `json:"virtual_time_ns"`
		Events            int    `json:"events"`
		ExpectationsHeld  int    `json:"expectations_held"`
		ExitCode          int    `json:"exit_code"`
		Error             string `json:"error,omitempty"`
		Linearizability   string `json:"linearizability,omitempty"`
		LinearizabilityAt string `json:"linearizability_detail,omitempty"`
		OperationsChecked int    `json:"operations_checked"`
	} `json:"summary"`
}

func writeSummaryJSON(out io.Writer, r *scenarios.Runner, lin *sim.Linearizability, outcome error) error {
	var s runSummary
	w := r.World()
	s.Summary.Seed, s.Summary.VirtualTimeNS, s.Summary.Events = w.Seed(), int64(w.Now()), w.HistoryLen()
	s.Summary.ExpectationsHeld = r.Held()
	if lin != nil {
		s.Summary.Linearizability, s.Summary.OperationsChecked = lin.Result, lin.Checked
		s.Summary.LinearizabilityAt = lin.Detail
	}
	var ee *exitError
	if errors.As(outcome, &ee) {
		s.Summary.ExitCode = ee.code
		if ee.err != nil {
			s.Summary.Error = ee.err.Error()
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	_, err = out.Write(append(b, '\n'))
	return err
}

// spool holds a run's trace events until the run ends and the header can
// be written, in a temporary file rather than in memory: an hour of
// simulation is gigabytes of trace.
type spool struct {
	f  *os.File
	bw *bufio.Writer
}

// newSpool makes the spool of the trace to be written to path: a file
// beside it (beside the file it names, for a symlink), so that it grows on the disk the trace is going to, not in a
// temporary directory that may be memory (path "": the temporary
// directory, for a trace written to standard output).
func newSpool(path string) (*spool, error) {
	dir := ""
	if path != "" {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		}
		dir = filepath.Dir(path)
	}
	f, err := os.CreateTemp(dir, ".raftsim-trace-*.jsonl")
	if err != nil {
		return nil, err
	}
	return &spool{f: f, bw: bufio.NewWriterSize(f, 1<<20)}, nil
}

func (s *spool) Write(p []byte) (int, error) { return s.bw.Write(p) }

// writeTo writes the trace: its header, then the events spooled.
func (s *spool) writeTo(out io.Writer, w *sim.World, name string) error {
	if err := s.bw.Flush(); err != nil {
		return fmt.Errorf("spooling the trace: %w", err)
	}
	bw := bufio.NewWriterSize(out, 1<<20)
	if err := w.WriteTraceHeader(bw, name); err != nil {
		return err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := io.Copy(bw, s.f); err != nil {
		return err
	}
	return bw.Flush()
}

func (s *spool) remove() {
	s.f.Close()
	os.Remove(s.f.Name())
}

// writeHTML writes porcupine's page of the history to f, opened before
// the run; with no check to show (the run stopped on a violation or was
// interrupted), f is abandoned: nothing is written, and whatever was at
// its path stays as it was.
func writeHTML(f *outfile.File, l *sim.Linearizability) error {
	if l == nil {
		f.Abort()
		return nil
	}
	if err := l.WriteHTML(f); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

func validateCmd(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("validate", stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: raftsim validate FILE...\n\nParses and checks scenarios without running them.\n")
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return &exitError{code: exitBadInput}
	}
	bad := false
	for _, arg := range fs.Args() {
		s, err := scenarios.Load(arg)
		if err != nil {
			bad = true
			fmt.Fprintln(stderr, err)
			continue
		}
		fmt.Fprintf(stdout, "ok  %s (%s, %d steps)\n", arg, s.Name, len(s.Steps))
	}
	if bad {
		return &exitError{code: exitBadInput}
	}
	return nil
}

func lessonsCmd(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("lessons", stderr)
	lang := fs.String("lang", "en", "language of the titles: en or zh")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	lessons, err := scenarios.Lessons()
	if err != nil {
		return err
	}
	width := 0
	for _, l := range lessons {
		width = max(width, len(l.Name))
	}
	for _, l := range lessons {
		fmt.Fprintf(stdout, "%-*s  %s\n", width, l.Name, l.Title.In(*lang))
	}
	fmt.Fprintf(stdout, "\nRun one with 'raftsim run NAME', or watch it with 'raftsim play NAME'.\n")
	return nil
}
