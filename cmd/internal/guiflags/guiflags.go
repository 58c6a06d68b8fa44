// Package guiflags defines the window's command line: the flags of
// raftsim-gui (and of `raftsim play` and `raftsim` with flags, which pass
// them on) and its usage text. It links no ebiten, so that `raftsim play
// --help` prints the window's help on a machine without a display, and so
// that raftsim-gui can print it before ebiten's init runs (see
// cmd/raftsim-gui/internal/early).
package guiflags

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"
)

// Flags are the window's flags, as parsed.
type Flags struct {
	Seed       uint64
	Lang       string
	Scale      float64
	Size       string
	ShotAt     time.Duration
	Out        string
	BenchBase  bool
	Bench      int
	Monkey     int
	MonkeySeed uint64
	Caption    string
	LatinFont  bool
	Speed      float64
	Paused     bool
	Present    bool
	StartAt    time.Duration
	LinkBase   string
	SaveDir    string
	Ats        []string
	Inputs     []string
	CPUProfile string
	// The frames raftsim export --frames and --gif ask for.
	FramesDir                         string
	FramesEvery, FramesFrom, FramesTo time.Duration
	Walk                              string
	WalkFrames                        bool
	Report                            bool
	// Compare are play's --compare KEY=VALUE: side-by-side panes.
	Compare []string
	// raftsim serve --window: the wire's flags (cmd/raftsim's serve).
	Serve Serve
}

// Serve are the flags of `raftsim serve --window` (raftsim-gui serve).
type Serve struct {
	Rate   float64
	TLS    string
	Port   int
	Save   string
	Window bool
}

// Usage is the text above the flags in --help.
const Usage = `raftsim-gui: the raftsim window.

Usage:
  raftsim-gui [flags]                 the default sandbox: etcd-1..5 and a stacked control plane
  raftsim-gui play [flags]            the lesson picker: every built-in lesson, its title and summary
  raftsim-gui play FILE|NAME [flags]  a scenario file or a built-in lesson, in presenter mode
  raftsim-gui serve [FILE|NAME]       raftsim serve --window: etcd's API on loopback, the cluster drawn live

raftsim starts it for 'raftsim' and 'raftsim play', passing these flags on.

Flags:
`

// AtHelp documents --at.
const AtHelp = `schedule an action at a virtual time, e.g. 2s:crash:etcd-2 (repeatable). Actions:
crash:N restart:N stall:N:DUR campaign:N isolate:N transfer:N heal cut:A:B cut1:A:B (one way) restore:A:B
partition:A,B/C,D,E put:VIA:KEY:VALUE get:VIA:KEY get-serializable:VIA:KEY say:TEXT`

// DefaultSpeed is --speed's default as shown in the help; without --speed
// the window paces itself (see render/ui's pacing), and --speed fixes the
// rate.
const DefaultSpeed = 0.1

// DefaultLinkBase is where `raftsim serve-web` serves the page by
// default (weblink.DefaultBase; guiflags keeps its own copy to stay a leaf).
const DefaultLinkBase = "http://127.0.0.1:8080/"

