//go:build !js

package main

// The build constraint: it drives Chromium from outside the page: nothing here runs in one.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"golang.org/x/image/draw"

	"github.com/raftsim/raftsim/cmd/internal/guiflags"
	"github.com/raftsim/raftsim/cmd/internal/webbuild"
	"github.com/raftsim/raftsim/render/guitest/ocrmatch"
	"github.com/raftsim/raftsim/render/present"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/weblink"
)

// The web page, end to end: `make web`'s build of the window for
// js/wasm, served by `raftsim serve-web` on loopback, opened in headless
// Chromium (through the DevTools protocol, with wall-clock waits: the
// page's frames run in real time). The page answers window.raftsim's
// hooks (state, view, link) from inside its game loop.
//
//   - The sandbox, opened at 3s, draws a cluster with a leader: the
//     screenshot, read back by OCR, shows the leader and its term.
//   - ?lesson=split-brain&lang=zh&present=1 shows the first step's
//     Chinese caption: OCR (chi_sim) reads it in the caption area, so it
//     is not drawn as boxes; the clicker's keys move through the lesson.
//   - A link copied (u) in the desktop window opens in the page at the
//     same moment: the same leader, term and logs as `raftsim run` of the
//     session the link carries, and the very same trace.
//
// It also holds the page to its budgets: under 5.85 MB served (gzipped) to
// the first frame, under 20 MB in all. (6 MB until 2026-12-07, when auth,
// compare, sessions and the why card took the page from 5.84 to 6.01 MB
// and it was 6.1 MB for a while; leaving raftsim serve --window and its
// wire out of the page brought it to 5.71 MB; the side-by-side panes and
// the why cards took it to 5.81 MB, measured 5,809,696 bytes. Issue 33
// asks for 5 MB.)
func TestWebPage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the web page")
	}
	browser := needTool(t, "chromium", "chromium")
	needTool(t, "pyftsubset", "fonttools")
	needTool(t, "tesseract", "tesseract-ocr")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "web")
	start := time.Now()
	var sizes webbuild.Sizes
	if pre := os.Getenv("RAFTSIM_WEB_DIR"); pre != "" {
		// A page built already (make web), to try the test again quickly.
		dir = pre
		sizes, err = webbuild.Measure(dir)
	} else {
		sizes, err = webbuild.Build(webbuild.Options{Root: root, Out: dir})
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("built the page in %s:\n%s", time.Since(start).Round(time.Second), sizes)
	_, firstServed := sizes.Total(true)
	all, _ := sizes.Total(false)
	if firstServed >= 5_850_000 {
		t.Errorf("the page serves %d bytes to its first frame: the budget is under 5.85 MB", firstServed)
	}
	if all >= 20_000_000 {
		t.Errorf("the page's folder weighs %d bytes: the budget is under 20 MB", all)
	}
	for _, s := range sizes {
		if s.Bytes >= 20_000_000 {
			t.Errorf("%s weighs %d bytes; some static hosts refuse files over 20 MB", s.Name, s.Bytes)
		}
	}

	base := serveWeb(t, tmp, dir)
	ctx := newBrowser(t, browser, tmp)

	t.Run("sandbox", func(t *testing.T) {
		open(t, ctx, base+"?t=3s")
		st := pageState(t, ctx)
		if st.Leader == "" || st.Term < 2 {
			t.Fatalf("the page's world at %s has no leader: %+v", st.Now, st)
		}
		shot := screenshot(t, ctx, filepath.Join(tmp, "sandbox.png"))
		if os.Getenv("RAFTSIM_WEB_SHOTS") != "" {
			copyFile(t, shot, filepath.Join(os.Getenv("RAFTSIM_WEB_SHOTS"), "sandbox.png"))
		}
		read := ocr(t, shot, image.Rectangle{}, "eng")
		for _, want := range []string{st.Leader, "leader", fmt.Sprintf("term %d", st.Term), "Logs"} {
			if ocrmatch.Found(want, read) < 1 {
				t.Errorf("the screenshot does not show %q (OCR read: %q)", want, read)
			}
		}
	})

	t.Run("sandbox-keys", func(t *testing.T) {
		// The page is at 3s, paused. ← rewinds 100ms.
		press(t, ctx, kb.ArrowLeft)
		waitView(t, ctx, "←: 100ms back", func(v view) bool { d, _ := time.ParseDuration(v.Now); return d == 2900*time.Millisecond })
		// The command box acts on the cluster on screen.
		press(t, ctx, ":")
		waitView(t, ctx, ": opens the command box", func(v view) bool { return v.Box })
		press(t, ctx, "put /web/k v1\r")
		press(t, ctx, "wait 300ms\r")
		st := pageState(t, ctx)
		var leaderLog []string
		for _, m := range st.Members {
			if m.Name == st.Leader {
				leaderLog = m.Log
			}
		}
		if !slices.ContainsFunc(leaderLog, func(e string) bool { return strings.Contains(e, "/web/k") }) {
			t.Errorf("the put typed into the box is not in the leader's log at %s: %q", st.Now, leaderLog)
		}
		// Saving is a download.
		press(t, ctx, kb.Escape)
		press(t, ctx, "s")
		v := waitView(t, ctx, "s: saved", func(v view) bool { return strings.Contains(v.Status, "download") })
		if !strings.Contains(v.Status, "raftsim-session-t") {
			t.Errorf("s says %q", v.Status)
		}
	})

	t.Run("lesson-zh-present", func(t *testing.T) {
		s, err := scenarios.LoadLesson("split-brain")
		if err != nil {
			t.Fatal(err)
		}
		l, err := present.New(s, "zh", 0)
		if err != nil {
			t.Fatal(err)
		}
		want := l.Steps[0].Text
		open(t, ctx, base+"?lesson=split-brain&lang=zh&present=1")
		v := pageView(t, ctx)
		if v.Step != 1 || v.Text != want {
			t.Fatalf("the page shows step %d of %d, %q; want step 1, %q", v.Step, v.Steps, v.Text, want)
		}
		shot := screenshot(t, ctx, filepath.Join(tmp, "split-brain-zh.png"))
		if os.Getenv("RAFTSIM_WEB_SHOTS") != "" {
			copyFile(t, shot, filepath.Join(os.Getenv("RAFTSIM_WEB_SHOTS"), "split-brain-zh.png"))
		}
		c := v.Caption
		read := ocr(t, shot, image.Rect(int(c[0]), int(c[1]), int(c[0]+c[2]), int(c[1]+c[3])), "chi_sim")
		score := ocrmatch.Found(want, read)
		t.Logf("the first caption, read back: %.0f%% (%q)", 100*score, read)
		if score < ocrmatch.Enough("zh") {
			t.Errorf("OCR finds %.0f%% of the first caption %q in the caption area (read %q): drawn as boxes, or not at all?", 100*score, want, read)
		}
		if !strings.Contains(v.Font, "ui.otf") {
			t.Errorf("the page draws with %q, not its subset font", v.Font)
		}
		// The clicker's keys.
		press(t, ctx, kb.PageDown)
		waitView(t, ctx, "PageDown: step 2", func(v view) bool { return v.Step == 2 })
		press(t, ctx, kb.PageUp)
		waitView(t, ctx, "PageUp: step 1 again", func(v view) bool { return v.Step == 1 })
		if len(l.Chapters) >= 2 {
			press(t, ctx, "2")
			waitView(t, ctx, "2: the second chapter", func(v view) bool { return v.Step == l.Chapters[1]+1 })
		}
	})

	t.Run("compare-panes", func(t *testing.T) {
		// What `raftsim link pre-vote --compare pre_vote=false` prints,
		// and a compare: lesson by name: both open side-by-side panes,
		// each labelled with its setting.
		for _, q := range []string{"?lesson=pre-vote&compare=pre_vote%3Dfalse&t=2s", "?lesson=pre-vote-compare&t=2s"} {
			open(t, ctx, base+q)
			name := strings.NewReplacer("?", "", "&", "-", "=", "-", "%3D", "-").Replace(q) + ".png"
			shot := screenshot(t, ctx, filepath.Join(tmp, name))
			if os.Getenv("RAFTSIM_WEB_SHOTS") != "" {
				copyFile(t, shot, filepath.Join(os.Getenv("RAFTSIM_WEB_SHOTS"), name))
			}
			b := pngBounds(t, shot)
			for i, want := range []string{"pre_vote: true", "pre_vote: false"} {
				// Each label in the band over its half of the page.
				half := image.Rect(i*b.Dx()/2, 0, (i+1)*b.Dx()/2, b.Dy()/8)
				read := ocr(t, shot, half, "eng")
				if ocrmatch.Found(want, read) < 1 {
					t.Errorf("%s: the %s pane's band does not say %q (OCR read: %q)", q, []string{"left", "right"}[i], want, read)
				}
			}
		}
	})

	t.Run("why-card", func(t *testing.T) { whyCardInPage(t, ctx, base, tmp) }) // webpage_why_test.go

	t.Run("copy-link-from-desktop", func(t *testing.T) {
		link, yaml := desktopLink(t, tmp, base)
		open(t, ctx, link)
		st := pageState(t, ctx)

		// What `raftsim run` makes of the same session.
		file := filepath.Join(tmp, "session.yaml")
		if err := os.WriteFile(file, yaml, 0o644); err != nil {
			t.Fatal(err)
		}
		trace := filepath.Join(tmp, "session.jsonl")
		var out, errb bytes.Buffer
		if code := run([]string{"run", file, "--trace", trace, "-q"}, nil, &out, &errb); code != exitOK {
			t.Fatalf("raftsim run of the session: exit %d\n%s%s", code, out.String(), errb.String())
		}
		data, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		want := headlessState(t, yaml)
		if st.Leader != want.Leader || st.Term != want.Term || st.Now != want.Now {
			t.Errorf("the page is at %s with leader %q in term %d; raftsim run ends at %s with %q in term %d",
				st.Now, st.Leader, st.Term, want.Now, want.Leader, want.Term)
		}
		if !slices.EqualFunc(st.Members, want.Members, func(a, b weblink.MemberState) bool {
			return a.Name == b.Name && a.Role == b.Role && a.Term == b.Term && a.Commit == b.Commit && slices.Equal(a.Log, b.Log)
		}) {
			t.Errorf("the members differ:\npage: %+v\nrun:  %+v", st.Members, want.Members)
		}
		if got := hex.EncodeToString(sum[:]); st.TraceSHA256 != got {
			t.Errorf("the page's trace (sha256 %s) is not raftsim run's (%s)", st.TraceSHA256, got)
		}
		if len(want.Members[0].Log) < 9 {
			t.Errorf("the session's logs are short (%d entries): not much of a session", len(want.Members[0].Log))
		}
		// The page's own copy link carries the same session.
		again := evalString(t, ctx, "raftsim.link()")
		if u, err := url.Parse(again); err != nil {
			t.Error(err)
		} else if y, err := weblink.Decode(u.Query().Get("scenario")); err != nil || !bytes.Equal(y, yaml) {
			t.Errorf("the page's copy link carries another session (%v):\n%s\nwant:\n%s", err, y, yaml)
		}
	})
}

