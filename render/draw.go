package render

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text/v2"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/render/ui"
	"github.com/raftsim/raftsim/sim"
)

// Renderer paints Frames. It keeps the parts that do not change from frame
// to frame (panel backgrounds and the legend) in an offscreen image.
type Renderer struct {
	Fonts *Fonts
	// Title names what is shown: "sandbox", or the scenario's name.
	Title string

	// Baseline draws nothing but the background: the benchmark's measure
	// of what a frame costs before raftsim draws anything.
	Baseline bool

	legend    *ebiten.Image
	staticFor ui.Layout
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
		return
	}
	r.drawStatic(dst, f.L)
	p := &painter{dst: dst, fonts: r.Fonts, s: f.L.Scale}
	var texts []func()
	texts = append(texts, r.toolbar(p, a, f)...)
	texts = append(texts, r.ring(p, a, f)...)
	texts = append(texts, r.logs(p, f)...)
	texts = append(texts, r.state(p, f)...)
	texts = append(texts, r.clients(p, a, f)...)
	texts = append(texts, r.caption(p, a, f)...)
	texts = append(texts, r.timeline(p, f)...)
	texts = append(texts, r.commandBox(p, a, f)...)
	p.flush()
	for _, t := range texts {
		t()
	}
	r.overlays(p, a, f)
}

// drawStatic draws the background, the panels' edges and titles, and the
// legend. Software GL pays for every pixel it fills, so the panels are
// only outlined on a cleared background, and only the legend (text heavy,
// never changing) is cached in an offscreen image.
func (r *Renderer) drawStatic(dst *ebiten.Image, l ui.Layout) {
	if r.legend == nil || r.staticFor.Legend != l.Legend || r.staticFor.Scale != l.Scale {
		if r.legend != nil {
			r.legend.Deallocate()
		}
		r.legend = ebiten.NewImage(int(l.Legend.W), int(l.Legend.H))
		r.staticFor = l
		p := &painter{dst: r.legend, fonts: r.Fonts, s: l.Scale}
		r.legend.Fill(ui.Background)
		moved := l
		moved.Legend.X, moved.Legend.Y = 0, 0
		r.legendPanel(p, moved)
	}
	dst.Fill(ui.Background)
	p := &painter{dst: dst, fonts: r.Fonts, s: l.Scale}
	p.b.rect(p.dst, l.Toolbar, ui.LightGrey)
	p.b.rect(p.dst, l.Timeline, ui.LightGrey)
	for _, rect := range []ui.Rect{l.Ring, l.Logs, l.State, l.Clients, l.Caption} {
		p.b.frame(p.dst, rect, 1, ui.PanelEdge)
	}
	p.flush()
	op := &ebiten.DrawImageOptions{}
	op.GeoM.Translate(l.Legend.X, l.Legend.Y)
	dst.DrawImage(r.legend, op)
	title := func(rect ui.Rect, s string) {
		p.text(l.Lang.T(s), r.Fonts.Normal, rect.X+8*l.Scale, rect.Y+4*l.Scale, ui.Muted, text.AlignStart)
	}
	title(l.Logs, i18n.N("Logs  (one cell per entry; colour = term)"))
	title(l.State, i18n.N("State machines  (key = value; differs from the leader's = highlighted)"))
	title(l.Clients, i18n.N("Client requests  (newest first)"))
}

// legendPanel draws the legend panel into its cached image.
func (r *Renderer) legendPanel(p *painter, l ui.Layout) {
	p.b.frame(p.dst, l.Legend, 1, ui.PanelEdge)
	p.flush()
	r.legendItems(p, l)
}

func fmtDur(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}

// toolbar draws the time, speed, state and buttons.
func (r *Renderer) toolbar(p *painter, a *ui.App, f *ui.Frame) []func() {
	l := f.L
	s := l.Scale
	for _, b := range l.Buttons {
		p.b.rect(p.dst, b.Rect, ui.Panel)
		p.b.frame(p.dst, b.Rect, 1, ui.PanelEdge)
	}
	lang := l.Lang
	state := lang.T("|| paused")
	if a.Playing {
		state = lang.T("▶ playing")
	}
	if a.Paused != "" {
		state = lang.T("|| scenario pause")
	}
	w := a.S.World()
	left := lang.F("raftsim · %s    t = %s    speed %s    %s", r.Title, w.Now(), a.SpeedLabel(), state)
	if a.S.Now() < a.S.Head() {
		left += lang.F("    ◀ viewing the past (head %s)", a.S.Head())
	}
	return []func(){func() {
		y := l.Toolbar.Y + (l.Toolbar.H-l.LineH())/2
		maxW := l.W - 16*s
		if len(l.Buttons) > 0 {
			maxW = l.Buttons[0].Rect.X - 16*s
		}
		p.text(fit(left, r.Fonts.Normal, maxW), r.Fonts.Normal, 10*s, y, ui.Ink, text.AlignStart)
		for _, b := range l.Buttons {
			p.text(lang.T(b.Label), r.Fonts.Normal, b.Rect.X+b.Rect.W/2, b.Rect.Y+(b.Rect.H-l.LineH())/2, ui.Ink, text.AlignCenter)
		}
	}}
}

