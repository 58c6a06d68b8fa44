// Command raftsim-gui is raftsim's window: a live, rewindable picture of a
// simulated etcd cluster, drawn with ebiten. It is the only binary that
// links ebiten, which cannot start without a display; the headless
// `raftsim` command execs it for `raftsim` (no arguments) and `raftsim
// play`, passing the arguments through.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/raftsim/raftsim/cmd/raftsim-gui/internal/guiconsole"
	"github.com/raftsim/raftsim/render"
	"github.com/raftsim/raftsim/render/ui"
	"github.com/raftsim/raftsim/sim"
)

// Exit codes, as for raftsim (SCENARIOS.md).
const (
	exitOK        = 0
	exitFailed    = 1
	exitBadInput  = 2
	exitViolation = 3
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `raftsim-gui: the raftsim window.

Usage:
  raftsim-gui [flags]                 the default sandbox: etcd-1..5 and a stacked control plane
  raftsim-gui play FILE|NAME [flags]  a scenario file or a built-in lesson

Flags:
`

func run(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("raftsim-gui", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	seed := fs.Uint64("seed", 0, "the seed (default: the scenario's, or 1 for the sandbox)")
	lang := fs.String("lang", "en", "caption language: en or zh")
	scale := fs.Float64("scale", 1, "scale of text and shapes (1.5 or 2 for a projector)")
	size := fs.String("size", "1280x800", "window size WxH")
	shotAt := fs.Duration("screenshot-at", 0, "play to this virtual time, save --out as PNG and exit")
	out := fs.String("out", "", "the PNG written by --screenshot-at")
	benchBase := fs.Bool("bench-baseline", false, "with --bench-frames: draw only the background, to measure what an empty frame costs")
	bench := fs.Int("bench-frames", 0, "draw N frames of a 7-member cluster with 300+ messages in flight and report the frame time")
	monkey := fs.Int("monkey", 0, "feed N random input events and exit (a test)")
	monkeySeed := fs.Uint64("monkey-seed", 1, "seed of --monkey's events")
	caption := fs.String("caption", "", "a caption to show from time 0 (recorded as a say step)")
	latinFont := fs.Bool("latin-font", false, "use only the embedded Latin font (to see what a missing CJK font looks like)")
	speed := fs.Float64("speed", ui.Speeds[ui.DefaultSpeed], "speed factor, virtual time per real time (0.001 to 100)")
	paused := fs.Bool("paused", false, "start paused")
	saveDir := fs.String("save-dir", ".", "where s (save session) and F12 (screenshot) write")
	ats := fs.StringArray("at", nil, atFlagHelp)
	inputs := fs.StringArray("input", nil, "with --screenshot-at: before the shot, key:K presses a key, click:NAME clicks a member or client, type:TEXT types text (into the command box: key:: opens it, key:enter runs the line) (repeatable)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile (for --bench-frames)")
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		return exitBadInput
	}
	w, h, err := parseSize(*size)
	if err != nil {
		fmt.Fprintln(stderr, "raftsim-gui:", err)
		return exitBadInput
	}
	if *lang != "en" && *lang != "zh" {
		fmt.Fprintf(stderr, "raftsim-gui: --lang must be en or zh, not %q\n", *lang)
		return exitBadInput
	}
	if (*shotAt != 0 || fs.Changed("screenshot-at")) != (*out != "") {
		fmt.Fprintln(stderr, "raftsim-gui: --screenshot-at and --out go together")
		return exitBadInput
	}
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" && isLinux() {
		// Unreachable in practice (ebiten's init has already panicked), but
		// says the right thing if a future ebiten stops panicking.
		fmt.Fprintln(stderr, "raftsim-gui: the window needs a display (DISPLAY is not set); try 'raftsim run NAME'")
		return exitFailed
	}

	var sess *ui.Session
	title := "sandbox"
	rest := fs.Args()
	switch {
	case len(rest) == 0:
		cfg := sim.SandboxConfig()
		if *seed != 0 {
			cfg.Seed = *seed
		}
		if *bench > 0 {
			sess, err = benchSession()
			title = "benchmark"
		} else {
			sess, err = ui.NewSession(cfg)
		}
		if err == nil && *caption != "" {
			_, err = sess.Do(sim.Command{Kind: sim.CmdCaption, Caption: "say", Text: *caption})
		}
		var cmds []sim.Command
		for _, a := range *ats {
			c, perr := parseAt(a)
			if perr != nil {
				fmt.Fprintln(stderr, "raftsim-gui:", perr)
				return exitBadInput
			}
			cmds = append(cmds, c)
		}
		if err == nil {
			err = sess.Schedule(cmds)
		}
	case rest[0] == "play" && len(rest) == 2:
		sess, title, err = playSession(rest[1], *seed, *lang)
	default:
		fmt.Fprintf(stderr, "raftsim-gui: unexpected arguments %q\n\n", strings.Join(rest, " "))
		fs.Usage()
		return exitBadInput
	}
	if err != nil {
		fmt.Fprintln(stderr, "raftsim-gui:", err)
		return exitBadInput
	}

	fonts, err := render.LoadFonts(*scale, *latinFont)
	if err != nil {
		fmt.Fprintln(stderr, "raftsim-gui:", err)
		return exitFailed
	}
	app := ui.NewApp(sess, w, h, *scale)
	app.SetSpeed(*speed)
	app.Playing = !*paused && *bench == 0
	app.Save = func(s *ui.Session) (string, error) { return saveSession(s, *saveDir) }
	app.NewConsole = guiconsole.Factory(*saveDir)
	opt := render.Options{
		Width: w, Height: h, Scale: *scale, Title: title,
		ScreenshotAt: *shotAt, ScreenshotOut: *out, ShotDir: *saveDir, ShotInput: *inputs,
		BenchFrames: *bench, BenchOut: func(s string) { fmt.Fprintln(stdout, s) },
		Monkey: *monkey, MonkeySeed: *monkeySeed, MonkeyOut: func(s string) { fmt.Fprintln(stdout, s) },
	}
	rd := render.NewRenderer(fonts, title)
	rd.Baseline = *benchBase
	g := render.NewGame(app, rd, opt)
	if *cpuProfile != "" {
		pf, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(stderr, "raftsim-gui:", err)
			return exitBadInput
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			fmt.Fprintln(stderr, "raftsim-gui:", err)
			return exitFailed
		}
		defer pprof.StopCPUProfile()
	}
	if err := render.Run(g); err != nil {
		fmt.Fprintln(stderr, "raftsim-gui:", err)
		var v *sim.Violation
		if errors.As(err, &v) {
			return exitViolation
		}
		return exitFailed
	}
	if *out != "" {
		fmt.Fprintf(stdout, "wrote %s at virtual time %s (font: %s)\n", *out, sess.Now(), fonts.Name)
	}
	return exitOK
}