// New returns the window's flag set, writing its errors and usage to
// stderr, and where the parsed values go.
func New(stderr io.Writer) (*pflag.FlagSet, *Flags) {
	f := &Flags{}
	fs := pflag.NewFlagSet("raftsim-gui", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Uint64Var(&f.Seed, "seed", 0, "the seed (default: the scenario's, or 1 for the sandbox)")
	fs.StringVar(&f.Lang, "lang", "", "language of the window and the captions: en or zh (default: the locale's, from LC_ALL, LC_MESSAGES or LANG)")
	fs.Float64Var(&f.Scale, "scale", 1, "scale of text and shapes (1.5 or 2 for a projector)")
	fs.BoolVar(&f.Present, "present", false, "the projector layout: no legend (L shows it), text at least 24 px high at 1080 lines (P toggles)")
	fs.StringVar(&f.Size, "size", "1280x800", "window size WxH")
	fs.DurationVar(&f.ShotAt, "screenshot-at", 0, "play to this virtual time, save --out as PNG and exit")
	fs.StringVar(&f.Out, "out", "", "the PNG written by --screenshot-at")
	fs.BoolVar(&f.BenchBase, "bench-baseline", false, "with --bench-frames: draw only the background, to measure what an empty frame costs")
	fs.IntVar(&f.Bench, "bench-frames", 0, "draw N frames of a 7-member cluster with 300+ messages in flight and report the frame time")
	fs.IntVar(&f.Monkey, "monkey", 0, "feed N random input events and exit (a test)")
	fs.Uint64Var(&f.MonkeySeed, "monkey-seed", 1, "seed of --monkey's events")
	fs.StringVar(&f.Caption, "caption", "", "a caption to show from time 0 (recorded as a say step)")
	fs.BoolVar(&f.LatinFont, "latin-font", false, "use only the embedded Latin font (to see what a missing CJK font looks like)")
	fs.Float64Var(&f.Speed, "speed", DefaultSpeed, "a fixed rate, virtual time per real time (0.001 to 100); without it the rate adapts (f toggles)")
	fs.BoolVar(&f.Paused, "paused", false, "start paused")
	fs.DurationVar(&f.StartAt, "start-at", 0, "open at this virtual time, paused there (a lesson plays through its steps up to it)")
	fs.StringVar(&f.LinkBase, "link-base", "", "the web page that u (copy a link to this moment) links to (default: $RAFTSIM_WEB_URL, else raftsim serve-web's "+DefaultLinkBase+")")
	fs.StringVar(&f.SaveDir, "save-dir", ".", "where s (save session) and F12 (screenshot) write")
	fs.StringArrayVar(&f.Ats, "at", nil, AtHelp)
	fs.StringArrayVar(&f.Inputs, "input", nil, "with --screenshot-at: before the shot, key:K presses a key, click:NAME clicks a member, a client or a message in flight by its type (click:MsgVoteResp-reject opens its why card), type:TEXT types text (into the command box: key:: opens it, key:enter runs the line) (repeatable)")
	fs.StringVar(&f.CPUProfile, "cpuprofile", "", "write a CPU profile (for --bench-frames)")
	fs.StringVar(&f.FramesDir, "frames-dir", "", "save the view as frame-00000.png... in this directory, one every --frames-every of virtual time from --frames-from to --frames-to, and exit (raftsim export --frames)")
	fs.DurationVar(&f.FramesEvery, "frames-every", 100*time.Millisecond, "with --frames-dir: virtual time between frames")
	fs.DurationVar(&f.FramesFrom, "frames-from", 0, "with --frames-dir: the first frame's virtual time")
	fs.DurationVar(&f.FramesTo, "frames-to", 10*time.Second, "with --frames-dir: the last frame's virtual time")
	fs.StringArrayVar(&f.Compare, "compare", nil, "with play NAME|FILE: KEY=VALUE, a cluster or network setting; the window shows the scenario as written and with the setting side by side, in lockstep (twice: four panes)")
	fs.BoolVar(&f.Report, "report", false, "print each key the window reads from the keyboard and each narrative step it shows, one line each (a test)")
	fs.BoolVar(&f.WalkFrames, "walk-frames", false, "with --walk: also save each step's last frame (last-NNN.png) and every frame where something the step names (shows:) changes (change-NNN-K.png)")
	fs.StringVar(&f.Walk, "walk", "", "with play NAME: step through the lesson as a presenter does (the next-step key), save a PNG of the window at every narrative step and at the end into this directory, and exit (a test)")
	fs.Float64Var(&f.Serve.Rate, "rate", 1, "serve: virtual time per wall time (1: real time)")
	fs.StringVar(&f.Serve.TLS, "tls", "", "serve: kubeadm's etcd certificates in this directory, client certificates required")
	fs.IntVar(&f.Serve.Port, "port", 2379, "serve: the first member's port")
	fs.StringVar(&f.Serve.Save, "save", "raftsim-serve.yaml", "serve: where the session is saved when the window closes")
	fs.BoolVar(&f.Serve.Window, "window", true, "serve: (the window is open)")
	fs.Usage = func() { PrintUsage(stderr, fs) }
	return fs, f
}

// PrintUsage writes the usage text and the flags of fs.
func PrintUsage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprint(w, Usage)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// WantsHelp reports whether args ask for help (-h or --help), as the
// flag set reads them: "--caption -h" is a caption, not a request.
func WantsHelp(args []string) bool {
	fs, _ := New(io.Discard)
	return errors.Is(fs.Parse(args), pflag.ErrHelp)
}

// MaxStartAt bounds --start-at, a link's t= and raftsim link --at: the
// longest virtual time a scenario may run (scenarios.MaxRunTime; a test
// in cmd/raftsim checks they agree). The window plays every instant up to
// it, so a later one would not end (100000h ran out of memory).
const MaxStartAt = 1000 * time.Hour

// CheckStartAt refuses a start time past MaxStartAt, naming what asked
// for it.
func CheckStartAt(what string, d time.Duration) error {
	if d > MaxStartAt {
		return fmt.Errorf("%s %s is more than 1000h, the longest virtual time a scenario may run", what, d)
	}
	return nil
}

// MaxFrames bounds the frames that raftsim export --frames and --gif ask
// the window for: each is a PNG of the window drawn on the way (about
// 100 KB and a fraction of a second each), so that --every 1us over a
// long run is refused rather than left to fill the disk.
const MaxFrames = 3000

// CheckFrames refuses frames from from to to, one every every, that are
// not a window of time or are more than MaxFrames.
func CheckFrames(every, from, to time.Duration) error {
	switch {
	case every <= 0:
		return fmt.Errorf("--every must be positive, not %s", every)
	case from < 0 || to < from:
		return fmt.Errorf("--from and --to must be a window of virtual time (from %s to %s)", from, to)
	}
	if n := (to-from)/every + 1; n > MaxFrames {
		return fmt.Errorf("a frame every %s from %s to %s is %d frames; at most %d: take them further apart (--every) or over less time (--from, --to)",
			every, from, to, n, MaxFrames)
	}
	return nil
}
