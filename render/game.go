package render

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/raftsim/raftsim/outfile"
	"github.com/raftsim/raftsim/render/ui"
	"github.com/raftsim/raftsim/sim"
)

// Options say how the window runs.
type Options struct {
	Width, Height int
	Scale         float64
	Title         string

	// ScreenshotAt, with ScreenshotOut, plays to that virtual time, saves a
	// PNG of the window and exits.
	ScreenshotAt  time.Duration
	ScreenshotOut string
	// ShotInput is fed to the App just before the screenshot: "key:K" presses
	// a key, "click:NAME" clicks a member or client box (to show a menu)
	// or a message in flight by its type ("click:MsgVoteResp-reject" opens
	// the newest rejected vote's why card),
	// "type:TEXT" types text (into the command box, which key:: opens and
	// key:enter runs).
	ShotInput []string
	// ShotDir is where F12 screenshots and saved sessions go.
	ShotDir string
	// WriteFile, when set, writes an F12 screenshot in place of a file in
	// ShotDir (the web page makes it a download) and says where it went.
	WriteFile func(name string, data []byte) (string, error)
	// Stop, when closed, ends the window as closing it does (raftsim
	// serve --window at SIGINT or SIGTERM: its session is then saved).
	Stop <-chan struct{}

	// BeforeUpdate, when set, runs at the start of every Update, on the
	// game's goroutine (the web page answers its hooks there); AfterDraw
	// after every Draw.
	BeforeUpdate func()
	AfterDraw    func()
	// Frames, with a Dir, saves the view at even steps of virtual time and
	// exits (frames.go).
	Frames Frames
	// WalkDir, for a lesson, steps through it as a presenter does (the
	// next-step key, again and again), writes a PNG of the window at each
	// narrative step (step-001.png, ...) and at the end (end.png) into
	// WalkDir, and exits.
	WalkDir string
	WalkOut func(string)
	// WalkFrames also saves each step's last frame and every frame where
	// something the step names changes (walkframes.go).
	WalkFrames bool
	// Report, if set, is told each key read from the keyboard with the
	// step the caption area shows before and after it ("key pagedown 4 say
	// -> 5 pause"), and each change of that step as time plays ("play 6
	// say"): what a test driving the window with real key events watches.
	Report func(string)

	// BenchFrames draws that many frames as fast as possible and reports
	// the frame time to BenchOut.
	BenchFrames int
	BenchOut    func(string)

	// Monkey feeds that many random input events (seeded by MonkeySeed),
	// MonkeyPerTick a tick, then exits; a safety violation is an error.
	Monkey        int
	MonkeySeed    uint64
	MonkeyPerTick int
	MonkeyOut     func(string)
}

// Game is the ebiten.Game: thin, as in the ebiten examples. The App holds
// the state and rules; the Renderer paints it.
type Game struct {
	App *ui.App
	R   *Renderer
	opt Options
	in  inputReader

	canvas  *ebiten.Image
	shotDue bool
	err     error

	benchLeft  int
	benchStart time.Time
	benchTimes []time.Duration
	benchLast  time.Time
	benchDraw  []time.Duration // time spent in Renderer.Draw (the CPU side)
	benchCPU   int64           // the process's CPU time when the first timed frame began

	monkey     *rand.Rand
	monkeyLeft int

	reported string // the step Report was last told of (shows)
}

// NewGame makes a Game around an App.
func NewGame(a *ui.App, r *Renderer, opt Options) *Game {
	g := &Game{App: a, R: r, opt: opt, benchLeft: opt.BenchFrames, monkeyLeft: opt.Monkey}
	if opt.ScreenshotOut != "" {
		g.shotDue = true
	}
	if opt.Monkey > 0 {
		g.monkey = rand.New(rand.NewPCG(opt.MonkeySeed, 0x6d6f6e6b6579))
		if g.opt.MonkeyPerTick <= 0 {
			g.opt.MonkeyPerTick = 25
		}
	}
	a.Screenshot = g.saveShot
	return g
}

// Err returns what ended the game, if it was an error.
func (g *Game) Err() error { return g.err }

var errDone = ebiten.Termination

