package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/interrupt"
	"github.com/raftsim/raftsim/outfile"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
	"github.com/raftsim/raftsim/trace"
)

// compareRun is what `run --compare` needs of run's flags.
type compareRun struct {
	arg       string
	settings  []string // each --compare's argument
	tracePath string
	opts      scenarios.RunOptions
}

// comparePath is the trace file of run i (1-based) of a comparison:
// the --trace path with the run's number before its extension,
// t.jsonl → t.1.jsonl, t.2.jsonl.
func comparePath(path string, i int) string {
	ext := filepath.Ext(path)
	return fmt.Sprintf("%s.%d%s", strings.TrimSuffix(path, ext), i, ext)
}

// parseSettings reads the --compare flags; an error names the flag and
// the column within its argument.
func parseSettings(cmd string, args []string) ([]scenarios.Setting, error) {
	if len(args) > 2 {
		return nil, badInput("%s: --compare %s: at most two --compare (four runs)", cmd, args[2])
	}
	var out []scenarios.Setting
	for _, a := range args {
		st, err := scenarios.ParseSetting("--compare", a)
		if err != nil {
			return nil, badInput("%s: %v", cmd, err)
		}
		out = append(out, st)
	}
	return out, nil
}

// isCompareLesson reports whether arg loads as a lesson with compare:,
// whose run is its panes' runs.
func isCompareLesson(arg string) bool {
	s, err := scenarios.Load(arg)
	return err == nil && len(s.Panes) > 0
}

