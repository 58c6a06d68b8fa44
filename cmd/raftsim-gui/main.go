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

	"github.com/raftsim/raftsim/cmd/internal/guiflags"
	"github.com/raftsim/raftsim/cmd/raftsim-gui/internal/guiconsole"
	// early prints --help, or says there is no display, before ebiten's
	// init can panic.
	_ "github.com/raftsim/raftsim/cmd/raftsim-gui/internal/early"
	// quietx drops xgb's two lines about a missing Xauthority file, before
	// ebiten's init connects to the X server.
	_ "github.com/raftsim/raftsim/cmd/raftsim-gui/internal/quietx"
	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/render"
	"github.com/raftsim/raftsim/render/present"
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

func run(args []string, stdout, stderr io.Writer) int {
	fs, fl := guiflags.New(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		return exitBadInput
	}
	w, h, err := parseSize(fl.Size)
	if err != nil {
		fmt.Fprintln(stderr, "raftsim-gui:", err)
		return exitBadInput
	}
	lang, err := i18n.Choose(fl.Lang, os.Getenv)
	if err != nil {
		fmt.Fprintln(stderr, "raftsim-gui:", err)
		return exitBadInput
	}
	if (fl.ShotAt != 0 || fs.Changed("screenshot-at")) != (fl.Out != "") {
		fmt.Fprintln(stderr, "raftsim-gui: --screenshot-at and --out go together")
		return exitBadInput
	}
	var sess *ui.Session
	var lesson *present.Lesson
	var wired *served // raftsim serve --window (serve.go)
	title := lang.T("sandbox")
	rest := fs.Args()
	picker := len(rest) == 1 && rest[0] == "play"
	switch {
	case len(rest) == 0 || picker:
		cfg := sim.SandboxConfig()
		if fl.Seed != 0 {
			cfg.Seed = fl.Seed
		}
		if fl.Bench > 0 {
			sess, err = benchSession()
			title = "benchmark"
		} else {
			sess, err = ui.NewSession(cfg)
		}
		if err == nil && fl.Caption != "" {
			_, err = sess.Do(sim.Command{Kind: sim.CmdCaption, Caption: "say", Text: fl.Caption})
		}
		var cmds []sim.Command
		for _, a := range fl.Ats {
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
	case rest[0] == "serve" && len(rest) <= 2:
		sess, wired, title, err = serveSession(rest[1:], fl.Seed, fl.Serve, stdout)
	case rest[0] == "play" && len(rest) == 2:
		lesson, err = present.Open(rest[1], lang.String(), fl.Seed)
		if err == nil {
			sess, err = ui.NewSession(sim.SandboxConfig()) // replaced by the lesson below
			title = lesson.Name
		}
	default:
		fmt.Fprintf(stderr, "raftsim-gui: unexpected arguments %q\n\n", strings.Join(rest, " "))
		fs.Usage()
		return exitBadInput
	}
	if err != nil {
		fmt.Fprintln(stderr, "raftsim-gui:", err)
		return exitBadInput
	}

	fonts, err := render.LoadFonts(fl.LatinFont)
	if err != nil {
		fmt.Fprintln(stderr, "raftsim-gui:", err)
		return exitFailed
	}
	if os.Getenv("RAFTSIM_CHECK_MEASURE") == "1" {
		// For a test: does the layout measure text as ebiten draws it?
		n, err := render.CheckMeasure(fonts)
		if err != nil {
			fmt.Fprintln(stderr, "raftsim-gui: measure:", err)
			return exitFailed
		}
		fmt.Fprintf(stdout, "measure: %d texts and sizes agree (font: %s)\n", n, fonts.Name)
		return exitOK
	}
	if fl.FramesDir != "" {
		if err := guiflags.CheckFrames(fl.FramesEvery, fl.FramesFrom, fl.FramesTo); err != nil {
			fmt.Fprintln(stderr, "raftsim-gui: --frames-dir:", err)
			return exitBadInput
		}
	}
	app := ui.NewAppFor(sess, ui.Screen{W: w, H: h, Scale: fl.Scale, Lang: lang, Present: fl.Present, M: fonts.Font})
	app.Title = title
	if lesson != nil {
		if err := app.OpenLesson(lesson); err != nil {
			fmt.Fprintln(stderr, "raftsim-gui:", err)
			return exitBadInput
		}
	}
	if picker {
		app.OpenPicker()
	}
	if fs.Changed("speed") {
		app.SetSpeed(fl.Speed)
	}
	app.Playing = !fl.Paused && fl.Bench == 0
	if wired != nil {
		app.External = func(*ui.Session) { wired.hook(app) }
		app.SetSpeed(fl.Serve.Rate) // virtual time follows the wall at the rate
		defer func() {
			if err := wired.close(app.S, stdout); err != nil {
				fmt.Fprintln(stderr, "raftsim-gui:", err)
			}
		}()
	}
	app.Save = func(s *ui.Session) (string, error) { return saveSession(s, fl.SaveDir) }
	app.NewConsole = guiconsole.Factory(fl.SaveDir)
	opt := render.Options{
		Width: w, Height: h, Scale: fl.Scale, Title: title,
		ScreenshotAt: fl.ShotAt, ScreenshotOut: fl.Out, ShotDir: fl.SaveDir, ShotInput: fl.Inputs,
		Frames:  render.Frames{Dir: fl.FramesDir, Every: fl.FramesEvery, From: fl.FramesFrom, To: fl.FramesTo},
		WalkDir: fl.Walk, WalkOut: func(s string) { fmt.Fprintln(stdout, s) },
		BenchFrames: fl.Bench, BenchOut: func(s string) { fmt.Fprintln(stdout, s) },
		Monkey: fl.Monkey, MonkeySeed: fl.MonkeySeed, MonkeyOut: func(s string) { fmt.Fprintln(stdout, s) },
	}
	rd := render.NewRenderer(fonts, title)
	rd.ExtraHelp = []render.HelpSection{render.PresenterHelp(lang)}
	rd.Baseline = fl.BenchBase
	g := render.NewGame(app, rd, opt)
	if fl.CPUProfile != "" {
		pf, err := os.Create(fl.CPUProfile)
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
	if fl.Out != "" {
		fmt.Fprintf(stdout, "wrote %s at virtual time %s (font: %s)\n", fl.Out, app.S.Now(), fonts.Name)
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
			if _, err := s.Do(sim.Command{Kind: sim.CmdPut, Via: via, Req: sim.Put("/bench/"+strconv.Itoa(i%20), strconv.Itoa(i))}); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}
