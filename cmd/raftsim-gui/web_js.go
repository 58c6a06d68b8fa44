//go:build js

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall/js"

	"github.com/raftsim/raftsim/cmd/raftsim-gui/internal/guiconsole"
	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/raftsrc"
	"github.com/raftsim/raftsim/render"
	"github.com/raftsim/raftsim/render/typeface"
	"github.com/raftsim/raftsim/render/ui"
	"github.com/raftsim/raftsim/weblink"
)

// The page's fonts, as `make web` puts them beside index.html (see
// cmd/internal/webbuild): the glyphs the lessons and the window use, and
// the whole Chinese font, fetched only when text needs a glyph the first
// lacks.
const (
	uiFontPath   = "fonts/ui.otf"
	fullFontPath = "fonts/full.otf.gz"
)

// page is the web page's side of the window: what index.html's
// window.raftsimPage offers (fonts, downloads, the clipboard, a place to
// say what failed), and the hooks it gives the page and its tests
// (window.raftsim).
//
// NB: Update runs inside a JavaScript callback (ebiten's animation
// frame), where waiting for a promise would hang the page. So answers
// from JavaScript are queued, and Update (BeforeUpdate) takes them.
type page struct {
	v     js.Value // window.raftsimPage
	app   *ui.App
	fonts *render.Fonts

	mu    sync.Mutex
	queue []func() // for the game's goroutine

	notice   func(i18n.Lang) string // said on the status line at the start
	full     fullFont
	boxSeen  string // the command box's text last checked for glyphs
	boxNoted bool   // the box has said what a page cannot type
	started  bool
}

type fullFont uint8

const (
	fullNone fullFont = iota
	fullLoading
	fullLoaded
	fullFailed
)

func newPage() (*page, error) {
	v := js.Global().Get("raftsimPage")
	if !v.Truthy() {
		return nil, errNoPage
	}
	return &page{v: v}, nil
}

// location returns a part of the page's address (search, origin, ...).
func (p *page) location(part string) string { return js.Global().Get("location").Get(part).String() }

// fail says on the page why raftsim stopped.
func (p *page) fail(text string) { p.v.Call("fail", text) }

// host is the window's host in a page.
func (p *page) host(scenario []byte) host {
	return host{
		scenario: scenario,
		noFiles:  true,
		fonts:    func(latinOnly bool) (*render.Fonts, error) { return p.loadFonts(latinOnly, scenario) },
		size: func() (int, int) {
			w, h := js.Global().Get("innerWidth").Int(), js.Global().Get("innerHeight").Int()
			return max(w, 320), max(h, 240)
		},
		save: func(s *ui.Session, _ string) (string, error) {
			data, err := ui.MarshalSession(s)
			if err != nil {
				return "", err
			}
			return p.download(ui.SessionFileName(s), data, "application/yaml"), nil
		},
		writeFile: func(name string, data []byte) (string, error) {
			return p.download(name, data, "image/png"), nil
		},
		console:  func(string) ui.ConsoleFactory { return guiconsole.FactoryFiles(p) },
		copyLink: p.copyLink,
		profile: func(string) (func(), error) {
			return nil, errors.New("--cpuprofile: a web page cannot write a profile (the browser's own profiler can: F12, Performance)")
		},
		options: p.options,
	}
}

// options puts the page's hooks on the window.
func (p *page) options(app *ui.App, opt *render.Options) {
	p.app = app
	if p.notice != nil {
		app.Status = p.notice(app.Lang)
	}
	opt.BeforeUpdate = p.beforeUpdate
	raftsrc.Fetch = p.fetchRaftSource
	opt.AfterDraw = func() {
		if !p.started {
			p.started = true
			p.v.Call("started")
		}
	}
	hooks := js.Global().Get("Object").New()
	hooks.Set("state", p.promiseFunc(func() (any, error) {
		st, err := weblink.StateOf(p.app.S.World(), p.scenarioName())
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(st)
		return string(b), err
	}))
	hooks.Set("link", p.promiseFunc(func() (any, error) { return p.link(p.app.S) }))
	hooks.Set("view", p.promiseFunc(func() (any, error) {
		b, err := json.Marshal(p.view())
		return string(b), err
	}))
	js.Global().Set("raftsim", hooks)
}

