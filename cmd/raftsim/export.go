package main

import (
	"bufio"
	"fmt"
	"image"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/raftsim/raftsim/cmd/internal/guiflags"
	"github.com/raftsim/raftsim/export"
	"github.com/raftsim/raftsim/interrupt"
	"github.com/raftsim/raftsim/outfile"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

// exportFlags are raftsim export's flags, as parsed.
type exportFlags struct {
	seed                                          *uint64
	lang, lamport, porcupine, shiviz, frames, gif *string
	from, to, every                               *time.Duration
	heartbeats                                    *bool
	size                                          *string
}

// newExportFlags defines raftsim export's flags and its usage.
func newExportFlags(stderr io.Writer) (*pflag.FlagSet, *exportFlags) {
	fs := newFlags("export", stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: raftsim export FILE|NAME [flags]

Runs a scenario or a lesson headless, as raftsim run does, and writes what
the flags ask for:

  --lamport out.svg     a space-time diagram: a line per member and client, time
                        running down, messages as arrows coloured by type, drops
                        crossed out, leader terms shaded, captions at their time
  --porcupine out.html  porcupine's visualization of the client history (the
                        same page as raftsim run --linearizability-html)
  --shiviz out.log      a log with vector clocks for ShiViz; paste this regular
                        expression into its "log parsing" box:
                          %s
  --frames DIR          the window's view as PNG images, one every --every of
  --gif out.gif         virtual time, or as an animated GIF. These two need the
                        window's binary (raftsim-gui, beside raftsim) and a display:
                        without one, run under a virtual display, for example
                        xvfb-run -a raftsim export split-brain --gif split-brain.gif

%s`, export.ShiVizRegex, fs.FlagUsages())
	}
	var o exportFlags
	o.seed = fs.Uint64("seed", 0, "override the scenario's seed")
	o.lang = fs.String("lang", "en", "caption language: en or zh")
	o.lamport = fs.String("lamport", "", "write a space-time diagram as SVG to this file")
	o.from = fs.Duration("from", 0, "--lamport, --frames, --gif: the start, in virtual time")
	o.to = fs.Duration("to", 0, "--lamport, --frames, --gif: the end (default: the end of the run)")
	o.heartbeats = fs.Bool("heartbeats", false, "--lamport, --shiviz: include heartbeats and their replies")
	o.porcupine = fs.String("porcupine", "", "write porcupine's visualization of the client history to this HTML file")
	o.shiviz = fs.String("shiviz", "", "write a ShiViz log with vector clocks to this file")
	o.frames = fs.String("frames", "", "write the window's view as PNG frames into this directory (needs raftsim-gui and a display)")
	o.gif = fs.String("gif", "", "write the window's view as an animated GIF (needs raftsim-gui and a display)")
	o.every = fs.Duration("every", 100*time.Millisecond, "--frames, --gif: virtual time between frames")
	o.size = fs.String("size", "1280x800", "--frames, --gif: the window's size WxH")
	return fs, &o
}

// wantFrames reports whether the flags ask for the window's view.
func (o *exportFlags) wantFrames() bool { return *o.frames != "" || *o.gif != "" }

// check refuses flags that ask for nothing, or for what cannot be.
func (o *exportFlags) check() error {
	if *o.lamport == "" && *o.porcupine == "" && *o.shiviz == "" && *o.frames == "" && *o.gif == "" {
		return badInput("export: nothing to write: give --lamport, --porcupine, --shiviz, --frames or --gif")
	}
	if *o.lang != "en" && *o.lang != "zh" {
		return badInput("export: --lang must be en or zh, not %q", *o.lang)
	}
	if *o.from < 0 || *o.to < 0 || (*o.to > 0 && *o.to < *o.from) {
		return badInput("export: --from and --to must be a window of virtual time (from %s to %s)", *o.from, *o.to)
	}
	if *o.every <= 0 {
		return badInput("export: --every must be positive, not %s", *o.every)
	}
	if o.wantFrames() && *o.to > 0 {
		if err := guiflags.CheckFrames(*o.every, *o.from, *o.to); err != nil {
			return badInput("export: %v", err)
		}
	}
	return nil
}

func exportCmd(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs, o := newExportFlags(stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return badInput("export: want exactly one FILE or lesson NAME")
	}
	if err := o.check(); err != nil {
		return err
	}
	s, err := scenarios.Load(fs.Arg(0))
	if err != nil {
		return &exitError{code: exitBadInput, err: err}
	}
	// Every output is created before the run, so that a path that cannot
	// be written is exit 2 before any work.
	outs := map[string]*outfile.File{}
	for _, f := range []struct{ flag, path string }{{"--lamport", *o.lamport}, {"--porcupine", *o.porcupine}, {"--shiviz", *o.shiviz}, {"--gif", *o.gif}} {
		if f.path == "" {
			continue
		}
		out, err := createOutput("export", f.flag, f.path)
		if err != nil {
			return err
		}
		defer out.Close()
		outs[f.flag] = out
	}
	// Abandoning an output removes only its temporary file: the path is
	// left as it was.
	removeOutputs := func() {
		for _, f := range outs {
			f.Abort()
		}
	}
	if *o.frames != "" {
		made, err := prepareDir("export", "--frames", *o.frames, "frame-*.png")
		if err != nil {
			removeOutputs()
			return err
		}
		defer outfile.RemoveEmpty(made) // only if nothing was written in it
	}
	if o.wantFrames() {
		// The frames need the window: without one, say so before the run.
		if _, err := findWindow([]string{"play", fs.Arg(0)}); err != nil {
			removeOutputs()
			return err
		}
	}
	// The exports draw from the whole history, which the run keeps: a run
	// longer than MaxExportEvents is stopped there and refused. Ctrl-C
	// stops it too; what ran is exported.
	stop := interrupt.Catch()
	defer stop.Stop()
	var r *scenarios.Runner
	tooLong := func() bool { return r.World().HistoryLen() > MaxExportEvents }
	r, err = scenarios.NewRunner(s, scenarios.RunOptions{Seed: *o.seed, SeedSet: fs.Changed("seed"), Lang: *o.lang, Quiet: true,
		Stop: func() bool { return stop.Interrupted() || tooLong() }})
	if err != nil {
		return &exitError{code: exitBadInput, err: err}
	}
	w := r.World()
	st, runErr := r.Run()
	if st == scenarios.Interrupted && !stop.Interrupted() {
		removeOutputs()
		return badInput("export: the run of %s has more than %d events by %s of virtual time, more than an export holds; export a shorter scenario", fs.Arg(0), MaxExportEvents, w.Now())
	}
	stopped := stop.Interrupted()
	lin, err := writeHistoryExports(o, s.Name, w, outs, stopped, stdout)
	if err != nil {
		return err
	}
	if o.wantFrames() && !stopped {
		var err error
		stopped, err = writeFrames(fs.Arg(0), w, *o.frames, outs["--gif"], *o.from, *o.to, *o.every, *o.size, *o.lang, stdout, stderr, stop)
		if err != nil {
			return err
		}
	} else if outs["--gif"] != nil {
		outs["--gif"].Abort()
		fmt.Fprintf(stdout, "not written: %s (the run was interrupted)\n", *o.gif)
	}
	fmt.Fprintf(stdout, "seed=%d  virtual time %s  %d events\n", w.Seed(), w.Now(), w.HistoryLen())
	if stopped {
		sig := interrupt.Name(stop.Signal())
		fmt.Fprintf(stdout, "interrupted by %s at virtual time %s: what is written is of the run up to there\n", sig, w.Now())
		return interrupted("export: interrupted by %s (seed=%d)", sig, w.Seed())
	}
	return runOutcome(runErr, lin, w.Seed(), r.ExpectsNotLinearizable())
}

// writeHistoryExports writes what is drawn from the run's history, each
// to its output in outs: the diagram, porcupine's page and the ShiViz
// log. It answers the history's check, nil when the run stopped on a
// safety violation or was interrupted (stopped), when there is no page.
func writeHistoryExports(o *exportFlags, name string, w *sim.World, outs map[string]*outfile.File, stopped bool, stdout io.Writer) (*sim.Linearizability, error) {
	if *o.lamport != "" {
		opt := export.LamportOptions{From: sim.Time(*o.from), To: sim.Time(*o.to), Heartbeats: *o.heartbeats,
			Title: fmt.Sprintf("raftsim export %s (seed %d)", name, w.Seed())}
		if err := writeExport(outs["--lamport"], "--lamport", stdout, func(out io.Writer) error { return export.Lamport(out, w, opt) }); err != nil {
			return nil, err
		}
	}
	var lin *sim.Linearizability
	if w.Violation() == nil && !stopped {
		l := w.CheckLinearizability()
		lin = &l
	}
	if *o.porcupine != "" {
		if lin == nil {
			outs["--porcupine"].Abort()
			why := "the run stopped on a safety violation"
			if stopped {
				why = "the run was interrupted"
			}
			if !stopped {
				return nil, fmt.Errorf("export: no client history to show: %s", why)
			}
			fmt.Fprintf(stdout, "not written: %s (%s)\n", *o.porcupine, why)
		} else if err := writeExport(outs["--porcupine"], "--porcupine", stdout, lin.WriteHTML); err != nil {
			return nil, err
		}
	}
	if *o.shiviz != "" {
		if err := writeExport(outs["--shiviz"], "--shiviz", stdout, func(out io.Writer) error {
			return export.ShiViz(out, w, export.ShiVizOptions{Heartbeats: *o.heartbeats})
		}); err != nil {
			return nil, err
		}
	}
	return lin, nil
}

// writeExport writes f's output to out, the output of flag, and commits
// it; an output that f fails to write whole is abandoned, as a part of a
// diagram, or of a log, misleads.
func writeExport(out *outfile.File, flag string, stdout io.Writer, f func(io.Writer) error) error {
	bw := bufio.NewWriter(out)
	if err := f(bw); err != nil {
		out.Abort() // a part of a diagram, or of a log, misleads
		return fmt.Errorf("export: %s %s: %w", flag, out.Name(), err)
	}
	if err := bw.Flush(); err != nil {
		out.Abort()
		return fmt.Errorf("export: %s %s: %w", flag, out.Name(), err)
	}
	if err := out.Commit(); err != nil {
		return fmt.Errorf("export: %s %s: %w", flag, out.Name(), err)
	}
	fmt.Fprintf(stdout, "wrote %s\n", out.Name())
	return nil
}

// MaxExportEvents bounds the history an export keeps: every event of the
// run, for the diagram, the log and the history's check (a few hundred
// bytes each).
const MaxExportEvents = 2_000_000

// writeFrames has the window draw the run's frames, from --from to --to,
// one every --every (raftsim-gui play NAME --frames-dir), into dir, or into
// a temporary directory for the GIF alone; then it makes the GIF, reading
// the frames one at a time. A signal stops the window; the frames it drew
// stay, and the GIF is made of them (stopped true).
func writeFrames(name string, w *sim.World, dir string, gifOut *outfile.File, from, to, every time.Duration, size, lang string,
	stdout, stderr io.Writer, stop *interrupt.Catcher) (stopped bool, err error) {
	if to <= 0 || to > time.Duration(w.Now()) {
		to = time.Duration(w.Now())
	}
	if err := guiflags.CheckFrames(every, from, to); err != nil {
		return false, badInput("export: %v", err)
	}
	framesDir := dir
	if framesDir == "" {
		tmp, err := os.MkdirTemp("", "raftsim-frames")
		if err != nil {
			return false, err
		}
		defer os.RemoveAll(tmp)
		framesDir = tmp
	}
	args := []string{"play", name, "--seed", strconv.FormatUint(w.Seed(), 10), "--lang", lang, "--size", size,
		"--frames-dir", framesDir, "--frames-every", every.String(), "--frames-from", from.String(), "--frames-to", to.String()}
	guiErr := runGUIUntil(args, stdout, stderr, stop)
	stopped = stop.Interrupted()
	if guiErr != nil && !stopped {
		return false, guiErr
	}
	paths, err := filepath.Glob(filepath.Join(framesDir, "frame-*.png"))
	if err != nil {
		return stopped, err
	}
	slices.Sort(paths)
	if stopped && len(paths) > 0 {
		// The frame being written when the window was stopped may be cut.
		if _, err := export.ReadPNG(paths[len(paths)-1]); err != nil {
			os.Remove(paths[len(paths)-1])
			paths = paths[:len(paths)-1]
		}
	}
	if dir != "" {
		fmt.Fprintf(stdout, "wrote %d frames in %s, one every %s of virtual time from %s to %s\n", len(paths), dir, every, from, to)
	}
	if gifOut == nil {
		return stopped, nil
	}
	if len(paths) == 0 {
		gifOut.Abort()
		fmt.Fprintf(stdout, "not written: %s (no frame was drawn)\n", gifOut.Name())
		return stopped, nil
	}
	if err := export.StreamGIF(gifOut, len(paths), func(i int) (image.Image, error) { return export.ReadPNG(paths[i]) }, every); err != nil {
		return stopped, fmt.Errorf("export: --gif %s: %w", gifOut.Name(), err)
	}
	if err := gifOut.Commit(); err != nil {
		return stopped, fmt.Errorf("export: --gif %s: %w", gifOut.Name(), err)
	}
	fmt.Fprintf(stdout, "wrote %s (%d frames, one every %s of virtual time, played in real time)\n", gifOut.Name(), len(paths), every)
	return stopped, nil
}