// caption draws the latest caption (or a hint) and the status line.
func (r *Renderer) caption(p *painter, a *ui.App, f *ui.Frame) []func() {
	l := f.L
	s := l.Scale
	rect := l.Caption
	capText, col := latestCaption(a), ui.Ink
	if a.Paused != "" {
		capText = "|| " + a.Paused + l.Lang.T("   — press space to continue")
		p.b.rect(p.dst, rect.Inset(1), ui.Yellow)
	}
	if v := a.S.World().Violation(); v != nil {
		capText, col = l.Lang.T("SAFETY VIOLATION: ")+v.Error(), white
		p.b.rect(p.dst, rect.Inset(1), ui.Vermillion)
	}
	if capText == "" {
		capText, col = l.Lang.T("Click a member for its menu · drag from one member to another to cut the link · press ? for help"), ui.Muted
	}
	status := a.Status
	return []func(){func() {
		statusW := 0.0
		if status != "" {
			statusW = math.Min(width(status, r.Fonts.Normal), rect.W*0.4)
			p.text(fit(status, r.Fonts.Normal, statusW), r.Fonts.Normal, rect.Right()-8*s, rect.Y+(rect.H-l.LineH())/2, ui.Muted, text.AlignEnd)
		}
		// One line in the big face if it fits, else two in the normal one.
		w := rect.W - statusW - 32*s
		face := r.Fonts.Big
		if width(capText, face) <= w {
			p.text(capText, face, rect.X+10*s, rect.Y+(rect.H-22*s)/2, col, text.AlignStart)
			return
		}
		face = r.Fonts.Normal
		lines := wrap(capText, face, w, 2)
		for i, ln := range lines {
			p.text(ln, face, rect.X+10*s, rect.Y+(rect.H-float64(len(lines))*l.LineH())/2+float64(i)*l.LineH(), col, text.AlignStart)
		}
	}}
}

// latestCaption returns the scenario's caption, or the latest one in the
// history.
func latestCaption(a *ui.App) string {
	if d := a.S.Driver(); d != nil {
		if c := d.Caption(); c != "" {
			return c
		}
	}
	t, ok := a.S.World().LastCaption()
	if !ok {
		return ""
	}
	for _, pre := range []string{"say: ", "pause: ", "chapter: "} {
		if len(t) > len(pre) && t[:len(pre)] == pre {
			return t[len(pre):]
		}
	}
	return t
}

// timeline draws the marks, the scrubber and the time labels.
func (r *Renderer) timeline(p *painter, f *ui.Frame) []func() {
	l := f.L
	s := l.Scale
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
	now := f.View.Now
	x := ui.XAtTime(tr, f.Span, now)
	p.b.rect(p.dst, ui.Rect{X: x - 1*s, Y: tr.Y - 3*s, W: 2 * s, H: tr.H + 6*s}, ui.Ink)
	p.b.poly(p.dst, []ui.Point{{X: x - 6*s, Y: tr.Y - 6*s}, {X: x + 6*s, Y: tr.Y - 6*s}, {X: x, Y: tr.Y + 2*s}}, ui.Ink)
	return []func(){func() {
		y := tr.Bottom() + 2*s
		face := r.Fonts.Small
		step := ui.TickStep(f.Span, tr.W/(80*s))
		for t := sim.Time(0); t <= f.Span; t += step {
			align := text.AlignCenter
			if t == 0 {
				align = text.AlignStart
			}
			p.text(strconv.FormatFloat(time.Duration(t).Seconds(), 'f', -1, 64)+"s", face, ui.XAtTime(tr, f.Span, t), y, ui.Muted, align)
		}
	}}
}
