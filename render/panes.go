package render

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"path/filepath"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text/v2"

	"github.com/raftsim/raftsim/outfile"
	"github.com/raftsim/raftsim/render/present"
	"github.com/raftsim/raftsim/render/ui"
	"github.com/raftsim/raftsim/sim"
)

// PanesGame is the ebiten.Game of a comparison: the panes of ui.Panes,
// each drawn by a Renderer of its own (the single-world drawing, into an
// image of the pane's size), under a band with its label; the first
// divergence marked on every pane's timeline and the member it names
// ringed in every pane.
type PanesGame struct {
	P     *ui.Panes
	fonts *Fonts
	rs    []*Renderer
	imgs  []*ebiten.Image
	opt   Options
	in    inputReader
	err   error
	shot  bool

	canvas *ebiten.Image
}

// NewPanesGame makes the game of panes, drawn with fonts.
func NewPanesGame(p *ui.Panes, f *Fonts, title string, extra []HelpSection, opt Options) *PanesGame {
	g := &PanesGame{P: p, fonts: f, opt: opt, shot: opt.ScreenshotOut != ""}
	for i := range p.Apps {
		r := NewRenderer(f, title+" — "+p.Labels[i])
		r.ExtraHelp = extra
		g.rs = append(g.rs, r)
		g.imgs = append(g.imgs, nil)
		p.Apps[i].Screenshot = g.saveShot
	}
	return g
}

// Err returns what ended the game, if it was an error.
func (g *PanesGame) Err() error { return g.err }

// Update runs one tick of every pane, in lockstep.
func (g *PanesGame) Update() error {
	select {
	case <-g.opt.Stop:
		return errDone
	default:
	}
	if g.opt.BeforeUpdate != nil {
		g.opt.BeforeUpdate()
	}
	if g.shot {
		return g.screenshotAndExit()
	}
	if g.opt.WalkDir != "" {
		return g.walk()
	}
	for _, ev := range g.in.read(g.P.Lead().Box.Open) {
		g.P.Handle(ev)
	}
	g.P.Update()
	return nil
}

// PlayTo plays every pane to t, in lockstep: the leader as the window's
// PlayTo does, the others after it.
func (g *PanesGame) PlayTo(t sim.Time) error {
	lead := &Game{App: g.P.Lead()}
	err := lead.PlayTo(t)
	g.P.Sync()
	return err
}

