package render

import (
	"math"
	"strings"

	"github.com/hajimehoshi/ebiten/v2/text/v2"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/render/ui"
	"github.com/raftsim/raftsim/sim"
)

// legend draws what every colour, shape and glyph means. It is static, so
// it is drawn once into the cached layer.
func (r *Renderer) legendItems(p *painter, l ui.Layout) {
	s := l.Scale
	rect := l.Legend
	// Condensed to fit: a short window (or a large scale) gets tighter
	// lines, down to what the small font needs.
	lh := math.Round(17 * s)
	if need := r.legendHeight(s); need > rect.H-8*s {
		lh = math.Max(math.Round(13.5*s), math.Floor(lh*(rect.H-8*s)/need))
	}
	gapY := math.Round(4 * s * lh / math.Round(17*s))
	x := rect.X + 10*s
	y := rect.Y + 6*s
	type entry struct {
		draw  func(c ui.Point)
		label string
	}
	var texts []func()
	heading := func(t string) {
		yy := y
		t = l.Lang.T(t)
		texts = append(texts, func() { p.text(t, r.Fonts.Normal, x, yy, ui.Muted, text.AlignStart) })
		y += lh + 2*s
	}
	more := false
	item := func(e entry) {
		if y+lh > rect.Bottom()-4*s {
			more = true
			return
		}
		c := ui.Point{X: x + 9*s, Y: y + lh/2}
		e.draw(c)
		yy := y
		texts = append(texts, func() {
			p.text(fit(l.Lang.T(e.label), r.Fonts.Small, rect.W-34*s), r.Fonts.Small, x+24*s, yy+(lh-l.LineH()*0.85)/2, ui.Ink, text.AlignStart)
		})
		y += lh
	}
	heading(i18n.N("Members (colour + shape)"))
	for _, role := range ui.Roles {
		st := ui.StyleOfRole(role)
		item(entry{func(c ui.Point) {
			R := 6.5 * s
			switch st.Shape {
			case ui.ShapeCircle:
				p.b.circle(p.dst, c, R, st.Fill)
				p.b.ring(p.dst, c, R, s, ui.Ink)
			case ui.ShapeDiamond:
				p.b.poly(p.dst, diamond(c, R*1.2), st.Fill)
				p.b.outline(p.dst, diamond(c, R*1.2), s, ui.Ink)
			case ui.ShapeRing:
				p.b.ring(p.dst, c, R-1*s, 3*s, st.Fill)
			case ui.ShapeSquare:
				p.b.poly(p.dst, square(c, R*0.9), st.Fill)
				p.b.outline(p.dst, square(c, R*0.9), s, ui.Ink)
			}
			if st.Crown {
				p.b.crown(p.dst, ui.Point{X: c.X + 9*s, Y: c.Y - 4*s}, 8*s, ui.Yellow, ui.Ink)
			}
			if st.Cross {
				p.b.cross(p.dst, c, R*0.5, 1.5*s, ui.Ink)
			}
			if st.Pause {
				p.b.rect(p.dst, ui.Rect{X: c.X - 3*s, Y: c.Y - 3*s, W: 2 * s, H: 6 * s}, ui.Ink)
				p.b.rect(p.dst, ui.Rect{X: c.X + 1*s, Y: c.Y - 3*s, W: 2 * s, H: 6 * s}, ui.Ink)
			}
		}, st.Label})
	}
	item(entry{func(c ui.Point) {
		p.b.ring(p.dst, c, 6*s, 2.5*s, ui.LightGrey)
		p.b.arc(p.dst, c, 6*s, 2.5*s, -math.Pi/2, math.Pi*0.8, ui.Orange)
	}, i18n.N("election timer")})
	item(entry{func(c ui.Point) {
		p.b.rect(p.dst, ui.Rect{X: c.X - 8*s, Y: c.Y - 6*s, W: 16 * s, H: 12 * s}, hostFill)
		p.b.frame(p.dst, ui.Rect{X: c.X - 8*s, Y: c.Y - 6*s, W: 16 * s, H: 12 * s}, 1, ui.PanelEdge)
	}, i18n.N("host: a machine and all on it")})
	item(entry{func(c ui.Point) {
		dashedFrame(p, ui.Rect{X: c.X - 8*s, Y: c.Y - 6*s, W: 16 * s, H: 12 * s}, 1.5*s, 3*s, ui.Grey)
	}, i18n.N("host down: all on it is down")})
	y += gapY
	heading(i18n.N("Messages (hollow = reply)"))
	for _, t := range ui.LegendMessages {
		st := ui.StyleOfMessage(t)
		mt := t
		item(entry{func(c ui.Point) {
			r.message(p, ui.MsgDraw{M: sim.MessageView{MsgSummary: sim.MsgSummary{Type: mt}}, P: c, Style: st}, false)
		}, st.Label})
	}
	item(entry{func(c ui.Point) {
		p.b.cross(p.dst, c, 5*s, 2.5*s, ui.Vermillion)
	}, i18n.N("dropped (with its reason)")})
	y += gapY
	heading(i18n.N("Links"))
	item(entry{func(c ui.Point) {
		p.b.dashed(p.dst, ui.Point{X: c.X - 9*s, Y: c.Y}, ui.Point{X: c.X + 9*s, Y: c.Y}, 2*s, 3*s, ui.Vermillion)
		p.b.circle(p.dst, c, 6*s, ui.Vermillion)
		p.b.cross(p.dst, c, 3*s, 1.5*s, white)
	}, i18n.N("cut both ways")})
	item(entry{func(c ui.Point) {
		p.b.dashed(p.dst, ui.Point{X: c.X - 9*s, Y: c.Y}, ui.Point{X: c.X + 4*s, Y: c.Y}, 2*s, 3*s, ui.Vermillion)
		p.b.arrowHead(p.dst, ui.Point{X: c.X + 6*s, Y: c.Y}, ui.Point{X: 1}, 7*s, ui.Vermillion)
		p.b.line(p.dst, ui.Point{X: c.X + 6*s, Y: c.Y - 6*s}, ui.Point{X: c.X + 6*s, Y: c.Y + 6*s}, 2.5*s, ui.Vermillion)
	}, i18n.N("cut one way")})
	y += gapY
	heading(i18n.N("Log cells"))
	item(entry{func(c ui.Point) {
		p.b.rect(p.dst, ui.Rect{X: c.X - 7*s, Y: c.Y - 6*s, W: 14 * s, H: 10 * s}, ui.TermColor(2))
		p.b.rect(p.dst, ui.Rect{X: c.X - 7*s, Y: c.Y + 5*s, W: 14 * s, H: 2.5 * s}, ui.Ink)
	}, i18n.N("committed; bar = applied")})
	item(entry{func(c ui.Point) {
		r := ui.Rect{X: c.X - 7*s, Y: c.Y - 6*s, W: 14 * s, H: 10 * s}
		p.b.rect(p.dst, r, pale(ui.TermColor(2), 0.7))
		p.b.frame(p.dst, r, 1, ui.TermColor(2))
	}, i18n.N("not yet committed")})
	item(entry{func(c ui.Point) {
		r := ui.Rect{X: c.X - 7*s, Y: c.Y - 6*s, W: 14 * s, H: 10 * s}
		p.b.rect(p.dst, r, ui.TermColor(3))
		p.b.frame(p.dst, r, 2*s, ui.Vermillion)
	}, i18n.N("conflicts with the leader")})
	item(entry{func(c ui.Point) {
		p.b.poly(p.dst, []ui.Point{{X: c.X, Y: c.Y - 4*s}, {X: c.X - 5*s, Y: c.Y + 4*s}, {X: c.X + 5*s, Y: c.Y + 4*s}}, ui.Vermillion)
	}, i18n.N("leader's Match for it")})
	y += gapY
	heading(i18n.N("Timeline"))
	for _, k := range ui.MarkKinds {
		kc := ui.MarkColor(k.Kind)
		item(entry{func(c ui.Point) {
			p.b.rect(p.dst, ui.Rect{X: c.X - 1.5*s, Y: c.Y - 6*s, W: 3 * s, H: 12 * s}, kc)
		}, k.Name})
	}
	if more {
		yy := rect.Bottom() - lh - 2*s
		texts = append(texts, func() {
			p.text(l.Lang.T("… (a larger window shows the rest)"), r.Fonts.Small, x, yy, ui.Muted, text.AlignStart)
		})
	}
	p.flush()
	for _, t := range texts {
		t()
	}
}

