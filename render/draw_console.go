package render

import (
	"math"

	"github.com/hajimehoshi/ebiten/v2/text/v2"

	"github.com/raftsim/raftsim/render/ui"
)

// commandBox draws the open command box: a header with its keys, the
// scrollback of what the console printed, and the input line with its
// prompt (the virtual time) and cursor.
func (r *Renderer) commandBox(p *painter, a *ui.App, f *ui.Frame) []func() {
	l := f.L
	if l.BoxLines == 0 {
		return nil
	}
	s := l.Scale
	box := l.Box
	in := l.BoxInput()
	p.b.rect(p.dst, box, ui.Panel)
	p.b.frame(p.dst, box, math.Max(1, 1.5*s), ui.Ink)
	p.b.rect(p.dst, in.Inset(math.Round(2*s)), ui.LightGrey)
	lines, scroll := a.Box.Visible(l.BoxLines)
	line, cursor := a.Box.Line()
	prompt := a.Prompt()
	lang := f.L.Lang
	hint := lang.T("Enter runs · ↑ ↓ history · PgUp PgDn scroll · Esc closes")
	if !a.Playing {
		hint = lang.T("paused: answers come as virtual time passes — type wait 100ms, or Esc then space to play · Esc closes")
	}
	return []func(){func() {
		mono, small := r.Fonts.Mono, r.Fonts.Small
		lh := l.BoxLineH()
		x := box.X + 8*s
		y := box.Y + 3*s
		p.text(lang.T("Command box · etcdctl on the cluster on screen"), small, x, y, ui.Blue, text.AlignStart)
		right := hint
		if scroll > 0 {
			right = lang.F("scrolled back %d lines (PgDn)", scroll) + " · " + hint
		}
		p.text(fit(right, small, box.W*0.6), small, box.Right()-8*s, y, ui.Muted, text.AlignEnd)
		y += lh + math.Round(6*s) - 3*s
		top := y
		for i, ln := range lines {
			c := ui.Ink
			switch ln.Kind {
			case ui.LineEcho:
				c = ui.Blue
			case ui.LineError:
				c = ui.Vermillion
			case ui.LineNote:
				c = ui.Muted
			}
			p.text(fit(ln.Text, mono, box.W-16*s), mono, x, top+float64(i)*lh, c, text.AlignStart)
		}
		// The input line: the prompt, the text, and a bar at the cursor,
		// scrolled so that the cursor stays in view.
		ty := in.Y + (in.H-lh)/2
		pw := width(prompt, mono)
		p.text(prompt, mono, x, ty, ui.Blue, text.AlignStart)
		room := in.W - 16*s - pw - 4*s
		rs := []rune(line)
		start := 0
		for start < cursor && width(string(rs[start:cursor]), mono) > room {
			start++
		}
		shown := fit(string(rs[start:]), mono, room)
		p.text(shown, mono, x+pw, ty, ui.Ink, text.AlignStart)
		cx := x + pw + width(string(rs[start:cursor]), mono)
		p.b.rect(p.dst, ui.Rect{X: cx, Y: ty, W: math.Max(1, 1.5*s), H: lh}, ui.Ink)
		p.flush()
	}}
}