func (g *PanesGame) screenshotAndExit() error {
	if err := g.PlayTo(sim.Time(g.opt.ScreenshotAt)); err != nil {
		g.err = err
		return errDone
	}
	for _, in := range g.opt.ShotInput {
		kind, arg, _ := strings.Cut(in, ":")
		switch kind {
		case "key":
			g.P.Handle(ui.Key(arg, false))
		case "type":
			g.P.Handle(ui.Type(arg))
		case "click":
			f := ui.BuildFrame(g.P.Lead())
			pt, ok := f.Where(arg)
			if !ok {
				g.err = fmt.Errorf("--input %s: nothing named %q on screen", in, arg)
				return errDone
			}
			r, z := g.P.Rect(0, len(g.P.Apps)), g.P.Zoom(len(g.P.Apps))
			for _, ev := range ui.Click(ui.Point{X: pt.X*z + r.X, Y: pt.Y*z + r.Y}, false) {
				g.P.Handle(ev)
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

// Draw paints every pane, its label and the divergence marks.
func (g *PanesGame) Draw(screen *ebiten.Image) {
	screen.Fill(ui.Background)
	n := len(g.P.Apps)
	for i, a := range g.P.Apps {
		r := g.P.Rect(i, n)
		w, h := int(a.L.W), int(a.L.H)
		if g.imgs[i] == nil || g.imgs[i].Bounds().Dx() != w || g.imgs[i].Bounds().Dy() != h {
			if g.imgs[i] != nil {
				g.imgs[i].Deallocate()
			}
			g.imgs[i] = ebiten.NewImage(w, h)
		}
		f := ui.BuildFrame(a)
		g.rs[i].DrawFrame(g.imgs[i], a, f)
		g.marks(g.imgs[i], f, i)
		op := &ebiten.DrawImageOptions{Filter: ebiten.FilterLinear}
		if z := g.P.Zoom(n); z < 1 {
			op.GeoM.Scale(z, z)
		}
		op.GeoM.Translate(r.X, r.Y)
		screen.DrawImage(g.imgs[i], op)
	}
	g.labels(screen)
	if g.opt.AfterDraw != nil {
		g.opt.AfterDraw()
	}
}

// marks draws, in pane i, where its trace first differs from the first
// pane's (for the first pane: the earliest of those): a line across its
// timeline at that instant, and a ring around each member the differing
// events name.
func (g *PanesGame) marks(dst *ebiten.Image, f *ui.Frame, i int) {
	d, _ := g.P.DivergedAt(i)
	if d == nil {
		return
	}
	s := f.L.S
	p := &painter{dst: dst, fonts: g.fonts, s: s}
	tr := f.Track
	x := ui.XAtTime(tr, f.Span, sim.Time(d.T))
	if x >= tr.X && x <= tr.Right() {
		p.b.rect(p.dst, ui.Rect{X: x - 2*s, Y: tr.Y - 4*s, W: 4 * s, H: tr.H + 8*s}, ui.Vermillion)
		p.b.poly(p.dst, []ui.Point{{X: x - 7*s, Y: tr.Y - 9*s}, {X: x + 7*s, Y: tr.Y - 9*s}, {X: x, Y: tr.Y - 1*s}}, ui.Vermillion)
	}
	for _, name := range g.P.DivergedNodes(i) {
		if k, ok := f.Names[name]; ok {
			p.b.ring(p.dst, f.Ring.Pos[k], f.Ring.NodeR*1.45, 4*s, ui.Vermillion)
		}
	}
	p.flush()
}

// labels draws each pane's label in the band over it, large, and under
// it what the pane's run does where it first differs.
func (g *PanesGame) labels(dst *ebiten.Image) {
	n := len(g.P.Apps)
	s := g.P.Scale
	p := &painter{dst: dst, fonts: g.fonts, s: s}
	var items []ui.TextItem
	for i := range g.P.Apps {
		c := g.P.Cell(i, n)
		band := ui.Rect{X: c.X, Y: c.Y, W: c.W, H: g.P.LabelH()}
		p.b.rect(p.dst, band, ui.Panel)
		p.b.frame(p.dst, band, math.Max(1, s), ui.PanelEdge)
		if c.X > 0 {
			p.b.rect(p.dst, ui.Rect{X: c.X - s, Y: c.Y, W: 2 * s, H: c.H}, ui.Ink)
		}
		if c.Y > 0 {
			p.b.rect(p.dst, ui.Rect{X: c.X, Y: c.Y - s, W: c.W, H: 2 * s}, ui.Ink)
		}
		top, sub := g.P.LabelRects(i)
		items = append(items, g.fit(g.P.Labels[i], ui.LabelSize*s, top, ui.Ink))
		if line := g.P.DivergedLine(i); line != "" {
			items = append(items, g.fit(line, ui.LabelSubSize*s, sub, ui.Vermillion))
		}
	}
	p.flush()
	for _, t := range items {
		p.item(t)
	}
}

// fit is a centred text in r, made smaller until it fits r's width.
func (g *PanesGame) fit(str string, size float64, r ui.Rect, c color.RGBA) ui.TextItem {
	for size > 10 && textWidth(g.fonts, str, size) > r.W-8 {
		size--
	}
	return ui.TextItem{S: str, Size: size, R: r, Align: ui.AlignCenter, Color: c, Essential: true}
}

// writePNG draws a frame of the window into an image and saves it.
func (g *PanesGame) writePNG(path string) (string, error) {
	w, h := int(g.P.W), int(g.P.H)
	if g.canvas == nil || g.canvas.Bounds().Dx() != w || g.canvas.Bounds().Dy() != h {
		g.canvas = ebiten.NewImage(w, h)
	}
	g.Draw(g.canvas)
	rgba := image.NewRGBA(g.canvas.Bounds())
	g.canvas.ReadPixels(rgba.Pix)
	if g.opt.WriteFile != nil {
		var buf strings.Builder
		if err := png.Encode(&buf, rgba); err != nil {
			return "", err
		}
		return g.opt.WriteFile(filepath.Base(path), []byte(buf.String()))
	}
	if dir := filepath.Dir(path); dir != "" {
		if _, err := outfile.Dir(dir); err != nil {
			return "", err
		}
	}
	f, err := outfile.Create(path)
	if err != nil {
		return "", err
	}
	defer f.Abort()
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(f, rgba); err != nil {
		return "", err
	}
	return path, f.Commit()
}

func (g *PanesGame) saveShot() (string, error) {
	a := g.P.Lead()
	name := fmt.Sprintf("raftsim-compare-t%dms.png", a.S.Now().Duration().Milliseconds())
	return g.writePNG(filepath.Join(g.opt.ShotDir, name))
}

// Layout keeps the panes laid out for the window.
func (g *PanesGame) Layout(w, h int) (int, int) {
	if g.shot || g.opt.WalkDir != "" {
		return int(g.P.W), int(g.P.H)
	}
	g.P.Resize(w, h)
	return w, h
}

// walk steps through the first pane's lesson as a presenter does and, at
// each of its narrative steps, brings the others to its instant and saves
// a PNG of the window (step-001.png, ...; end.png). Then each other pane
// leads in turn, so that every pane's steps are pictured
// (pane-2/step-001.png, ...). WalkOut gets, for each picture, the line
// the one-world walk writes (the leading pane after the first named:
// "NAME pane 2 step 3 of 9 at ..."; the caption area is the leading
// pane's, on the window), then for every pane its label ("NAME step 3 of
// 9 label pre_vote: true"), what its step names (its shows:, as the
// one-world walk's shows lines) and where its trace first differs.
func (g *PanesGame) walk() error {
	defer func() { g.opt.WalkDir = "" }()
	for lead := range g.P.Apps {
		if err := g.walkLed(lead); err != nil {
			g.err = err
			return errDone
		}
	}
	return errDone
}

// walkLed walks with pane lead leading.
func (g *PanesGame) walkLed(lead int) error {
	a := g.P.Apps[lead]
	if a.Lesson == nil {
		return errors.New("--walk: the panes hold no lesson")
	}
	if err := a.Seek(0); err != nil {
		return err
	}
	dir := g.opt.WalkDir
	if lead > 0 {
		dir = filepath.Join(dir, fmt.Sprintf("pane-%d", lead+1))
	}
	name := a.Lesson.Lesson().Name
	// The lines name the leading pane after the first: "pre-vote-compare
	// pane 2 step 3 of 9 at ...".
	pane := ""
	if lead > 0 {
		pane = fmt.Sprintf("pane %d ", lead+1)
	}
	sync := func() {
		t := a.S.Now()
		for i, b := range g.P.Apps {
			if i != lead {
				b.Follow(t)
			}
		}
		g.P.Sync()
	}
	shot := func(file, what string) error {
		sync()
		if _, err := g.writePNG(filepath.Join(dir, file)); err != nil {
			return err
		}
		if g.opt.WalkOut == nil {
			return nil
		}
		n := len(g.P.Apps)
		r, z := g.P.Rect(lead, n), g.P.Zoom(n)
		c := a.L.Caption
		g.opt.WalkOut(fmt.Sprintf("%s %s%s at %s; caption area %.0f %.0f %.0f %.0f", name, pane, what, a.S.Now(),
			r.X+c.X*z, r.Y+c.Y*z, c.W*z, c.H*z))
		// Every pane's label, and what every pane's step names (all
		// are on the screen).
		for i, b := range g.P.Apps {
			g.opt.WalkOut(fmt.Sprintf("%s %s%s label %s", name, pane, what, g.P.Labels[i]))
			for _, words := range b.ShowsText() {
				g.opt.WalkOut(fmt.Sprintf("%s %s%s shows %s", name, pane, what, strings.Join(words, " | ")))
			}
			if line := g.P.DivergedLine(i); line != "" {
				g.opt.WalkOut(fmt.Sprintf("%s %s%s diverged in pane %d %s", name, pane, what, i+1, line))
			}
		}
		return nil
	}
	for presses := 0; presses < 10_000; presses++ {
		before := a.Narration()
		a.Handle(ui.Key("pagedown", false))
		now := a.Narration()
		if now.Kind == present.NarrEnd {
			return shot("end.png", "end")
		}
		if now.Step == before.Step {
			continue
		}
		if err := shot(fmt.Sprintf("step-%03d.png", now.Step), fmt.Sprintf("step %d of %d", now.Step, now.Steps)); err != nil {
			return err
		}
	}
	return fmt.Errorf("--walk: %s did not end after 10,000 presses", name)
}

// RunPanes opens the window of panes and runs it until it is closed (or a
// screenshot or walk ends it).
func RunPanes(g *PanesGame) error {
	ebiten.SetWindowTitle("raftsim — " + g.opt.Title)
	ebiten.SetWindowSize(g.opt.Width, g.opt.Height)
	ebiten.SetWindowResizingMode(ebiten.WindowResizingModeEnabled)
	ebiten.SetTPS(ui.TPS)
	err := ebiten.RunGame(g)
	if err != nil && !errors.Is(err, ebiten.Termination) {
		return err
	}
	return g.err
}

// textWidth is how wide s is drawn at size.
func textWidth(f *Fonts, s string, size float64) float64 {
	w, _ := text.Measure(s, f.Face(size), 0)
	return w
}
