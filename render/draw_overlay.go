package render

import (
	"math"
	"strings"

	"github.com/hajimehoshi/ebiten/v2/text/v2"

	"github.com/raftsim/raftsim/i18n"
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
	case ui.IconPartition:
		p.b.dashed(p.dst, ui.Point{X: c.X - 3*s, Y: c.Y - 8*s}, ui.Point{X: c.X + 3*s, Y: c.Y + 8*s}, 3*s, 5*s, ui.Vermillion)
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
	case ui.IconCommitBar:
		drawCell(p, ui.LogCell{R: box, Term: 2, Committed: true}, s)
		p.b.rect(p.dst, ui.Rect{X: box.Right() + 1 - 1.5*s, Y: box.Y - 3*s, W: 3 * s, H: box.H + 6*s}, ui.Ink)
	case ui.IconNamed:
		drawCell(p, ui.LogCell{R: box, Term: 2, Committed: true, Named: true}, s)
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
	if c := a.Why; c != nil {
		r.whyCard(p, f, c)
	} else if m := a.Message; m != nil {
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
		p.text(md.Title, r.Fonts.Normal, md.R.X+8*s, md.R.Y+4*s, ui.Ink, text.AlignStart)
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

// HelpSection is a part of the help overlay (ui.HelpSection).
type HelpSection = ui.HelpSection

// helpSections returns the help overlay's sections, in the window's
// language.
func (r *Renderer) helpSections(lang i18n.Lang) []HelpSection {
	return ui.HelpSections(lang, r.ExtraHelp...)
}

// help draws the keyboard and mouse help over everything: its sections
// flow down columns, as many as the window needs at its text size, and a
// section's heading never ends a column.
func (r *Renderer) help(p *painter, f *ui.Frame) {
	l := f.L
	pad := l.Px(16)
	lh := l.SmallH()
	hh := l.LineH()
	p.b.rect(p.dst, ui.Rect{W: l.W, H: l.H}, alpha(ui.Black, 0.55))
	secs := r.helpSections(l.Lang)
	footer := l.Lang.T("press any key or click to close")
	keyW, textW := 0.0, l.Width(footer, l.Normal)
	for _, sec := range secs {
		textW = math.Max(textW, l.Width(sec.Title, l.Normal))
		for _, ln := range sec.Lines {
			keyW = math.Max(keyW, l.Width(ln[0], l.Small))
		}
	}
	for _, sec := range secs {
		for _, ln := range sec.Lines {
			w := l.Width(ln[1], l.Small)
			if ln[0] != "" {
				w += keyW + l.Px(8)
			}
			textW = math.Max(textW, w)
		}
	}
	// Flow the sections into columns, as few as fit the window's height;
	// a line too long for its column wraps.
	type placed struct {
		x, y    float64
		heading bool
		ln      [2]string
	}
	availW := l.W - 2*l.Px(20) - pad
	maxH := l.H - 2*l.Px(20) - 2*pad - hh
	var items []placed
	var colW float64
	var cols int
	for cols = 1; cols <= 4; cols++ {
		colW = math.Min(textW+pad, availW/float64(cols))
		items = items[:0]
		col, y := 0, 0.0
		for _, sec := range secs {
			if y > 0 && y+hh+lh > maxH {
				col, y = col+1, 0
			}
			items = append(items, placed{x: float64(col) * colW, y: y, heading: true, ln: [2]string{"", sec.Title}})
			y += hh
			for _, ln := range sec.Lines {
				indent := l.Px(8)
				if ln[0] != "" {
					indent = keyW + l.Px(8)
				}
				for k, part := range ui.Wrap(l.M, ln[1], l.Small, colW-pad-indent) {
					if y+lh > maxH {
						col, y = col+1, 0
					}
					key := ln[0]
					if k > 0 {
						key = ""
						if ln[0] == "" {
							part = "  " + part
						}
					}
					items = append(items, placed{x: float64(col) * colW, y: y, ln: [2]string{key, part}})
					if ln[0] != "" && k > 0 {
						items[len(items)-1].ln[0] = " " // under the key: the description goes on
					}
					y += lh
				}
			}
			y += l.Px(6)
		}
		if col < cols {
			break
		}
	}
	cols = min(cols, 4)
	w := math.Min(l.W-2*l.Px(20), float64(cols)*colW+pad)
	h := 0.0
	for _, it := range items {
		h = math.Max(h, it.y+lh)
	}
	h += 2*pad + hh
	box := ui.Rect{X: (l.W - w) / 2, Y: (l.H - h) / 2, W: w, H: h}
	p.b.rect(p.dst, box, ui.Panel)
	p.b.frame(p.dst, box, l.Px(2), ui.Ink)
	p.flush()
	x0, y0 := box.X+pad, box.Y+pad
	for _, it := range items {
		x, y := x0+it.x, y0+it.y
		switch {
		case it.heading:
			p.item(ui.TextItem{S: it.ln[1], Size: l.Normal, R: ui.Rect{X: x, Y: y, W: colW, H: hh}, Color: ui.Blue})
		case it.ln[0] == "":
			p.item(ui.TextItem{S: it.ln[1], Size: l.Small, R: ui.Rect{X: x + l.Px(8), Y: y, W: colW, H: lh}, Color: ui.Ink})
		default:
			if it.ln[0] != " " {
				p.item(ui.TextItem{S: it.ln[0], Size: l.Small, R: ui.Rect{X: x, Y: y, W: keyW, H: lh}, Align: ui.AlignEnd, Color: ui.Vermillion})
			}
			p.item(ui.TextItem{S: it.ln[1], Size: l.Small, R: ui.Rect{X: x + keyW + l.Px(8), Y: y, W: colW, H: lh}, Color: ui.Ink})
		}
	}
	p.item(ui.TextItem{S: footer, Size: l.Normal, R: ui.Rect{X: x0, Y: box.Bottom() - pad - hh, W: w, H: hh}, Color: ui.Muted})
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
