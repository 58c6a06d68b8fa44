// Command raftsim-gui is raftsim's window: a live, rewindable picture of a
// simulated etcd cluster, drawn with ebiten. It is the only binary that
// links ebiten, which cannot start without a display; the headless
// `raftsim` command execs it for `raftsim` (no arguments) and `raftsim
// play`, passing the arguments through.
//
// Built for js/wasm, the same program is raftsim's web page (`make web`):
// the page's link stands for the command line (see main_js.go), and what
// a browser does differently (fonts, files, the clipboard) is its host.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/raftsim/raftsim/cmd/internal/guiflags"
	// early prints --help, or says there is no display, before ebiten's
	// init can panic.
	_ "github.com/raftsim/raftsim/cmd/raftsim-gui/internal/early"
	// quietx drops xgb's two lines about a missing Xauthority file, before
	// ebiten's init connects to the X server.
	_ "github.com/raftsim/raftsim/cmd/raftsim-gui/internal/quietx"
	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/interrupt"
	"github.com/raftsim/raftsim/render"
	"github.com/raftsim/raftsim/render/present"
	"github.com/raftsim/raftsim/render/ui"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// Exit codes, as for raftsim (SCENARIOS.md).
const (
	exitOK        = 0
	exitFailed    = 1
	exitBadInput  = 2
	exitViolation = 3
)

// host is what the desktop window (main_desktop.go) and the web page
// (main_js.go) do differently.
type host struct {
	// scenario is the scenario a link carries, which `play
	// guiflags.LinkedScenario` opens (the web page).
	scenario []byte
	// noFiles says there is no disk (the web page): play NAME is a
	// built-in lesson.
	noFiles bool
	// fonts loads the window's fonts.
	fonts func(latinOnly bool) (*render.Fonts, error)
	// size, when set, is the window's size, in place of --size.
	size func() (w, h int)
	// save writes a session (s); writeFile an F12 screenshot (nil: a file
	// in --save-dir).
	save      func(s *ui.Session, dir string) (string, error)
	writeFile func(name string, data []byte) (string, error)
	// copyLink makes and copies a link to the moment on screen (u).
	copyLink func(app *ui.App, base string) func(*ui.Session) (string, error)
	// console makes the command box's console.
	console func(dir string) ui.ConsoleFactory
	// profile starts a CPU profile (--cpuprofile) and returns its stop.
	profile func(path string) (stop func(), err error)
	// options, when set, adds to the window's options before it starts:
	// the web page's hooks.
	options func(app *ui.App, opt *render.Options)
}

