package render

import (
	"math"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/raftsim/raftsim/render/ui"
	"github.com/raftsim/raftsim/sim"
)

// Renderer paints Frames. It keeps the parts that do not change from frame
// to frame (the legend) in an offscreen image.
type Renderer struct {
	Fonts *Fonts
	// Title names what is shown: "sandbox", or the scenario's name.
	Title string

	// Baseline draws nothing but the background: the benchmark's measure
	// of what a frame costs before raftsim draws anything.
	Baseline bool

	// ExtraHelp are sections of the help overlay that other parts of the
	// window add (the presenter's keys), after the keyboard's.
	ExtraHelp []HelpSection

	legend    *ebiten.Image
	staticFor ui.Layout

	rec recorder // the frame's draw calls, and the panels kept (record.go)
}

// NewRenderer makes a Renderer drawing with fonts.
func NewRenderer(f *Fonts, title string) *Renderer { return &Renderer{Fonts: f, Title: title} }

// Draw paints the App's current state onto dst. It changes nothing in the
// App or the world.
func (r *Renderer) Draw(dst *ebiten.Image, a *ui.App) {
	f := ui.BuildFrame(a)
	r.DrawFrame(dst, a, f)
}

// DrawFrame paints a frame that was built from a.
func (r *Renderer) DrawFrame(dst *ebiten.Image, a *ui.App, f *ui.Frame) {
	if r.Baseline {
		dst.Fill(ui.Background)
		r.rec.forget()
		return
	}
	r.Fonts.Use(f.L)
	r.rec.begin(dst, ui.Background)
	defer r.rec.finish(panelsOf(f.L))
	r.drawStatic(&r.rec, f.L)
	p := &painter{dst: &r.rec, fonts: r.Fonts, s: f.L.S}
	var texts []func()
	items := append([]ui.TextItem(nil), f.Texts...)
	items = append(items, r.toolbar(p, a, f)...)
	texts = append(texts, r.ring(p, a, f)...)
	r.logs(p, f)
	r.state(p, f)
	r.clients(p, a, f)
	items = append(items, r.caption(p, a, f)...)
	r.timeline(p, f)
	texts = append(texts, r.commandBox(p, a, f)...)
	p.plates(items)
	p.flush()
	for _, t := range items {
		p.item(t)
	}
	for _, t := range texts {
		t()
	}
	r.overlays(p, a, f)
	r.presenterOverlays(p, a, f)
	r.bugBanner(p, a, f) // draw_bugs.go: injected bugs, over everything
}

// drawStatic draws the panels' edges and the legend (dst starts filled
// with the background). Software GL pays for every pixel it fills, so the
// panels are only outlined on the background, and the legend (text heavy,
// never changing) is cached in an offscreen image.
func (r *Renderer) drawStatic(dst surface, l ui.Layout) {
	p := &painter{dst: dst, fonts: r.Fonts, s: l.S}
	p.b.rect(p.dst, l.Toolbar, ui.LightGrey)
	p.b.rect(p.dst, l.Timeline, ui.LightGrey)
	for _, rect := range []ui.Rect{l.Ring, l.Logs, l.State, l.Clients, l.Caption} {
		p.b.frame(p.dst, rect, 1, ui.PanelEdge)
	}
	p.flush()
	if l.LegendShown && !l.LegendOver {
		r.drawLegend(dst, l)
	}
}

// drawLegend draws the legend, through its cached image.
func (r *Renderer) drawLegend(dst surface, l ui.Layout) {
	if r.legend == nil || r.staticFor.Legend != l.Legend || r.staticFor.S != l.S || r.staticFor.Lang != l.Lang {
		if r.legend != nil {
			r.legend.Deallocate()
		}
		r.legend = ebiten.NewImage(int(math.Ceil(l.Legend.W)), int(math.Ceil(l.Legend.H)))
		r.staticFor = l
		moved := l
		moved.Legend.X, moved.Legend.Y = 0, 0
		p := &painter{dst: r.legend, fonts: r.Fonts, s: l.S}
		r.legend.Fill(ui.Background)
		p.b.frame(p.dst, moved.Legend, 1, ui.PanelEdge)
		r.legendItems(p, moved)
	}
	op := &ebiten.DrawImageOptions{}
	op.GeoM.Translate(l.Legend.X, l.Legend.Y)
	dst.DrawImage(r.legend, op)
}