// legendHeight is how tall the legend is at full spacing.
func (r *Renderer) legendHeight(s float64) float64 {
	lh := math.Round(17 * s)
	items := len(ui.Roles) + 3 + len(ui.LegendMessages) + 1 + 2 + 4 + len(ui.MarkKinds)
	return 6*s + 5*(lh+2*s) + 4*4*s + float64(items)*lh
}

// overlays draws the message details, the open menu and the help overlay,
// on top of everything else.
func (r *Renderer) overlays(p *painter, a *ui.App, f *ui.Frame) {
	s := f.L.Scale
	small := r.Fonts.Small
	lh := f.L.LineH()
	lang := f.L.Lang
	if m := a.Message; m != nil {
		lines := []string{
			sim.DescribeMessageIn(lang, m.MsgSummary),
			lang.F("%s → %s · message %d", m.From, m.To, m.ID),
			lang.F("sent %s · arrives %s", m.SentAt, m.ArriveAt),
			lang.F("term %d · log %d/%d · commit %d · entries %d", m.Term, m.LogTerm, m.Index, m.Commit, m.Entries),
		}
		var flags []string
		if m.Lost {
			flags = append(flags, lang.T("LOST in flight (vanishes at arrival)"))
		}
		if m.Duplicate {
			flags = append(flags, lang.T("a duplicate"))
		}
		if m.Queued {
			flags = append(flags, lang.T("queued at a stalled member"))
		}
		if m.Reject {
			flags = append(flags, lang.T("reject"))
		}
		if m.Forwarded && m.Type.String() == "MsgProp" {
			flags = append(flags, lang.T("forwarded client write"))
		}
		if len(flags) > 0 {
			lines = append(lines, strings.Join(flags, " · "))
		}
		lines = append(lines, lang.T("(click elsewhere to close)"))
		w := 0.0
		for _, ln := range lines {
			w = math.Max(w, width(ln, small))
		}
		w = math.Min(w+16*s, f.L.Ring.W-8*s)
		box := ui.Rect{X: f.L.Ring.X + 4*s, Y: f.L.Ring.Bottom() - float64(len(lines))*lh - 12*s, W: w, H: float64(len(lines))*lh + 8*s}
		p.b.rect(p.dst, box, ui.Panel)
		p.b.frame(p.dst, box, 2*s, ui.Ink)
		p.flush()
		for i, ln := range lines {
			p.text(fit(ln, small, w-16*s), small, box.X+8*s, box.Y+4*s+float64(i)*lh, ui.Ink, text.AlignStart)
		}
	}
	if md := f.Menu; md != nil {
		p.b.rect(p.dst, ui.Rect{X: md.R.X + 3*s, Y: md.R.Y + 3*s, W: md.R.W, H: md.R.H}, alpha(ui.Black, 0.25))
		p.b.rect(p.dst, md.R, ui.Panel)
		p.b.frame(p.dst, md.R, 1.5*s, ui.Ink)
		p.flush()
		title := md.Target
		if in, ok := a.S.World().Info(md.Target); ok {
			title += " · " + lang.T(ui.StyleOfRole(in.Role).Label)
		} else if md.Client {
			title += " · " + lang.T("client")
		}
		p.text(title, r.Fonts.Normal, md.R.X+8*s, md.R.Y+4*s, ui.Ink, text.AlignStart)
		for _, it := range md.Items {
			c := ui.Ink
			if !it.Enabled {
				c = ui.Grey
			}
			p.text(lang.T(it.Label), small, it.R.X+6*s, it.R.Y+(it.R.H-lh*0.85)/2, c, text.AlignStart)
			p.text(it.Key, small, it.R.Right()-6*s, it.R.Y+(it.R.H-lh*0.85)/2, ui.Muted, text.AlignEnd)
		}
	}
	if a.Help {
		r.help(p, f)
	}
}