func run(args []string, stdout, stderr io.Writer, hs host) int {
	// Caught from the start, so that a signal while the window loads its
	// fonts is not lost (see below for what it does).
	sig := interrupt.Catch()
	defer sig.Stop()
	fs, fl := guiflags.New(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		return exitBadInput
	}
	if err := guiflags.CheckStartAt("--start-at", fl.StartAt); err != nil {
		fmt.Fprintln(stderr, "raftsim-gui:", err)
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
		// Side-by-side panes (panes.go): --compare, or a lesson with compare:.
		if vs, ok, err := compareVariants(rest[1], fl, hs); err != nil {
			fmt.Fprintln(stderr, "raftsim-gui:", err)
			return exitBadInput
		} else if ok {
			return playPanes(vs, fl, lang, hs, w, h, sig, stdout, stderr)
		}
		var sc *scenarios.Scenario
		switch {
		case hs.scenario != nil && rest[1] == guiflags.LinkedScenario:
			sc, err = scenarios.Parse("the link's scenario", hs.scenario)
		case hs.noFiles:
			sc, err = scenarios.LoadLesson(rest[1])
		default:
			sc, err = scenarios.Load(rest[1])
		}
		if err == nil {
			lesson, err = present.New(sc, lang.String(), fl.Seed)
		}
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

	fonts, err := hs.fonts(fl.LatinFont)
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
	if hs.size != nil {
		w, h = hs.size()
	}
	app := ui.NewAppFor(sess, ui.Screen{W: w, H: h, Scale: fl.Scale, Lang: lang, Present: fl.Present, M: fonts.Font})
	app.SetTitle(title)
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
	app.Save = func(s *ui.Session) (string, error) { return hs.save(s, fl.SaveDir) }
	app.NewConsole = hs.console(fl.SaveDir)
	if hs.copyLink != nil {
		base := fl.LinkBase
		if base == "" {
			base = os.Getenv("RAFTSIM_WEB_URL")
		}
		if base == "" {
			base = guiflags.DefaultLinkBase
		}
		app.CopyLink = hs.copyLink(app, base)
	}
	opt := render.Options{
		Width: w, Height: h, Scale: fl.Scale, Title: title,
		ScreenshotAt: fl.ShotAt, ScreenshotOut: fl.Out, ShotDir: fl.SaveDir, ShotInput: fl.Inputs, WriteFile: hs.writeFile,
		Frames:  render.Frames{Dir: fl.FramesDir, Every: fl.FramesEvery, From: fl.FramesFrom, To: fl.FramesTo},
		WalkDir: fl.Walk, WalkFrames: fl.WalkFrames, WalkOut: func(s string) { fmt.Fprintln(stdout, s) },
		BenchFrames: fl.Bench, BenchOut: func(s string) { fmt.Fprintln(stdout, s) },
		Monkey: fl.Monkey, MonkeySeed: fl.MonkeySeed, MonkeyOut: func(s string) { fmt.Fprintln(stdout, s) },
	}
	if fl.Report {
		opt.Report = func(s string) { fmt.Fprintln(stdout, s) }
	}
	rd := render.NewRenderer(fonts, title)
	rd.ExtraHelp = []render.HelpSection{render.PresenterHelp(lang)}
	rd.Baseline = fl.BenchBase
	// Ctrl-C or SIGTERM closes the window, as every interrupted command
	// ends (exit 130): a seek far ahead (--start-at, a link's t=) or a
	// long wait in the command box stops at the next instant, a shot due
	// is taken of what is on screen, and the session is kept (interrupted
	// below; raftsim serve --window saves it in the deferred wired.close,
	// as the headless serve does).
	opt.Stop = sig.Done()
	app.S.Stop = sig.Interrupted
	if hs.options != nil {
		hs.options(app, &opt)
	}
	g := render.NewGame(app, rd, opt)
	if fl.StartAt > 0 {
		// The moment a link (or --start-at) names, before the first
		// frame, paused there.
		err := g.PlayTo(sim.Time(fl.StartAt))
		app.Playing = false
		if sig.Interrupted() {
			return interrupted(sig, app, wired == nil, hs, fl.SaveDir, fmt.Sprintf("while it sought %s", fl.StartAt), stderr)
		}
		if err != nil {
			fmt.Fprintln(stderr, "raftsim-gui: --start-at:", err)
			return exitBadInput
		}
	}
	if fl.CPUProfile != "" {
		stop, err := hs.profile(fl.CPUProfile)
		if err != nil {
			fmt.Fprintln(stderr, "raftsim-gui:", err)
			return exitBadInput
		}
		defer stop()
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
	if sig.Interrupted() {
		return interrupted(sig, app, wired == nil, hs, fl.SaveDir, "", stderr)
	}
	return exitOK
}

// interrupted ends a window that SIGINT or SIGTERM closed: it says so,
// and keeps the session (save: as s saves it, if it holds a command; a
// served session is saved by serve's own close), exit 130.
func interrupted(sig *interrupt.Catcher, app *ui.App, save bool, hs host, dir, doing string, stderr io.Writer) int {
	msg := fmt.Sprintf("raftsim-gui: %v at virtual time %s", sig.Err(), app.S.Now())
	if doing != "" {
		msg += " " + doing
	}
	switch {
	case !save:
	case len(app.S.Commands()) == 0 || app.Lesson != nil:
		msg += "; nothing to save (the session has no command of yours)"
	default:
		if name, err := hs.save(app.S, dir); err != nil {
			msg += "; the session could not be saved: " + err.Error()
		} else {
			msg += "; the session is saved in " + name
		}
	}
	fmt.Fprintln(stderr, msg)
	return interrupt.ExitCode
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
			if _, err := s.Do(sim.Command{Kind: sim.CmdPut, Via: via, Req: server.Put("/bench/"+strconv.Itoa(i%20), strconv.Itoa(i))}); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}
