package guitest

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/raftsim/raftsim/export"
	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/render/present"
	"github.com/raftsim/raftsim/render/ui"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// bins builds raftsim and raftsim-gui side by side, once.
func bins(t *testing.T) string {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		if os.Getenv("RAFTSIM_REQUIRE_GUI") == "1" {
			t.Fatal("RAFTSIM_REQUIRE_GUI=1 but there is no DISPLAY: run under xvfb-run (make test does)")
		}
		t.Skip("no DISPLAY: the window tests need one (make test runs them under xvfb-run)")
	}
	buildOnce.Do(func() {
		// RAFTSIM_GUITEST_BINS: binaries built elsewhere, to hold another
		// version (an old main) to the tests.
		if d := os.Getenv("RAFTSIM_GUITEST_BINS"); d != "" {
			binDir = d
			return
		}
		binDir, buildErr = os.MkdirTemp("", "raftsim-guitest")
		if buildErr != nil {
			return
		}
		for _, pkg := range []string{"raftsim", "raftsim-gui"} {
			out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, pkg), "github.com/raftsim/raftsim/cmd/"+pkg).CombinedOutput()
			if err != nil {
				buildErr = fmt.Errorf("building %s: %v\n%s", pkg, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

// runGUI runs raftsim-gui with args and returns its stdout.
func runGUI(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(bins(t), "raftsim-gui"), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("raftsim-gui %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

// shot takes a screenshot at a virtual time and returns it.
func shot(t *testing.T, at string, args ...string) *image.RGBA {
	t.Helper()
	out := filepath.Join(t.TempDir(), "shot.png")
	runGUI(t, append([]string{"--screenshot-at", at, "--out", out, "--paused"}, args...)...)
	return readPNG(t, out)
}

func readPNG(t *testing.T, path string) *image.RGBA {
	t.Helper()
	rgba, err := export.ReadPNG(path)
	if err != nil {
		t.Fatal(err)
	}
	return rgba
}

// near reports whether two colours are within tol on every channel.
func near(a, b color.RGBA, tol int) bool {
	d := func(x, y uint8) bool { v := int(x) - int(y); return v <= tol && v >= -tol }
	return d(a.R, b.R) && d(a.G, b.G) && d(a.B, b.B)
}

func at(img *image.RGBA, p ui.Point) color.RGBA { return img.RGBAAt(int(p.X), int(p.Y)) }

// layoutOf returns how the window (1280×800, scale 1) lays out a cluster
// built from cfg in a language: the same layout, measured in the same
// font.
func layoutOf(cfg sim.Config, lang i18n.Lang) ui.Layout {
	return ui.Lay(ui.Screen{W: 1280, H: 800, Scale: 1, Lang: lang, Cluster: ui.ShapeOf(cfg)})
}

// sandboxRing is where the window draws the sandbox's members.
func sandboxRing() (ui.Layout, ui.Ring) {
	l := layoutOf(sim.SandboxConfig(), i18n.En)
	return l, l.Members
}

// lessonRing is where the window draws a lesson's members.
func lessonRing(t *testing.T, name string, lang i18n.Lang) (ui.Layout, ui.Ring) {
	t.Helper()
	s, err := scenarios.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	// A lesson's caption area is as tall as its longest caption needs.
	ls, err := present.New(s, lang.String(), 0)
	if err != nil {
		t.Fatal(err)
	}
	l := ui.Lay(ui.Screen{W: 1280, H: 800, Scale: 1, Lang: lang, Cluster: ui.ShapeOf(s.Config), Captions: ui.LessonCaptions(ls, lang)})
	return l, l.Members
}

// inside is a point inside a member's shape, clear of its name.
func inside(g ui.Ring, i int) ui.Point { return g.Pos[i].Add(ui.Point{Y: g.NodeR * 0.68}) }

func sandboxAt(t *testing.T, d time.Duration) *sim.World {
	w, err := sim.New(sim.SandboxConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.RunUntil(sim.Time(d)); err != nil {
		t.Fatal(err)
	}
	return w
}

func index(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// The leader is drawn in the leader's colour at its place on the ring, and
// the followers in theirs.
func TestScreenshotShowsTheLeader(t *testing.T) {
	img := shot(t, "3s")
	w := sandboxAt(t, 3*time.Second)
	lead, ok := w.Leader()
	if !ok {
		t.Fatal("no leader at 3s")
	}
	names := w.MemberNames()
	_, g := sandboxRing()
	leaderC, followerC := ui.StyleOfRole(sim.RoleLeader).Fill, ui.StyleOfRole(sim.RoleFollower).Fill
	for i, n := range names {
		c := at(img, inside(g, i))
		want := followerC
		if n == lead {
			want = leaderC
		}
		if !near(c, want, 8) {
			t.Errorf("%s (leader %s) is drawn %v at %v, want %v", n, lead, c, inside(g, i), want)
		}
	}
	// The crown sits above the leader.
	li := index(names, lead)
	crown := g.Pos[li].Sub(ui.Point{Y: g.NodeR + 9})
	if c := at(img, crown); !near(c, ui.Yellow, 12) {
		t.Errorf("no crown above %s: %v at %v", lead, c, crown)
	}
}

// A link cut both ways has a red mark in its middle; a one-way cut has a
// red arrow and bar on its lane; a link that is not cut has neither.
func TestScreenshotShowsCutLinks(t *testing.T) {
	img := shot(t, "3s", "--at", "2.5s:cut:etcd-1:etcd-2", "--at", "2.5s:cut1:etcd-3:etcd-4")
	names := sim.SandboxConfig().Members
	_, g := sandboxRing()
	idx := map[string]int{}
	for i, n := range names {
		idx[n] = i
	}
	both := g.Pos[0].Lerp(g.Pos[1], 0.5).Add(ui.Point{X: 6})
	if c := at(img, both); !near(c, ui.Vermillion, 10) {
		t.Errorf("the cut etcd-1 ↔ etcd-2 is not marked: %v at %v", c, both)
	}
	one, ok := ui.CutMark(g, idx, "etcd-3", "etcd-4", false, 1)
	if !ok {
		t.Fatal("no mark for the one-way cut")
	}
	if c := at(img, one); !near(c, ui.Vermillion, 10) {
		t.Errorf("the one-way cut etcd-3 → etcd-4 is not marked: %v at %v", c, one)
	}
	back, _ := ui.CutMark(g, idx, "etcd-4", "etcd-3", false, 1)
	if c := at(img, back); near(c, ui.Vermillion, 40) {
		t.Errorf("etcd-4 → etcd-3 is drawn cut (%v at %v), but only the other way is", c, back)
	}
	uncut := g.Pos[1].Lerp(g.Pos[3], 0.5)
	if c := at(img, uncut); near(c, ui.Vermillion, 40) {
		t.Errorf("the link etcd-2 ↔ etcd-4 is drawn cut: %v at %v", c, uncut)
	}
}

// ink counts the dark pixels in r.
func ink(img *image.RGBA, r ui.Rect) int {
	n := 0
	for y := int(r.Y); y < int(r.Bottom()); y++ {
		for x := int(r.X); x < int(r.Right()); x++ {
			c := img.RGBAAt(x, y)
			if int(c.R)+int(c.G)+int(c.B) < 3*110 {
				n++
			}
		}
	}
	return n
}

// differing counts the pixels of r that differ between two images.
func differing(a, b *image.RGBA, r ui.Rect) int {
	n := 0
	for y := int(r.Y); y < int(r.Bottom()); y++ {
		for x := int(r.X); x < int(r.Right()); x++ {
			if !near(a.RGBAAt(x, y), b.RGBAAt(x, y), 30) {
				n++
			}
		}
	}
	return n
}

// A Chinese caption draws real glyphs. Drawn with only the Latin font, the
// same caption is a row of identical .notdef boxes (tofu); with the CJK
// font it must look different from that, have ink, and two different
// characters must not draw alike.
func TestChineseCaptionDrawsGlyphs(t *testing.T) {
	l, _ := sandboxRing()
	cap := l.Caption
	cjk := shot(t, "0.5s", "--caption", "领导者选举")
	tofu := shot(t, "0.5s", "--caption", "领导者选举", "--latin-font")
	if n := ink(cjk, cap); n < 150 {
		t.Errorf("the Chinese caption has %d dark pixels: nothing drawn?", n)
	}
	if n := differing(cjk, tofu, cap); n < 200 {
		t.Errorf("the Chinese caption differs from its tofu rendering in only %d pixels", n)
	}
	// Each character in its own screenshot: boxes would all be the same.
	a := shot(t, "0.5s", "--caption", "领")
	b := shot(t, "0.5s", "--caption", "举")
	if n := differing(a, b, cap); n < 30 {
		t.Errorf("领 and 举 draw alike (%d pixels differ): boxes, not glyphs", n)
	}
	ta := shot(t, "0.5s", "--caption", "领", "--latin-font")
	tb := shot(t, "0.5s", "--caption", "举", "--latin-font")
	if n := differing(ta, tb, cap); n >= 30 {
		t.Logf("note: the Latin font draws 领 and 举 differently (%d pixels); the tofu control is weaker than assumed", n)
	}
}

// A lesson in the window, in Chinese: the split-brain lesson at 5s shows
// its leader where the headless run says it is, and its caption.
func TestLessonScreenshot(t *testing.T) {
	img := shot(t, "5s", "play", "split-brain", "--lang", "zh")
	s, err := scenarios.Load("split-brain")
	if err != nil {
		t.Fatal(err)
	}
	r, err := scenarios.NewRunner(s, scenarios.RunOptions{Lang: "zh"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Advance(sim.Time(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	w := r.World()
	lead, ok := w.Leader()
	if !ok {
		t.Fatal("no leader at 5s")
	}
	names := w.MemberNames()
	l, g := lessonRing(t, "split-brain", i18n.Zh)
	i := index(names, lead)
	if c := at(img, inside(g, i)); !near(c, ui.StyleOfRole(sim.RoleLeader).Fill, 8) {
		t.Errorf("leader %s drawn %v", lead, c)
	}
	if n := ink(img, l.Caption); n < 300 {
		t.Errorf("the caption %q has %d dark pixels", r.Caption(), n)
	}
}

// The monkey: 5,000 random clicks, drags and keys in the real window, with
// the cluster playing. No panic, no safety violation (exit 3), no error.
func TestMonkeyInTheWindow(t *testing.T) {
	out := runGUI(t, "--monkey", "5000", "--monkey-seed", "7", "--save-dir", t.TempDir())
	if !strings.Contains(out, "5000 events") || !strings.Contains(out, "no violation") {
		t.Errorf("monkey output: %q", out)
	}
	t.Log(strings.TrimSpace(out))
}

// The frame benchmark runs and reports; the numbers go in the log, not in
// an assertion (timing is not a test).
func TestBenchFrames(t *testing.T) {
	out := runGUI(t, "--bench-frames", "60")
	if !strings.Contains(out, "7 members") || !strings.Contains(out, "ms") {
		t.Errorf("bench output: %q", out)
	}
	t.Log(strings.TrimSpace(out))
}

// `raftsim play` starts the sibling raftsim-gui and passes its flags on.
func TestRaftsimExecsTheWindow(t *testing.T) {
	dir := bins(t)
	out := filepath.Join(t.TempDir(), "play.png")
	cmd := exec.Command(filepath.Join(dir, "raftsim"), "play", "first-election", "--screenshot-at", "1s", "--out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("raftsim play: %v\n%s", err, b)
	}
	if img := readPNG(t, out); img.Bounds().Dx() != 1280 || img.Bounds().Dy() != 800 {
		t.Errorf("screenshot is %v, want 1280x800", img.Bounds())
	}
}

// The command box: a put typed into it (through --input, as keys would)
// acts on the cluster on screen — the key shows in the state panel and the
// op in the clients panel — and its answer, OK, prints in the box's
// scrollback once `wait` has let virtual time pass.
func TestCommandBoxTypesACommand(t *testing.T) {
	open := []string{"--input", "key::"}
	typed := append(slices.Clone(open), "--input", "type:put foo bar", "--input", "key:enter",
		"--input", "type:wait 100ms", "--input", "key:enter")
	waited := append(slices.Clone(open), "--input", "type:wait 100ms", "--input", "key:enter")
	with := shot(t, "3s", typed...)
	without := shot(t, "3s", waited...)
	l := ui.Lay(ui.Screen{W: 1280, H: 800, Scale: 1, Box: true, Cluster: ui.ShapeOf(sim.SandboxConfig())})
	if n := differing(with, without, l.State); n < 100 {
		t.Errorf("the state panel shows no foo=bar: %d pixels differ", n)
	}
	if n := differing(with, without, l.Clients); n < 100 {
		t.Errorf("the clients panel shows no put: %d pixels differ", n)
	}
	// The scrollback holds the echoed commands and OK; the box without the
	// put has one command fewer and no OK.
	scroll := ui.Rect{X: l.Box.X, Y: l.Box.Y + l.BoxLineH(), W: l.Box.W, H: l.BoxInput().Y - l.Box.Y - l.BoxLineH()}
	if n := ink(with, scroll); n < 300 {
		t.Errorf("the scrollback has %d dark pixels: nothing printed?", n)
	}
	if n := differing(with, without, scroll); n < 150 {
		t.Errorf("the scrollback with the put differs in only %d pixels", n)
	}
	// The box's frame is drawn where the layout puts it.
	if c := at(with, ui.Point{X: l.Box.X + l.Box.W/2, Y: l.Box.Y}); !near(c, ui.Ink, 40) {
		t.Errorf("no box edge at the top of the command box: %v", c)
	}
}

// Under an X server that asks for no authority (an Xvfb started without
// -auth) and with no Xauthority file, the window starts without xgb's
// "Could not get authority info" lines (issue 8): they said nothing was
// wrong.
func TestNoXauthorityWarning(t *testing.T) {
	dir := bins(t)
	xvfb, err := exec.LookPath("Xvfb")
	if err != nil {
		t.Skip("no Xvfb")
	}
	// A display number nobody uses.
	disp := ""
	for n := 87; n < 99; n++ {
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X%d-lock", n)); os.IsNotExist(err) {
			disp = fmt.Sprintf(":%d", n)
			break
		}
	}
	if disp == "" {
		t.Skip("no free display number")
	}
	srv := exec.Command(xvfb, disp, "-screen", "0", "1280x800x24", "-nolisten", "tcp")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	sock := "/tmp/.X11-unix/X" + disp[1:]
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	home := t.TempDir()
	cmd := exec.Command(filepath.Join(dir, "raftsim-gui"), "--paused", "--screenshot-at", "0.1s", "--out", filepath.Join(home, "x.png"))
	cmd.Env = []string{"DISPLAY=" + disp, "HOME=" + home, "PATH=" + os.Getenv("PATH")}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("raftsim-gui: %v\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "XGB") || strings.Contains(stderr.String(), "authority") {
		t.Errorf("raftsim-gui warned about the X authority:\n%s", stderr.String())
	}
}

// The layout measures text (package typeface, without a display) exactly
// as ebiten draws it (text.Advance), in both languages: so what the layout
// tests prove of widths holds in the window.
func TestLayoutMeasuresAsEbitenDraws(t *testing.T) {
	cmd := exec.Command(filepath.Join(bins(t), "raftsim-gui"))
	cmd.Env = append(os.Environ(), "RAFTSIM_CHECK_MEASURE=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "agree") {
		t.Fatalf("%v: %s", err, out)
	}
	t.Log(strings.TrimSpace(string(out)))
}