// help draws the keyboard and mouse help over everything, in two columns:
// the keys on the left, the mouse and the command box on the right.
func (r *Renderer) help(p *painter, f *ui.Frame) {
	l := f.L
	s := l.Scale
	lh := l.LineH()
	p.b.rect(p.dst, ui.Rect{W: l.W, H: l.H}, alpha(ui.Black, 0.55))
	var left, right [][2]string
	lang := l.Lang
	left = append(left, [2]string{"", lang.T("Keyboard")})
	for _, k := range ui.GlobalKeys {
		left = append(left, [2]string{k.Key, lang.T(k.What)})
	}
	left = append(left, [2]string{"", lang.T("On the selected member (or in its menu)")})
	for _, k := range ui.MemberActions {
		left = append(left, [2]string{k.Key, lang.T(k.Label)})
	}
	right = append(right, [2]string{"", lang.T("Mouse")})
	for _, m := range ui.MouseHelp {
		right = append(right, [2]string{"", "  " + lang.T(m)})
	}
	right = append(right, [2]string{"", lang.T("Command box (: or `)")})
	for _, k := range ui.BoxKeys {
		right = append(right, [2]string{k.Key, lang.T(k.What)})
	}
	right = append(right, [2]string{"", "  " + lang.T("the other shortcuts wait while it is open (F12 still works)")})
	right = append(right, [2]string{"", ""}, [2]string{"", lang.T("press any key or click to close")})
	w := math.Min(l.W-40*s, 1000*s)
	n := max(len(left), len(right))
	h := math.Min(l.H-40*s, float64(n)*lh+24*s)
	box := ui.Rect{X: (l.W - w) / 2, Y: (l.H - h) / 2, W: w, H: h}
	p.b.rect(p.dst, box, ui.Panel)
	p.b.frame(p.dst, box, 2*s, ui.Ink)
	p.flush()
	small := r.Fonts.Small
	colW := (w - 32*s) / 2
	column := func(lines [][2]string, x float64) {
		for i, ln := range lines {
			y := box.Y + 12*s + float64(i)*lh
			if y+lh > box.Bottom() {
				break
			}
			if ln[0] == "" {
				if ln[1] == "" {
					continue
				}
				c := ui.Ink
				face := r.Fonts.Normal
				if ln[1][0] == ' ' {
					face = small
				} else {
					c = ui.Blue
				}
				p.text(fit(ln[1], face, colW-8*s), face, x, y, c, text.AlignStart)
				continue
			}
			p.text(ln[0], small, x+96*s, y, ui.Vermillion, text.AlignEnd)
			p.text(fit(ln[1], small, colW-112*s), small, x+104*s, y, ui.Ink, text.AlignStart)
		}
	}
	column(left, box.X+16*s)
	column(right, box.X+16*s+colW+8*s)
}
