package render

import (
	"github.com/hajimehoshi/ebiten/v2/text/v2"

	"github.com/raftsim/raftsim/render/ui"
)

// bugBanner marks a world that runs with injected bugs (sim.Bug), so that
// nobody takes what the window shows for raft's own behaviour: a red band
// across the top of the ring panel, a line for each bug, naming it and
// saying what it breaks.
func (r *Renderer) bugBanner(p *painter, a *ui.App, f *ui.Frame) {
	bugs := a.S.World().Config().Bugs
	if len(bugs) == 0 {
		return
	}
	l := f.L
	s, lang := l.Scale, l.Lang
	band := ui.Rect{X: l.Ring.X + 1, Y: l.Ring.Y + 1, W: l.Ring.W - 2, H: float64(len(bugs))*l.LineH() + 8*s}
	p.b.rect(p.dst, band, ui.Vermillion)
	p.flush()
	for i, b := range bugs {
		line := lang.F("BUG INJECTED: %s (%s)", b.String(), lang.T(b.Summary()))
		p.text(fit(line, r.Fonts.Normal, band.W-16*s), r.Fonts.Normal, band.X+8*s, band.Y+4*s+float64(i)*l.LineH(), white, text.AlignStart)
	}
}