// Update runs one tick: input, then the App. It never reads the wall
// clock for the simulation (the benchmark times frames, nothing else).
func (g *Game) Update() error {
	select {
	case <-g.opt.Stop:
		return errDone
	default:
	}
	if g.opt.BeforeUpdate != nil {
		g.opt.BeforeUpdate()
	}
	if g.shotDue {
		return g.screenshotAndExit()
	}
	if g.opt.Frames.Dir != "" {
		return g.framesAndExit()
	}
	if g.opt.WalkDir != "" {
		return g.walk()
	}
	if g.monkey != nil {
		return g.monkeyTick()
	}
	if g.opt.Report != nil {
		// A key let go: a test holds a key until the window has read it,
		// and presses the next once the window has seen it let go (ebiten
		// sees the keys once a frame: a release and a press between two
		// frames are no press at all).
		for _, k := range inpututil.AppendJustReleasedKeys(nil) {
			g.opt.Report("up " + k.String())
		}
	}
	for _, ev := range g.in.read(g.App.Box.Open) {
		if ev.Kind != ui.KeyPress || g.opt.Report == nil {
			g.App.Handle(ev)
			continue
		}
		before := g.shows()
		g.App.Handle(ev)
		g.reported = g.shows()
		g.opt.Report("key " + ev.Key + " " + before + " -> " + g.reported)
	}
	g.App.Update()
	if g.opt.Report != nil {
		if now := g.shows(); now != g.reported {
			g.reported = now
			g.opt.Report("play " + now)
		}
	}
	return nil
}

// shows says what the caption area shows, for Options.Report: "5 pause".
func (g *Game) shows() string {
	n := g.App.Narration()
	return fmt.Sprintf("%d %s", n.Step, n.Kind)
}

// screenshotAndExit plays to the screenshot time, draws one frame into an
// offscreen image of the window's size, saves it and ends the game.
func (g *Game) screenshotAndExit() error {
	if err := g.PlayTo(sim.Time(g.opt.ScreenshotAt)); err != nil {
		g.err = err
		return errDone
	}
	for _, in := range g.opt.ShotInput {
		kind, arg, _ := strings.Cut(in, ":")
		switch kind {
		case "key":
			g.App.Handle(ui.Key(arg, false))
		case "type":
			g.App.Handle(ui.Type(arg))
		case "click":
			f := ui.BuildFrame(g.App)
			p, ok := f.Where(arg)
			if !ok {
				g.err = fmt.Errorf("--input %s: nothing named %q on screen", in, arg)
				return errDone
			}
			for _, ev := range ui.Click(p, false) {
				g.App.Handle(ev)
			}
		default:
			g.err = fmt.Errorf("--input %q: want key:K, click:NAME or type:TEXT", in)
			return errDone
		}
	}
	if _, err := g.writePNG(g.opt.ScreenshotOut); err != nil {
		g.err = err
	}
	return errDone
}

// frameImage draws the App into an offscreen image of the layout's size.
func (g *Game) frameImage() *ebiten.Image {
	w, h := int(g.App.L.W), int(g.App.L.H)
	if g.canvas == nil || g.canvas.Bounds().Dx() != w || g.canvas.Bounds().Dy() != h {
		g.canvas = ebiten.NewImage(w, h)
	}
	// Not cleared: Draw paints every pixel, and keeps those of the
	// panels drawn alike in the last frame drawn there (record.go).
	g.R.Draw(g.canvas, g.App)
	return g.canvas
}

func (g *Game) writePNG(path string) (string, error) {
	img := g.frameImage()
	b := img.Bounds()
	rgba := image.NewRGBA(b)
	img.ReadPixels(rgba.Pix)
	if g.opt.WriteFile != nil {
		var buf bytes.Buffer
		if err := png.Encode(&buf, rgba); err != nil {
			return "", err
		}
		return g.opt.WriteFile(filepath.Base(path), buf.Bytes())
	}
	if dir := filepath.Dir(path); dir != "" {
		if _, err := outfile.Dir(dir); err != nil {
			return "", err
		}
	}
	// A frame or a screenshot replaces only a regular file, through a
	// temporary file beside it (package outfile).
	f, err := outfile.Create(path)
	if err != nil {
		return "", err
	}
	defer f.Abort()
	// The fastest compression: a lesson walk writes hundreds of these.
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(f, rgba); err != nil {
		return "", err
	}
	return path, f.Commit()
}

// saveShot is F12: a PNG named after the virtual time.
func (g *Game) saveShot() (string, error) {
	name := fmt.Sprintf("raftsim-%s-t%dms.png", g.App.S.Config().Members[0], g.App.S.Now().Duration().Milliseconds())
	return g.writePNG(filepath.Join(g.opt.ShotDir, name))
}