// runCompare runs the scenario once as written and once with each setting
// (with two, every combination), one after the other, each exactly as
// `raftsim run` would run the scenario with its settings written in. It
// prints each run's transcript under its label, then where each run
// first differs from the first, computed from their traces.
func runCompare(c compareRun, stdout io.Writer) error {
	settings, err := parseSettings("run", c.settings)
	if err != nil {
		return err
	}
	variants, err := scenarios.LoadCompare(c.arg, settings)
	if err != nil {
		return &exitError{code: exitBadInput, err: err}
	}
	// Every output is created before the first step.
	var files []*outfile.File
	if c.tracePath != "" {
		for i := range variants {
			f, err := createOutput("run", "--trace", comparePath(c.tracePath, i+1))
			if err != nil {
				return err
			}
			defer f.Close()
			files = append(files, f)
		}
	}
	l, _ := i18n.Parse(c.opts.Lang)
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	stop := interrupt.Catch()
	defer stop.Stop()
	var spools []*spool
	defer func() {
		for _, sp := range spools {
			sp.remove()
		}
	}()
	var worst error
	var failures []string
	for i, v := range variants {
		written := ""
		if len(v.Settings) == 0 && !v.Pane {
			written = l.T(" (as written)")
		}
		fmt.Fprintln(out, l.F("=== run %d of %d: %s%s", i+1, len(variants), v.Label, written))
		sp, err := newSpool(c.tracePath)
		if err != nil {
			return err
		}
		spools = append(spools, sp)
		opts := c.opts
		opts.Trace = sp
		opts.Transcript = out
		opts.Stop = stop.Interrupted
		r, err := scenarios.NewRunner(v.Scenario, opts)
		if err != nil {
			return &exitError{code: exitBadInput, err: err}
		}
		w := r.World()
		fmt.Fprintf(out, "raftsim run %s  seed=%d\n", v.Scenario.Name, w.Seed())
		st, runErr := r.Run()
		if files != nil {
			if err := commitTrace(sp, files[i], w, v.Scenario.Name, comparePath(c.tracePath, i+1)); err != nil {
				return err
			}
		}
		if st == scenarios.Interrupted {
			return finishInterruptedRun(out, r, "text", stop.Signal())
		}
		var lin *sim.Linearizability
		if w.Violation() == nil {
			l := w.CheckLinearizability()
			lin = &l
		}
		fmt.Fprintln(out, r.Summary(lin))
		outcome := runOutcome(runErr, lin, w.Seed(), r.ExpectsNotLinearizable())
		if outcome != nil {
			fmt.Fprintln(out, l.F("run %d (%s): %v", i+1, v.Label, outcome))
			failures = append(failures, fmt.Sprintf("run %d (%s): %v", i+1, v.Label, outcome))
			if worst == nil || compareExitRank[codeOf(outcome)] > compareExitRank[codeOf(worst)] {
				worst = outcome
			}
		}
		if err := out.Flush(); err != nil {
			return err
		}
	}
	if err := printDivergences(out, l, variants, spools); err != nil {
		return err
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if worst != nil {
		return &exitError{code: codeOf(worst), err: errors.New(strings.Join(failures, "\n"))}
	}
	return nil
}

// printDivergences prints where each run first differs from the first,
// from their spooled traces.
func printDivergences(out io.Writer, l i18n.Lang, variants []scenarios.Variant, spools []*spool) error {
	for i := 1; i < len(variants); i++ {
		a, err := spools[0].events()
		if err != nil {
			return err
		}
		b, err := spools[i].events()
		if err != nil {
			return err
		}
		d, err := trace.FirstDivergence(a, b)
		if err != nil {
			return fmt.Errorf("run: comparing the traces: %w", err)
		}
		if len(variants) > 2 {
			fmt.Fprint(out, l.F("run %d against run 1: ", i+1))
		}
		fmt.Fprintln(out, d.SentenceIn(l, variants[0].Label, variants[i].Label))
	}
	return nil
}

// compareExitRank orders the exit codes of a comparison's runs: it exits
// as the worst of them.
var compareExitRank = map[int]int{exitOK: 0, exitExpect: 1, exitViolation: 2, exitBadInput: 3}

// codeOf is the exit code of a run's outcome.
func codeOf(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if err != nil {
		return exitBadInput
	}
	return exitOK
}

// commitTrace writes a run's spooled trace to f, which is path, and
// commits it.
func commitTrace(sp *spool, f *outfile.File, w *sim.World, name, path string) error {
	if err := sp.writeTo(f, w, name); err != nil {
		return fmt.Errorf("run: writing the trace to %s: %w", path, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("run: writing the trace to %s: %w", path, err)
	}
	return nil
}

// events flushes the spool and returns a reader of its events from the
// first.
func (s *spool) events() (io.Reader, error) {
	if err := s.bw.Flush(); err != nil {
		return nil, fmt.Errorf("spooling the trace: %w", err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return s.f, nil
}

// checkPlayCompare checks play's --compare flags, with the scenario,
// before the window is looked for: a bad setting is refused with its
// position (exit 2), as run refuses it.
func checkPlayCompare(args []string) error {
	var settings []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--compare" && i+1 < len(args):
			settings = append(settings, args[i+1])
			i++
		case strings.HasPrefix(a, "--compare="):
			settings = append(settings, strings.TrimPrefix(a, "--compare="))
		}
	}
	sts, err := parseSettings("play", settings)
	if err != nil || len(sts) == 0 || len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return err
	}
	// The values, with the scenario: as run checks them.
	if _, err := scenarios.LoadCompare(args[0], sts); err != nil {
		return &exitError{code: exitBadInput, err: err}
	}
	return nil
}

// checkLinkCompare checks link's --compare flags against the scenario or
// lesson, as run would: a link that the page would refuse is not made.
func checkLinkCompare(name string, args []string) error {
	if len(args) == 0 {
		return nil
	}
	settings, err := parseSettings("link", args)
	if err != nil {
		return err
	}
	if _, err := scenarios.LoadCompare(name, settings); err != nil {
		return &exitError{code: exitBadInput, err: err}
	}
	return nil
}

// withCompare adds compare= parameters to a link.
func withCompare(link string, settings []string) string {
	for _, s := range settings {
		link += "&compare=" + url.QueryEscape(s)
	}
	return link
}
