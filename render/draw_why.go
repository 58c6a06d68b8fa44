package render

import (
	"fmt"
	"math"
	"strings"

	"github.com/hajimehoshi/ebiten/v2/text/v2"

	"github.com/raftsim/raftsim/render/ui"
)

// whyCard draws the "why" card of a clicked message (ui.WhyCard) over the
// ring panel: the message, raft's own log lines that led to it (with a
// Chinese gloss in a Chinese window), and the function around the
// deciding line, numbered, that line highlighted. Source is set in Go
// Mono at the small text's size, so that it reads from the back of the
// room like the rest of the panel.
func (r *Renderer) whyCard(p *painter, f *ui.Frame, c *ui.WhyCard) {
	s := f.L.S
	lang := f.L.Lang
	small, normal := r.Fonts.Small, r.Fonts.Normal
	mono := r.Fonts.MonoFace(f.L.Small)
	lh := f.L.SmallH()
	ring := f.L.Ring
	box := ui.Rect{X: ring.X + 6*s, Y: ring.Y + 6*s, W: ring.W - 12*s, H: ring.H - 12*s}
	p.b.rect(p.dst, ui.Rect{X: box.X + 3*s, Y: box.Y + 3*s, W: box.W, H: box.H}, alpha(ui.Black, 0.25))
	p.b.rect(p.dst, box, ui.Panel)
	p.b.frame(p.dst, box, 2*s, ui.Ink)
	p.flush()
	x, w := box.X+8*s, box.W-16*s
	y := box.Y + 6*s
	p.text(fit(c.Title(lang), normal, w), normal, x, y, ui.Ink, text.AlignStart)
	y += ui.LineH(f.L.Normal) + 2*s
	p.text(fit(c.Lede, small, w), small, x, y, ui.Muted, text.AlignStart)
	y += lh
	// raft's lines, each wrapped (the decision is at their end): at most
	// about two fifths of the card, the last ones, since the decision
	// comes last.
	var rows []struct {
		text  string
		gloss bool
	}
	for i, ln := range c.Log {
		for _, part := range wrap(ln, mono, w, 3) {
			rows = append(rows, struct {
				text  string
				gloss bool
			}{part, false})
		}
		if g := c.Gloss[i]; g != "" {
			rows = append(rows, struct {
				text  string
				gloss bool
			}{"  " + g, true})
		}
	}
	if room := int(math.Max(1, (box.H*0.4)/lh)); len(rows) > room {
		rows = rows[len(rows)-room:]
	}
	for _, r := range rows {
		if r.gloss {
			p.text(fit(r.text, small, w), small, x, y, ui.Blue, text.AlignStart)
		} else {
			p.text(r.text, mono, x, y, ui.Ink, text.AlignStart)
		}
		y += lh
	}
	if len(c.Source) == 0 {
		if c.Loading {
			p.text(fit(lang.T("loading raft's source…"), small, w), small, x, y+4*s, ui.Muted, text.AlignStart)
		}
		p.text(lang.T("(click elsewhere to close)"), small, x, box.Bottom()-lh-4*s, ui.Muted, text.AlignStart)
		return
	}
	y += 4 * s
	p.text(fit(c.SourceTitle(lang), small, w), small, x, y, ui.Blue, text.AlignStart)
	y += lh
	first, lines := c.Window(int((box.Bottom() - y - lh - 8*s) / lh))
	lines = dedent(lines)
	numW := width(fmt.Sprintf("%d ", first+len(lines)), mono)
	for i, ln := range lines {
		n := first + i
		if n == c.Hi {
			p.b.rect(p.dst, ui.Rect{X: x - 4*s, Y: y, W: w + 8*s, H: lh}, alpha(ui.Yellow, 0.35))
			p.flush()
		}
		p.text(fmt.Sprint(n), mono, x+numW-width(" ", mono), y, ui.Muted, text.AlignEnd)
		p.text(fit(ln, mono, w-numW), mono, x+numW, y, ui.Ink, text.AlignStart)
		y += lh
	}
	p.text(lang.T("(click elsewhere to close)"), small, x, box.Bottom()-lh-4*s, ui.Muted, text.AlignStart)
}

// dedent sets Go's tabs as four spaces and takes away the indentation the
// lines share, so that a deep line inside a long function still fits.
func dedent(lines []string) []string {
	out := make([]string, len(lines))
	common := -1
	for i, ln := range lines {
		out[i] = expandTabs(ln)
		if t := strings.TrimLeft(out[i], " "); t != "" {
			if n := len(out[i]) - len(t); common < 0 || n < common {
				common = n
			}
		}
	}
	for i := range out {
		if len(out[i]) >= common && common > 0 {
			out[i] = out[i][common:]
		}
	}
	return out
}

// expandTabs sets Go's tabs as four spaces.
func expandTabs(s string) string {
	out := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); i++ {
		if s[i] == '\t' {
			out = append(out, "    "...)
		} else {
			out = append(out, s[i])
		}
	}
	return string(out)
}