func parseSize(s string) (int, int, error) {
	ws, hs, ok := strings.Cut(s, "x")
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	if !ok || err1 != nil || err2 != nil || w < 320 || h < 240 || w > 8192 || h > 8192 {
		return 0, 0, fmt.Errorf("--size must be WxH, e.g. 1280x800 (at least 320x240), not %q", s)
	}
	return w, h, nil
}

// benchSession is a seven-member cluster on a slow network (1.5-2.5s one
// way), driven until at least 300 messages are in flight: the benchmark's
// worst case for drawing.
func benchSession() (*ui.Session, error) {
	cfg := sim.SandboxConfig()
	cfg.Members = []string{"etcd-1", "etcd-2", "etcd-3", "etcd-4", "etcd-5", "etcd-6", "etcd-7"}
	cfg.Clients, cfg.Apiservers = nil, 0
	cfg.ElectionTicks = 60
	cfg.Network.Latency.Min, cfg.Network.Latency.Max = 1500*time.Millisecond, 2500*time.Millisecond
	s, err := ui.NewSession(cfg)
	if err != nil {
		return nil, err
	}
	for i := 0; i < 2000 && len(s.World().View().InFlight) < 300; i++ {
		if _, err := s.AdvanceTo(s.Now().Add(100 * time.Millisecond)); err != nil {
			return nil, err
		}
		if _, ok := s.World().Leader(); ok {
			via := "apiserver-" + strconv.Itoa(1+i%7)
			if _, err := s.Do(sim.Command{Kind: sim.CmdPut, Via: via, Key: "/bench/" + strconv.Itoa(i%20), Value: strconv.Itoa(i)}); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}