// toolbar draws the buttons' boxes and returns the header's words.
func (r *Renderer) toolbar(p *painter, a *ui.App, f *ui.Frame) []ui.TextItem {
	for _, b := range f.L.Buttons {
		p.b.rect(p.dst, b.Rect, ui.Panel)
		p.b.frame(p.dst, b.Rect, 1, ui.PanelEdge)
	}
	return f.L.PlaceHeader(a.Header())
}

// caption fills the caption area's band (a question, a violation) and
// returns its words.
func (r *Renderer) caption(p *painter, a *ui.App, f *ui.Frame) []ui.TextItem {
	c := a.Caption()
	items, band := f.L.PlaceCaption(c)
	if c.Alarm {
		p.b.rect(p.dst, f.L.Caption.Inset(1), ui.Vermillion)
	}
	if band.W > 0 {
		p.b.rect(p.dst, band, c.BandFill)
	}
	if a.Lesson != nil && a.Narration().Waiting {
		// A thin line under the caption: the next step has come and waits
		// for this one to be read.
		r0 := f.L.Caption
		p.b.rect(p.dst, ui.Rect{X: r0.X + 1, Y: r0.Bottom() - f.L.Px(3), W: r0.W - 2, H: f.L.Px(2)}, ui.Orange)
	}
	return items
}

// timeline draws the marks and the scrubber.
func (r *Renderer) timeline(p *painter, f *ui.Frame) {
	l := f.L
	s := l.S
	tr := f.Track
	p.b.rect(p.dst, tr, ui.Panel)
	if hx := ui.XAtTime(tr, f.Span, f.Head); hx < tr.Right() {
		p.b.rect(p.dst, ui.Rect{X: hx, Y: tr.Y, W: tr.Right() - hx, H: tr.H}, ui.LightGrey)
	}
	rows := float64(len(ui.MarkKinds))
	rowH := tr.H / rows
	rowOf := map[ui.MarkKind]int{}
	for i, k := range ui.MarkKinds {
		rowOf[k.Kind] = i
	}
	// One quad per pixel column and kind, however many events fall there.
	seen := map[[2]int]bool{}
	for _, m := range f.Marks {
		x := ui.XAtTime(tr, f.Span, m.At)
		row, ok := rowOf[m.Kind]
		if m.Kind == ui.MarkViolation {
			p.b.rect(p.dst, ui.Rect{X: x - 2*s, Y: tr.Y, W: 4 * s, H: tr.H}, ui.Black)
			continue
		}
		if !ok {
			continue
		}
		key := [2]int{int(x), row}
		if seen[key] {
			continue
		}
		seen[key] = true
		p.b.rect(p.dst, ui.Rect{X: math.Floor(x), Y: tr.Y + float64(row)*rowH + 1, W: math.Max(1, 2*s), H: rowH - 2}, ui.MarkColor(m.Kind))
	}
	x := ui.XAtTime(tr, f.Span, f.View.Now)
	p.b.rect(p.dst, ui.Rect{X: x - 1*s, Y: tr.Y - 3*s, W: 2 * s, H: tr.H + 6*s}, ui.Ink)
	p.b.poly(p.dst, []ui.Point{{X: x - 6*s, Y: tr.Y - 6*s}, {X: x + 6*s, Y: tr.Y - 6*s}, {X: x, Y: tr.Y + 2*s}}, ui.Ink)
}

// nameOf returns a member's name by raft ID.
func nameOf(v sim.View, id uint64) string { return ui.NameOf(v, id) }