// pageView is what the window shows, beyond the world (weblink.State):
// for tests of the keys in a page.
type pageView struct {
	Now     string     `json:"now"`
	Step    int        `json:"step"`  // the narrative step on screen (1-based), 0 outside a lesson
	Steps   int        `json:"steps"` // how many the lesson has
	Text    string     `json:"text"`  // the caption on screen
	Caption [4]float64 `json:"caption"`
	Status  string     `json:"status"`
	Playing bool       `json:"playing"`
	Box     bool       `json:"box"` // the command box is open
	Font    string     `json:"font"`
	// Why is the open why card's source title ("raft.go: stepLeader,
	// lines ..."), "loading" while raft's source is fetched, "" for none.
	Why string `json:"why,omitempty"`
}

func (p *page) view() pageView {
	n, c := p.app.Narration(), p.app.L.Caption
	v := pageView{Now: p.app.S.Now().String(), Step: n.Step, Steps: n.Steps, Text: n.Text,
		Caption: [4]float64{c.X, c.Y, c.W, c.H}, Status: p.app.Status, Playing: p.app.Playing, Box: p.app.Box.Open}
	if p.fonts != nil {
		v.Font = p.fonts.Name
	}
	if c := p.app.Why; c != nil {
		v.Why = c.SourceTitle(p.app.Lang)
		if c.Loading {
			v.Why = "loading"
		}
	}
	return v
}

// scenarioName is the name a trace of the world on screen carries, as
// `raftsim run` writes it.
func (p *page) scenarioName() string {
	if p.app.Lesson != nil {
		return p.app.Lesson.Lesson().Name
	}
	return "sandbox"
}

// promiseFunc makes a JavaScript function that returns a promise of what
// f returns, run on the game's goroutine at its next Update.
func (p *page) promiseFunc(f func() (any, error)) js.Func {
	fn := js.FuncOf(func(js.Value, []js.Value) any {
		var exec js.Func
		exec = js.FuncOf(func(_ js.Value, args []js.Value) any {
			resolve, reject := args[0], args[1]
			p.enqueue(func() {
				exec.Release()
				v, err := f()
				if err != nil {
					reject.Invoke(js.Global().Get("Error").New(err.Error()))
					return
				}
				resolve.Invoke(v)
			})
			return nil
		})
		return js.Global().Get("Promise").New(exec)
	})
	return fn
}

func (p *page) enqueue(f func()) {
	p.mu.Lock()
	p.queue = append(p.queue, f)
	p.mu.Unlock()
}

// beforeUpdate runs what JavaScript's answers queued, and fetches the
// whole font once the command box shows a glyph the page's font lacks.
func (p *page) beforeUpdate() {
	p.mu.Lock()
	q := p.queue
	p.queue = nil
	p.mu.Unlock()
	for _, f := range q {
		f()
	}
	if p.app.Box.Open && !p.boxNoted {
		// ebiten reads keys in a page, not an input method.
		p.boxNoted = true
		p.app.Box.Note(p.app.Lang.T("in a browser, an input method (pinyin) cannot type into this box; the keyboard's own letters can"))
	}
	if p.full != fullNone || !p.app.Box.Open || p.fonts == nil {
		return
	}
	line, _ := p.app.Box.Line()
	var text strings.Builder
	text.WriteString(line)
	lines := p.app.Box.Lines()
	for _, l := range lines[max(0, len(lines)-40):] {
		text.WriteString(l.Text)
	}
	if s := text.String(); s != p.boxSeen {
		p.boxSeen = s
		if lacks(p.fonts.Font, s) {
			p.loadFullFont()
		}
	}
}

// lacks reports whether the font has no glyph for a rune of s.
func lacks(f *typeface.Font, s string) bool {
	for _, r := range s {
		if r >= ' ' && !f.Has(r) {
			return true
		}
	}
	return false
}

// loadFullFont fetches the whole font and, once it is there, draws with it.
func (p *page) loadFullFont() {
	p.full = fullLoading
	p.app.Status = p.app.Lang.T("loading the whole font for characters the page's font lacks…")
	go func() {
		tf, err := p.fetchFont(fullFontPath)
		p.enqueue(func() {
			if err == nil {
				err = p.fonts.Replace(tf)
			}
			if err != nil {
				p.full = fullFailed
				p.app.Status = p.app.Lang.F("the whole font did not load (%v): characters the page's font lacks show as boxes", err)
				return
			}
			p.full = fullLoaded
			p.app.Status = p.app.Lang.T("the whole font is loaded")
		})
	}()
}

