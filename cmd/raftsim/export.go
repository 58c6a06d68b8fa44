package main

import (
	"bufio"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/raftsim/raftsim/export"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

func exportCmd(args []string, _ io.Reader, stdout, stderr io.Writer) error {
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
	seed := fs.Uint64("seed", 0, "override the scenario's seed")
	lang := fs.String("lang", "en", "caption language: en or zh")
	lamport := fs.String("lamport", "", "write a space-time diagram as SVG to this file")
	from := fs.Duration("from", 0, "--lamport, --frames, --gif: the start, in virtual time")
	to := fs.Duration("to", 0, "--lamport, --frames, --gif: the end (default: the end of the run)")
	heartbeats := fs.Bool("heartbeats", false, "--lamport, --shiviz: include heartbeats and their replies")
	porcupine := fs.String("porcupine", "", "write porcupine's visualization of the client history to this HTML file")
	shiviz := fs.String("shiviz", "", "write a ShiViz log with vector clocks to this file")
	frames := fs.String("frames", "", "write the window's view as PNG frames into this directory (needs raftsim-gui and a display)")
	gif := fs.String("gif", "", "write the window's view as an animated GIF (needs raftsim-gui and a display)")
	every := fs.Duration("every", 100*time.Millisecond, "--frames, --gif: virtual time between frames")
	size := fs.String("size", "1280x800", "--frames, --gif: the window's size WxH")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return badInput("export: want exactly one FILE or lesson NAME")
	}
	if *lamport == "" && *porcupine == "" && *shiviz == "" && *frames == "" && *gif == "" {
		return badInput("export: nothing to write: give --lamport, --porcupine, --shiviz, --frames or --gif")
	}
	if *lang != "en" && *lang != "zh" {
		return badInput("export: --lang must be en or zh, not %q", *lang)
	}
	if *from < 0 || *to < 0 || (*to > 0 && *to < *from) {
		return badInput("export: --from and --to must be a window of virtual time (from %s to %s)", *from, *to)
	}
	if *every <= 0 {
		return badInput("export: --every must be positive, not %s", *every)
	}
	s, err := scenarios.Load(fs.Arg(0))
	if err != nil {
		return &exitError{code: exitBadInput, err: err}
	}
	r, err := scenarios.NewRunner(s, scenarios.RunOptions{Seed: *seed, SeedSet: fs.Changed("seed"), Lang: *lang, Quiet: true})
	if err != nil {
		return &exitError{code: exitBadInput, err: err}
	}
	w := r.World()
	_, runErr := r.Run()
	write := func(path string, f func(io.Writer) error) error {
		out, err := os.Create(path)
		if err != nil {
			return err
		}
		bw := bufio.NewWriter(out)
		if err := f(bw); err != nil {
			out.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := bw.Flush(); err != nil {
			out.Close()
			return err
		}
		if err := out.Close(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", path)
		return nil
	}
	if *lamport != "" {
		opt := export.LamportOptions{From: sim.Time(*from), To: sim.Time(*to), Heartbeats: *heartbeats,
			Title: fmt.Sprintf("raftsim export %s (seed %d)", s.Name, w.Seed())}
		if err := write(*lamport, func(out io.Writer) error { return export.Lamport(out, w, opt) }); err != nil {
			return err
		}
	}
	var lin *sim.Linearizability
	if w.Violation() == nil {
		l := w.CheckLinearizability()
		lin = &l
	}
	if *porcupine != "" {
		if lin == nil {
			return fmt.Errorf("export: no client history to show: the run stopped on a safety violation")
		}
		if err := write(*porcupine, lin.WriteHTML); err != nil {
			return err
		}
	}
	if *shiviz != "" {
		if err := write(*shiviz, func(out io.Writer) error {
			return export.ShiViz(out, w, export.ShiVizOptions{Heartbeats: *heartbeats})
		}); err != nil {
			return err
		}
	}
	if *frames != "" || *gif != "" {
		if err := writeFrames(fs.Arg(0), w, *frames, *gif, *from, *to, *every, *size, *lang, stdout, stderr); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "seed=%d  virtual time %s  %d events\n", w.Seed(), w.Now(), w.HistoryLen())
	return runOutcome(runErr, lin, w.Seed(), r.ExpectsNotLinearizable())
}

// writeFrames has the window draw the run's frames, from --from to --to,
// one every --every (raftsim-gui play NAME --frames-dir), into dir, or into
// a temporary directory for the GIF alone; then it makes the GIF.
func writeFrames(name string, w *sim.World, dir, gifPath string, from, to, every time.Duration, size, lang string,
	stdout, stderr io.Writer) error {
	if to <= 0 || to > time.Duration(w.Now()) {
		to = time.Duration(w.Now())
	}
	framesDir := dir
	if framesDir == "" {
		tmp, err := os.MkdirTemp("", "raftsim-frames")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		framesDir = tmp
	} else if err := os.MkdirAll(framesDir, 0o755); err != nil {
		return err
	}
	args := []string{"play", name, "--seed", strconv.FormatUint(w.Seed(), 10), "--lang", lang, "--size", size,
		"--frames-dir", framesDir, "--frames-every", every.String(), "--frames-from", from.String(), "--frames-to", to.String()}
	if err := startGUI(args, nil, stdout, stderr); err != nil {
		return err
	}
	paths, err := filepath.Glob(filepath.Join(framesDir, "frame-*.png"))
	if err != nil {
		return err
	}
	slices.Sort(paths)
	if dir != "" {
		fmt.Fprintf(stdout, "wrote %d frames in %s, one every %s of virtual time from %s to %s\n", len(paths), dir, every, from, to)
	}
	if gifPath == "" {
		return nil
	}
	var frames []image.Image
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		frames = append(frames, img)
	}
	out, err := os.Create(gifPath)
	if err != nil {
		return err
	}
	if err := export.GIF(out, frames, every); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d frames, one every %s of virtual time, played in real time)\n", gifPath, len(frames), every)
	return nil
}
