package render

import (
	"image/color"
	"math"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text/v2"

	"github.com/raftsim/raftsim/render/ui"
)

// painter draws onto one image: shapes go into a batch, text is drawn at
// once, so callers flush the batch before the text that goes on top of it.
type painter struct {
	dst   surface
	b     batch
	fonts *Fonts
	s     float64 // the layout's scale
	// tv and ti are text's scratch: the vertices and indices that draw
	// a text's letters.
	tv []ebiten.Vertex
	ti []uint16
}

// layoutKey names a text as laid out: its string, face and alignment.
type layoutKey struct {
	s     string
	face  text.Face
	align text.Align
}

// layoutCache keeps texts' letters as text.AppendGlyphs lays them out at
// the origin. A frame draws the same few hundred texts as the last one
// (a message's words, the members' labels), and laying one out again,
// even from ebiten's own caches, cost about 0.7 ms of a frame's CPU in
// the benchmark's scene. The letters depend on nothing but the key: a
// text drawn at x, y is its letters moved by x, y. Kept letters keep
// their images alive, so the letters atlas, keyed by image, stays valid.
type layoutCache map[layoutKey][]text.Glyph

// layoutCacheMax bounds the cache; when it is full it starts again.
const layoutCacheMax = 4096

var layouts = layoutCache{}

func (c layoutCache) glyphs(s string, face text.Face, align text.Align) []text.Glyph {
	k := layoutKey{s: s, face: face, align: align}
	if gs, ok := c[k]; ok {
		return gs
	}
	if len(c) >= layoutCacheMax {
		clear(c)
	}
	gs := text.AppendGlyphs(nil, s, face, &text.LayoutOptions{PrimaryAlign: align})
	c[k] = gs
	return gs
}

func (p *painter) flush() { p.b.flush(p.dst) }

// text draws s with its top-left (or top-centre, top-right by align) at x, y.
func (p *painter) text(s string, face text.Face, x, y float64, c color.Color, align text.Align) {
	if s == "" {
		return
	}
	// As text.Draw draws it (each letter's image at its place, its
	// colour scaled by c, premultiplied), but in one call: the letters
	// are copied into an atlas.
	if letters.full {
		letters.reset()
	}
	cr, cg, cb, ca := c.RGBA()
	r, g, b, a := float32(cr)/0xffff, float32(cg)/0xffff, float32(cb)/0xffff, float32(ca)/0xffff
	vs, is := p.tv[:0], p.ti[:0]
	for _, gl := range layouts.glyphs(s, face, align) {
		if gl.Image == nil {
			continue
		}
		at, ok := letters.letter(gl.Image)
		if !ok {
			op := &ebiten.DrawImageOptions{}
			op.GeoM.Translate(gl.X+x, gl.Y+y)
			op.ColorScale.ScaleWithColor(c)
			p.dst.DrawImage(gl.Image, op)
			continue
		}
		if len(vs)+4 > math.MaxUint16 {
			p.dst.DrawTriangles(vs, is, letters.img, &ebiten.DrawTrianglesOptions{ColorScaleMode: ebiten.ColorScaleModePremultipliedAlpha})
			vs, is = vs[:0], is[:0]
		}
		dx, dy := drawImagePixel(float32(gl.X+x)), drawImagePixel(float32(gl.Y+y))
		w, h := float32(at.Dx()), float32(at.Dy())
		sx, sy := float32(at.Min.X), float32(at.Min.Y)
		first := uint16(len(vs))
		for _, k := range [4][2]float32{{0, 0}, {1, 0}, {1, 1}, {0, 1}} {
			vs = append(vs, ebiten.Vertex{DstX: dx + k[0]*w, DstY: dy + k[1]*h, SrcX: sx + k[0]*w, SrcY: sy + k[1]*h, ColorR: r, ColorG: g, ColorB: b, ColorA: a})
		}
		is = append(is, first, first+1, first+2, first, first+2, first+3)
	}
	if len(is) > 0 {
		p.dst.DrawTriangles(vs, is, letters.img, &ebiten.DrawTrianglesOptions{ColorScaleMode: ebiten.ColorScaleModePremultipliedAlpha})
	}
	p.tv, p.ti = vs, is
}

// drawImagePixel moves a destination coordinate as ebiten's DrawImage
// does (graphics.adjustDestinationPixel: to a third of a pixel, never a
// pixel's centre), so that text drawn as triangles lands where text.Draw
// put it.
func drawImagePixel(x float32) float32 {
	ix := float32(math.Floor(float64(x)))
	switch frac := x - ix; {
	case frac < 3.0/16:
		return ix
	case frac < 8.0/16:
		return ix + 5.0/16
	case frac < 13.0/16:
		return ix + 11.0/16
	default:
		return ix + 1
	}
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