// loadFonts loads the page's font: the subset `make web` made, or, when
// the link's scenario uses a glyph the subset lacks, the whole font.
func (p *page) loadFonts(latinOnly bool, scenario []byte) (*render.Fonts, error) {
	if latinOnly {
		return render.LoadFonts(true)
	}
	tf, err := p.fetchFont(uiFontPath)
	if err != nil {
		// In English: without the font, Chinese would be boxes.
		p.notice = func(i18n.Lang) string {
			return i18n.En.F("the page's font did not load (%v): Chinese shows as boxes", err)
		}
		f, err := render.LoadFonts(true)
		p.fonts = f
		return f, err
	}
	if lacks(tf, string(scenario)) {
		p.full = fullLoading
		if whole, err := p.fetchFont(fullFontPath); err == nil {
			tf, p.full = whole, fullLoaded
		} else {
			p.full = fullFailed
			p.notice = func(l i18n.Lang) string {
				return l.F("the whole font did not load (%v): characters the page's font lacks show as boxes", err)
			}
		}
	}
	f, err := render.LoadFontsFrom(tf)
	p.fonts = f
	return f, err
}

// fetchFont fetches and reads a font of the page. It waits for the
// fetch, so it must not run on the game's goroutine.
func (p *page) fetchFont(path string) (*typeface.Font, error) {
	v, err := await(p.v.Call("font", path))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	data := make([]byte, v.Get("length").Int())
	js.CopyBytesToGo(data, v)
	return typeface.Parse(path, data)
}

// fetchRaftSource fetches raft's source (the why card's; the wasm leaves
// it out, so that it does not count towards the first frame) and hands it
// to raftsrc, on the game's goroutine; an open card then shows it.
func (p *page) fetchRaftSource() {
	go func() {
		var data []byte
		v, err := await(p.v.Call("font", raftsrc.WebFile)) // fetched and unpacked as the fonts are
		if err == nil {
			data = make([]byte, v.Get("length").Int())
			js.CopyBytesToGo(data, v)
		}
		p.enqueue(func() { raftsrc.Provide(data, err) })
	}()
}

// await waits for a promise to settle.
func await(promise js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	ch := make(chan result, 1)
	ok := js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- result{v: args[0]}
		return nil
	})
	bad := js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- result{err: jsError(args[0])}
		return nil
	})
	defer ok.Release()
	defer bad.Release()
	promise.Call("then", ok, bad)
	r := <-ch
	return r.v, r.err
}

// settle calls f on the game's goroutine once the promise settles.
func (p *page) settle(promise js.Value, f func(js.Value, error)) {
	var ok, bad js.Func
	done := func(v js.Value, err error) {
		p.enqueue(func() {
			ok.Release()
			bad.Release()
			f(v, err)
		})
	}
	ok = js.FuncOf(func(_ js.Value, args []js.Value) any { done(args[0], nil); return nil })
	bad = js.FuncOf(func(_ js.Value, args []js.Value) any { done(js.Undefined(), jsError(args[0])); return nil })
	promise.Call("then", ok, bad)
}

func jsError(v js.Value) error {
	if v.Type() == js.TypeObject && v.Get("message").Type() == js.TypeString {
		return errors.New(v.Get("message").String())
	}
	return errors.New(v.String())
}

// download offers data as a file and says so, for the status line.
func (p *page) download(name string, data []byte, mime string) string {
	u := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(u, data)
	p.v.Call("download", name, u, mime)
	lang := i18n.En
	if p.app != nil {
		lang = p.app.Lang
	}
	return name + lang.T(" (a browser download)")
}

// WriteFile is the command box's save: a download. (snapshot save says
// itself that a browser has no snapshot files: package snapshot.)
func (p *page) WriteFile(name string, data []byte) error {
	p.download(name, data, "application/octet-stream")
	return nil
}

// link is a link to the moment on screen, on this page.
func (p *page) link(s *ui.Session) (string, error) {
	data, err := ui.MarshalSession(s)
	if err != nil {
		return "", err
	}
	return weblink.Link(p.location("origin")+p.location("pathname"), data, s.Now().Duration())
}

// copyLink is u in a page: the link goes into the address bar and onto
// the clipboard, if the browser allows it.
func (p *page) copyLink(app *ui.App, _ string) func(*ui.Session) (string, error) {
	return func(s *ui.Session) (string, error) {
		link, err := p.link(s)
		if err != nil {
			return "", err
		}
		js.Global().Get("history").Call("replaceState", nil, "", link)
		p.settle(p.v.Call("copy", link), func(_ js.Value, err error) {
			if err != nil {
				app.Status = app.Lang.F("the browser did not allow the clipboard (%v): the link to this moment is in the address bar", err)
				return
			}
			app.Status = app.Lang.T("a link to this moment is on the clipboard and in the address bar")
		})
		return app.Lang.T("copying a link to this moment…"), nil
	}
}