// monkeyTick feeds a batch of random input events and checks the world.
func (g *Game) monkeyTick() error {
	n := min(g.opt.MonkeyPerTick, g.monkeyLeft)
	for range n {
		g.App.Handle(ui.RandomInput(g.monkey, g.App))
	}
	g.monkeyLeft -= n
	g.App.Update()
	if v := g.App.S.World().Violation(); v != nil {
		g.err = v
		return errDone
	}
	if g.monkeyLeft <= 0 {
		if g.opt.MonkeyOut != nil {
			g.opt.MonkeyOut(fmt.Sprintf("monkey: %d events, seed %d, virtual time %s, %d commands, %d undo entries, no violation",
				g.opt.Monkey, g.opt.MonkeySeed, g.App.S.Now(), len(g.App.S.Commands()), g.App.S.UndoDepth()))
		}
		return errDone
	}
	return nil
}

// Draw paints the App. It changes no state. In benchmark mode it also
// counts frames and reports their times.
func (g *Game) Draw(screen *ebiten.Image) {
	if g.opt.BenchFrames > 0 {
		g.benchFrame()
		t0 := time.Now()
		g.R.Draw(screen, g.App)
		g.benchDraw = append(g.benchDraw, time.Since(t0))
		return
	}
	g.R.Draw(screen, g.App)
	if g.opt.AfterDraw != nil {
		g.opt.AfterDraw()
	}
}

// benchFrame records the time between Draws; when enough frames are in,
// it reports them (and Layout ends the run).
func (g *Game) benchFrame() {
	now := time.Now()
	if !g.benchLast.IsZero() {
		g.benchTimes = append(g.benchTimes, now.Sub(g.benchLast))
	} else {
		g.benchCPU = processCPU()
	}
	g.benchLast = now
	if len(g.benchTimes) == g.opt.BenchFrames && g.opt.BenchOut != nil {
		ts := slices.Clone(g.benchTimes)
		slices.Sort(ts)
		var sum time.Duration
		for _, t := range ts {
			sum += t
		}
		var draw time.Duration
		for _, t := range g.benchDraw {
			draw += t
		}
		v := g.App.S.World().View()
		what := "frames"
		if g.R.Baseline {
			what = "empty frames (baseline)"
		}
		// The process's CPU time a frame, all threads (software GL's
		// rasterizers too): unlike the frame time, a shared machine's
		// other work does not inflate it.
		cpu := time.Duration(processCPU()-g.benchCPU) / time.Duration(len(ts))
		g.opt.BenchOut(fmt.Sprintf("bench: %d %s at %dx%d, %d members, %d messages in flight: frame time mean %.1f ms, median %.1f, p90 %.1f; Draw call (CPU) mean %.1f ms; process CPU a frame %.1f ms",
			len(ts), what, int(g.App.L.W), int(g.App.L.H), len(v.Members), len(v.InFlight),
			ms(sum/time.Duration(len(ts))), ms(ts[len(ts)/2]), ms(ts[len(ts)*9/10]), ms(draw/time.Duration(len(g.benchDraw))), ms(cpu)))
		g.benchLeft = -1
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Layout keeps the App laid out for the window.
func (g *Game) Layout(w, h int) (int, int) {
	if g.opt.ScreenshotOut != "" || g.opt.Frames.Dir != "" {
		return int(g.App.L.W), int(g.App.L.H)
	}
	g.App.Resize(w, h)
	return w, h
}

// BenchDone reports whether the benchmark has reported.
func (g *Game) BenchDone() bool { return g.benchLeft < 0 }

// Run opens the window and runs the game until it is closed (or a
// screenshot, benchmark or monkey run ends it).
func Run(g *Game) error {
	ebiten.SetWindowTitle("raftsim — " + g.opt.Title)
	ebiten.SetWindowSize(g.opt.Width, g.opt.Height)
	ebiten.SetWindowResizingMode(ebiten.WindowResizingModeEnabled)
	ebiten.SetTPS(ui.TPS)
	if g.opt.BenchFrames > 0 {
		ebiten.SetVsyncEnabled(false)
	}
	// Draw paints every pixel (it starts with a Fill), so ebiten need not
	// clear the screen first: one full-screen pass fewer on software GL.
	ebiten.SetScreenClearedEveryFrame(false)
	err := ebiten.RunGame(&benchStopper{g})
	if err != nil && !errors.Is(err, ebiten.Termination) {
		return err
	}
	return g.err
}

// benchStopper ends the game after the benchmark reported.
type benchStopper struct{ *Game }

func (b *benchStopper) Update() error {
	if b.BenchDone() {
		return errDone
	}
	return b.Game.Update()
}
