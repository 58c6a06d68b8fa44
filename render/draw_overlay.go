package render

import (
	"math"
	"strings"

	"github.com/hajimehoshi/ebiten/v2/text/v2"

	"github.com/raftsim/raftsim/render/ui"
	"github.com/raftsim/raftsim/sim"
)

// legendItems draws the legend's entries where the layout placed them:
// each icon as the window draws the thing itself, and its words.
func (r *Renderer) legendItems(p *painter, l ui.Layout) {
	slots := l.LegendSlots()
	for _, sl := range slots {
		r.legendIcon(p, l, sl)
	}
	p.flush()
	for _, sl := range slots {
		p.item(sl.Text)
	}
}

// legendIcon draws one legend entry's icon.
func (r *Renderer) legendIcon(p *painter, l ui.Layout, sl ui.LegendSlot) {
	s := l.S
	c := sl.Icon
	e := sl.Entry
	box := ui.Rect{X: c.X - 7*s, Y: c.Y - 6*s, W: 14 * s, H: 10 * s}
	switch e.Icon {
	case ui.IconRole:
		st := ui.StyleOfRole(e.Role)
		drawRole(p, st, c, 6.5*s, s)
		if st.Crown {
			p.b.crown(p.dst, ui.Point{X: c.X + 9*s, Y: c.Y - 5*s}, 8*s, ui.Yellow, ui.Ink)
		}
	case ui.IconTimer:
		p.b.ring(p.dst, c, 6*s, 2.5*s, ui.LightGrey)
		p.b.arc(p.dst, c, 6*s, 2.5*s, -math.Pi/2, math.Pi*0.8, ui.Orange)
	case ui.IconTally:
		for k := range 3 {
			pt := ui.Point{X: c.X - 6*s + float64(k)*6*s, Y: c.Y}
			switch k {
			case 0:
				p.b.circle(p.dst, pt, 2.3*s, ui.Ink)
			case 1:
				p.b.ring(p.dst, pt, 2.3*s, math.Max(1, 0.8*s), ui.Ink)
			case 2:
				p.b.cross(p.dst, pt, 2.2*s, math.Max(1.2, s), ui.Ink)
			}
		}
	case ui.IconHost:
		p.b.rect(p.dst, ui.Rect{X: c.X - 8*s, Y: c.Y - 6*s, W: 16 * s, H: 12 * s}, hostFill)
		p.b.frame(p.dst, ui.Rect{X: c.X - 8*s, Y: c.Y - 6*s, W: 16 * s, H: 12 * s}, 1, ui.PanelEdge)
	case ui.IconHostDown:
		dashedFrame(p, ui.Rect{X: c.X - 8*s, Y: c.Y - 6*s, W: 16 * s, H: 12 * s}, 1.5*s, 3*s, ui.Grey)
	case ui.IconMessage:
		st := ui.StyleOfMessage(e.Msg)
		drawGlyph(p, st, c, math.Min(st.Size, 7)*s, st.Fill)
	case ui.IconDrop:
		p.b.cross(p.dst, c, 5*s, 2.5*s, ui.Vermillion)
	case ui.IconCutBoth:
		p.b.dashed(p.dst, ui.Point{X: c.X - 9*s, Y: c.Y}, ui.Point{X: c.X + 9*s, Y: c.Y}, 2*s, 3*s, ui.Vermillion)
		p.b.circle(p.dst, c, 6*s, ui.Vermillion)
		p.b.cross(p.dst, c, 3*s, 1.5*s, white)
	case ui.IconCutOne:
		p.b.dashed(p.dst, ui.Point{X: c.X - 9*s, Y: c.Y}, ui.Point{X: c.X + 4*s, Y: c.Y}, 2*s, 3*s, ui.Vermillion)
		p.b.arrowHead(p.dst, ui.Point{X: c.X + 6*s, Y: c.Y}, ui.Point{X: 1}, 7*s, ui.Vermillion)
		p.b.line(p.dst, ui.Point{X: c.X + 6*s, Y: c.Y - 6*s}, ui.Point{X: c.X + 6*s, Y: c.Y + 6*s}, 2.5*s, ui.Vermillion)
	case ui.IconCommitted:
		drawCell(p, ui.LogCell{R: box, Term: 2, Committed: true, Applied: true}, s)
	case ui.IconUncommitted:
		drawCell(p, ui.LogCell{R: box, Term: 2}, s)
	case ui.IconConflict:
		drawCell(p, ui.LogCell{R: box, Term: 3, Committed: false, Conflict: true}, s)
	case ui.IconSnapshotted:
		drawCell(p, ui.LogCell{R: box, Compacted: true}, s)
	case ui.IconMatch:
		p.b.poly(p.dst, []ui.Point{{X: c.X, Y: c.Y - 4*s}, {X: c.X - 5*s, Y: c.Y + 4*s}, {X: c.X + 5*s, Y: c.Y + 4*s}}, ui.Vermillion)
	case ui.IconNext:
		p.b.outline(p.dst, []ui.Point{{X: c.X, Y: c.Y - 4*s}, {X: c.X - 5*s, Y: c.Y + 4*s}, {X: c.X + 5*s, Y: c.Y + 4*s}}, math.Max(1, 1.3*s), ui.Blue)
	case ui.IconMark:
		p.b.rect(p.dst, ui.Rect{X: c.X - 1.5*s, Y: c.Y - 6*s, W: 3 * s, H: 12 * s}, ui.MarkColor(e.Mark))
	}
}