// needTool returns a program's path, skipping the test without it, or
// failing it where CI must have it (RAFTSIM_REQUIRE_GUI=1).
func needTool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("RAFTSIM_REQUIRE_GUI") == "1" {
			t.Fatalf("%s is not installed (make deps installs %s)", name, pkg)
		}
		t.Skipf("%s is not installed", name)
	}
	return p
}

// serveWeb starts `raftsim serve-web` on a free loopback port and returns
// the address it prints.
func serveWeb(t *testing.T, tmp, dir string) string {
	t.Helper()
	bin := filepath.Join(tmp, "raftsim")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/raftsim/raftsim/cmd/raftsim").CombinedOutput(); err != nil {
		t.Fatalf("building raftsim: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "serve-web", "--addr", "127.0.0.1:0", "--dir", dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("serve-web printed nothing: %v", err)
	}
	m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/) `).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("serve-web's first line gives no loopback address: %q", line)
	}
	go func() { // drain the rest
		var b bytes.Buffer
		b.ReadFrom(stdout)
	}()
	// It serves the page gzipped.
	req, _ := http.NewRequest(http.MethodGet, m[1], nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("GET %s: %s, Content-Encoding %q; want 200 and gzip", m[1], resp.Status, resp.Header.Get("Content-Encoding"))
	}
	return m[1]
}

// newBrowser starts headless Chromium with the flags that work here
// (issue 19: no --use-gl=swiftshader, no --disable-software-rasterizer).
func newBrowser(t *testing.T, path, tmp string) context.Context {
	t.Helper()
	actx, cancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(tmp, "chromium")), chromedp.WindowSize(1280, 800))
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel2(); cancel() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatal(err)
	}
	return ctx
}

// open loads a page and waits for its first frame, logging how long that
// took.
func open(t *testing.T, ctx context.Context, u string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(u)); err != nil {
		t.Fatal(err)
	}
	ms, err := chromedp.Run(ctx, chromedp.Poll[float64](`window.raftsimFirstFrameMs ||
		(document.getElementById("raftsim-failed") && -1)`, chromedp.WithPollingTimeout(4*time.Minute), chromedp.WithPollingInterval(100*time.Millisecond)))
	if err != nil {
		t.Fatalf("%s: no first frame: %v", u, err)
	}
	if ms < 0 {
		msg, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("raftsim-failed").innerText`))
		t.Fatalf("%s: the page failed: %s", u, msg)
	}
	compiled, _ := chromedp.Run(ctx, chromedp.Evaluate[float64](`window.raftsimCompiledMs`))
	t.Logf("%.60s: first frame %.1f s after the page started loading (the program fetched, unpacked and compiled at %.1f s)", u, ms/1000, compiled/1000)
}

