package render

import (
	"image/color"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text/v2"

	"github.com/raftsim/raftsim/render/ui"
)

// painter draws onto one image: shapes go into a batch, text is drawn at
// once, so callers flush the batch before the text that goes on top of it.
type painter struct {
	dst   *ebiten.Image
	b     batch
	fonts *Fonts
	s     float64 // the layout's scale
}

func (p *painter) flush() { p.b.flush(p.dst) }

// text draws s with its top-left (or top-centre, top-right by align) at x, y.
func (p *painter) text(s string, face text.Face, x, y float64, c color.Color, align text.Align) {
	if s == "" {
		return
	}
	op := &text.DrawOptions{}
	op.GeoM.Translate(x, y)
	op.ColorScale.ScaleWithColor(c)
	op.PrimaryAlign = align
	text.Draw(p.dst, s, face, op)
}

// item draws a placed text: in its box, aligned as it says, centred
// vertically on the box.
func (p *painter) item(t ui.TextItem) {
	if t.S == "" {
		return
	}
	face := p.fonts.Face(t.Size)
	m := face.Metrics()
	y := t.R.Y + (t.R.H-(m.HAscent+m.HDescent))/2
	x, align := t.R.X, text.AlignStart
	switch t.Align {
	case ui.AlignCenter:
		x, align = t.R.X+t.R.W/2, text.AlignCenter
	case ui.AlignEnd:
		x, align = t.R.Right(), text.AlignEnd
	}
	p.text(t.S, face, x, y, t.Color, align)
}

// plates fills the plates behind the texts that have one (into the
// batch, before the texts are drawn).
func (p *painter) plates(items []ui.TextItem) {
	for _, t := range items {
		if t.Plate.A != 0 && t.S != "" {
			p.b.rect(p.dst, t.R, t.Plate)
		}
	}
}

// width returns how wide s is drawn in face.
func width(s string, face text.Face) float64 { return text.Advance(s, face) }

// fit shortens s with an ellipsis until it is at most w wide.
func fit(s string, face text.Face, w float64) string {
	if w <= 0 {
		return ""
	}
	if width(s, face) <= w {
		return s
	}
	r := []rune(s)
	lo, hi := 0, len(r)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if width(string(r[:mid])+"…", face) <= w {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return ""
	}
	return string(r[:lo]) + "…"
}

// pale mixes c with white: k = 0 is c, 1 is white.
func pale(c color.RGBA, k float64) color.RGBA {
	mix := func(v uint8) uint8 { return uint8(float64(v) + (255-float64(v))*k) }
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), 0xff}
}

// alpha returns c at opacity a (straight alpha, as the batch draws).
func alpha(c color.RGBA, a float64) color.RGBA {
	c.A = uint8(255 * a)
	return c
}

var white = color.RGBA{0xff, 0xff, 0xff, 0xff}

// textOn returns the text colour that reads on a fill.
func textOn(fill color.RGBA) color.RGBA {
	if ui.IsDark(fill) {
		return white
	}
	return ui.Ink
}

// wrap breaks s into at most n lines of at most w, at spaces where it can
// and anywhere in text without spaces (Chinese); the last line ends in an
// ellipsis if s does not fit.
func wrap(s string, face text.Face, w float64, n int) []string {
	var lines []string
	rest := []rune(s)
	for len(rest) > 0 && len(lines) < n {
		if len(lines) == n-1 || width(string(rest), face) <= w {
			lines = append(lines, fit(string(rest), face, w))
			break
		}
		// The longest prefix that fits, backed up to a space if there is one.
		lo, hi := 1, len(rest)
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if width(string(rest[:mid]), face) <= w {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		cut := lo
		for i := lo; i > lo/2; i-- {
			if rest[i-1] == ' ' {
				cut = i
				break
			}
		}
		lines = append(lines, strings.TrimSpace(string(rest[:cut])))
		rest = rest[cut:]
	}
	return lines
}