// overlays draws the message details, the open menu and the help overlay,
// on top of everything else.
func (r *Renderer) overlays(p *painter, a *ui.App, f *ui.Frame) {
	s := f.L.S
	small := r.Fonts.Small
	lh := f.L.SmallH()
	lang := f.L.Lang
	if f.L.LegendOver {
		// No column is wide enough for the legend: it is drawn over the
		// ring panel while it is asked for (L).
		p.b.rect(p.dst, f.L.Legend, ui.Background)
		p.b.frame(p.dst, f.L.Legend, math.Max(1, 1.5*s), ui.Ink)
		r.legendItems(p, f.L)
	}
	r.tooltip(p, a, f)
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
	s := l.S
	lh := l.SmallH()
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
	keyW := 0.0
	for _, ln := range append(append([][2]string{}, left...), right...) {
		keyW = math.Max(keyW, width(ln[0], small))
	}
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
			p.text(ln[0], small, x+keyW, y, ui.Vermillion, text.AlignEnd)
			p.text(fit(ln[1], small, colW-keyW-16*s), small, x+keyW+8*s, y, ui.Ink, text.AlignStart)
		}
	}
	column(left, box.X+16*s)
	column(right, box.X+16*s+colW+8*s)
}

// tooltip shows the whole line of the client request under the pointer,
// when its row had to shorten it.
func (r *Renderer) tooltip(p *painter, a *ui.App, f *ui.Frame) {
	at, ok := a.Hover()
	if !ok || !f.L.Clients.Contains(at) {
		return
	}
	l := f.L
	for _, row := range f.OpRows(a) {
		if !row.R.Contains(at) || !row.Cut {
			continue
		}
		w := math.Min(l.W*0.6, l.Width(row.Full, l.Small)+l.Px(16))
		lines := ui.Wrap(l.M, row.Full, l.Small, w-l.Px(16))
		h := float64(len(lines))*l.SmallH() + l.Px(8)
		box := ui.Rect{X: math.Max(l.Px(4), math.Min(at.X, l.W-w-l.Px(4))), Y: math.Max(l.Toolbar.Bottom(), at.Y-h-l.Px(8)), W: w, H: h}
		p.b.rect(p.dst, box, ui.Panel)
		p.b.frame(p.dst, box, math.Max(1, 1.5*l.S), ui.Ink)
		p.flush()
		for k, ln := range lines {
			p.item(ui.TextItem{S: ln, Size: l.Small, R: ui.Rect{X: box.X + l.Px(8), Y: box.Y + l.Px(4) + float64(k)*l.SmallH(), W: w, H: l.SmallH()}, Color: ui.Ink})
		}
		return
	}
}