func evalString(t *testing.T, ctx context.Context, expr string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return s
}

func pageState(t *testing.T, ctx context.Context) weblink.State {
	t.Helper()
	var st weblink.State
	if err := json.Unmarshal([]byte(evalString(t, ctx, "raftsim.state()")), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// view is what the page's view hook says (cmd/raftsim-gui/web_js.go).
type view struct {
	Now     string     `json:"now"`
	Step    int        `json:"step"`
	Steps   int        `json:"steps"`
	Text    string     `json:"text"`
	Caption [4]float64 `json:"caption"`
	Status  string     `json:"status"`
	Playing bool       `json:"playing"`
	Box     bool       `json:"box"`
	Font    string     `json:"font"`
	Why     string     `json:"why"` // the why card's source title, "loading", or ""
}

func pageView(t *testing.T, ctx context.Context) view {
	t.Helper()
	var v view
	if err := json.Unmarshal([]byte(evalString(t, ctx, "raftsim.view()")), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// press presses and releases each key as a hand does, holding it for a
// fifth of a second: the window reads the keyboard once a frame, and a key
// pressed and released between two frames is not seen (ebiten).
func press(t *testing.T, ctx context.Context, keys string) {
	t.Helper()
	for _, r := range keys {
		for _, ev := range kb.Encode(r) {
			if ev.Type == input.DispatchKeyEventTypeKeyUp {
				time.Sleep(200 * time.Millisecond)
			}
			if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := cdp.Call(ctx, tg, input.DispatchKeyEvent, *ev)
				return err
			})); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// waitView waits (wall clock) until the page's view satisfies ok.
func waitView(t *testing.T, ctx context.Context, what string, ok func(view) bool) view {
	t.Helper()
	var v view
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if v = pageView(t, ctx); ok(v) {
			return v
		}
	}
	t.Fatalf("%s: the page did not get there; it shows %+v", what, v)
	return v
}

func screenshot(t *testing.T, ctx context.Context, path string) string {
	t.Helper()
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// ocr reads a screenshot (only r, if not empty) with tesseract.
func ocr(t *testing.T, path string, r image.Rectangle, lang string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if r.Empty() {
		r = img.Bounds()
	}
	// Twice the size: tesseract misreads the normal layout's 12 px text
	// (etcd-3 as "eted-3", every time), and reads it well at 24.
	big := image.NewRGBA(image.Rect(0, 0, 2*r.Dx(), 2*r.Dy()))
	draw.CatmullRom.Scale(big, big.Bounds(), img, r, draw.Src, nil)
	path = strings.TrimSuffix(path, ".png") + "-ocr.png"
	var b bytes.Buffer
	if err := png.Encode(&b, big); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("tesseract", path, "-", "-l", lang, "--psm", "6")
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tesseract: %v", err)
	}
	return string(out)
}

// desktopLink runs the desktop window (under the display the GUI tests
// have), acts on the sandbox at set times, presses u (copy link) at 4.5s,
// and returns the link it printed, pointing at base, and the session in
// it.
func desktopLink(t *testing.T, tmp, base string) (string, []byte) {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		if os.Getenv("RAFTSIM_REQUIRE_GUI") == "1" {
			t.Fatal("no display for the desktop window (make test runs the tests under xvfb-run)")
		}
		t.Skip("no display for the desktop window")
	}
	bin := filepath.Join(tmp, "raftsim-gui")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/raftsim/raftsim/cmd/raftsim-gui").CombinedOutput(); err != nil {
		t.Fatalf("building raftsim-gui: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--seed", "5", "--paused",
		"--at", "1s:put:apiserver-1:/registry/pods/default/web:v1",
		"--at", "1.5s:crash:etcd-1", "--at", "1.6s:crash:etcd-2",
		"--at", "3s:put:apiserver-3:/registry/pods/default/web:v2",
		"--at", "3.2s:restart:etcd-1",
		"--screenshot-at", "4.5s", "--input", "key:u", "--out", filepath.Join(tmp, "desktop.png"),
		"--link-base", base)
	cmd.Env = append(os.Environ(), "PATH=/nonexistent") // no clipboard program: the link goes to standard output only
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("raftsim-gui: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`(?m)^link: (\S+)$`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("u printed no link:\n%s", out)
	}
	link := string(m[1])
	if !strings.HasPrefix(link, base+"?") {
		t.Fatalf("the link %s is not on the page at %s", link, base)
	}
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	if got := u.Query().Get("t"); got != "4.5s" {
		t.Errorf("the link opens at t=%q, want 4.5s (where u was pressed)", got)
	}
	yaml, err := weblink.Decode(u.Query().Get("scenario"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"crash: etcd-1", "restart: etcd-1", "value: v2"} {
		if !bytes.Contains(yaml, []byte(want)) {
			t.Errorf("the link's session lacks %q:\n%s", want, yaml)
		}
	}
	return link, yaml
}

// headlessState runs a session as `raftsim run` does and reads its end.
func headlessState(t *testing.T, yaml []byte) weblink.State {
	t.Helper()
	s, err := scenarios.Parse("session.yaml", yaml)
	if err != nil {
		t.Fatal(err)
	}
	r, err := scenarios.NewRunner(s, scenarios.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(); err != nil {
		t.Fatal(err)
	}
	st, err := weblink.StateOf(r.World(), s.Name)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// The page and the desktop window link to the same default address.
func TestDefaultLinkBase(t *testing.T) {
	if guiflags.DefaultLinkBase != weblink.DefaultBase {
		t.Errorf("guiflags.DefaultLinkBase %q != weblink.DefaultBase %q", guiflags.DefaultLinkBase, weblink.DefaultBase)
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err == nil {
		err = os.WriteFile(dst, data, 0o644)
	}
	if err != nil {
		t.Error(err)
	}
}

// pngBounds is a PNG file's size.
func pngBounds(t *testing.T, path string) image.Rectangle {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	return image.Rect(0, 0, c.Width, c.Height)
}
