package render

import (
	"image/color"
	"math"
	"strings"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/render/ui"
)

// The presenter's parts of the picture: the lesson picker, the lesson so
// far (Tab) and the caption marks' tooltips. They paint what render/ui and
// render/present decide.

// picker draws the lesson picker over the whole window: a heading and,
// for each lesson it has room for, its number, title and summary, the
// chosen one marked; "more" marks say when the list goes on.
func (r *Renderer) picker(p *painter, a *ui.App, f *ui.Frame) {
	pk := a.Picker
	l := f.L
	lang := l.Lang
	p.b.rect(p.dst, ui.Rect{W: l.W, H: l.H}, ui.Background)
	rows, above, below := pk.Rows(l)
	for _, row := range rows {
		if row.Index == pk.Sel {
			p.b.rect(p.dst, row.R, pale(ui.SkyBlue, 0.6))
			p.b.frame(p.dst, row.R, math.Max(1, 2*l.S), ui.Blue)
		} else {
			p.b.frame(p.dst, row.R, 1, ui.PanelEdge)
		}
	}
	p.flush()
	x := l.Px(24)
	if len(rows) > 0 {
		x = rows[0].R.X
	}
	w := l.W - 2*x
	put := func(s string, size, x, y, w float64, c color.RGBA) {
		s, _ = ui.Fit(l.M, s, size, w)
		p.item(ui.TextItem{S: s, Size: size, R: ui.Rect{X: x, Y: y, W: w, H: ui.LineH(size)}, Color: c})
	}
	put(lang.T("Choose a lesson"), l.Big, x, l.Px(12), w, ui.Ink)
	hint := lang.T("↑ ↓ choose · Enter or Space open · 1-9 open that lesson · Esc the sandbox")
	if above || below {
		hint += lang.F("   (%d lessons; the list scrolls)", len(pk.Lessons))
	}
	put(hint, l.Small, x, l.Px(12)+ui.LineH(l.Big), w, ui.Muted)
	for _, row := range rows {
		ls := pk.Lessons[row.Index]
		num := ""
		if row.Index < 9 {
			num = string(rune('1'+row.Index)) + "  "
		}
		tx, tw := row.R.X+l.Px(10), row.R.W-l.Px(20)
		nameW := l.Width(ls.Name, l.Small)
		put(ls.Name, l.Small, row.R.Right()-l.Px(10)-nameW, row.R.Y+l.Px(3), nameW, ui.Muted)
		put(num+ls.Title.In(lang.String()), l.Normal, tx, row.R.Y+l.Px(2), tw-nameW-l.Px(12), ui.Ink)
		lines := ui.Wrap(l.M, ls.Summary.In(lang.String()), l.Small, tw)
		if len(lines) > ui.PickerSummaryLines {
			// A longer summary ends in an ellipsis.
			k := ui.PickerSummaryLines - 1
			lines[k], _ = ui.Fit(l.M, strings.Join(lines[k:], " "), l.Small, tw)
			lines = lines[:k+1]
		}
		y := row.R.Y + l.Px(2) + l.LineH()
		for _, ln := range lines {
			put(ln, l.Small, tx, y, tw, ui.Muted)
			y += l.SmallH()
		}
	}
	if pk.Err != "" {
		put(pk.Err, l.Normal, x, l.H-l.LineH()-l.Px(8), w, ui.Vermillion)
	}
}

// outline draws the lesson outline (Tab): the chapters, with their keys,
// and under each the captions shown so far, the one on screen marked.
func (r *Renderer) outline(p *painter, a *ui.App, f *ui.Frame) {
	l := f.L
	lang := l.Lang
	entries := a.Lesson.OutlineEntries()
	lh := l.SmallH()
	w := math.Min(l.W-l.Px(40), l.Px(900))
	maxH := l.Timeline.Y - l.Toolbar.Bottom() - l.Px(20)
	head := l.LineH() + l.Px(16)
	// Keep the newest in view: drop the oldest captions (not chapters) if
	// the list is too long.
	fits := int((maxH - head - l.Px(12)) / lh)
	for len(entries) > fits {
		i := 0
		for i < len(entries) && (entries[i].Chapter || entries[i].Current) {
			i++
		}
		if i == len(entries) {
			entries = entries[:max(0, fits)]
			break
		}
		entries = append(entries[:i], entries[i+1:]...)
	}
	h := math.Min(maxH, head+float64(len(entries))*lh+l.Px(12))
	box := ui.Rect{X: (l.W - w) / 2, Y: l.Toolbar.Bottom() + l.Px(10), W: w, H: h}
	p.b.rect(p.dst, ui.Rect{W: l.W, H: l.H}, alpha(ui.Black, 0.45))
	p.b.rect(p.dst, box, ui.Panel)
	p.b.frame(p.dst, box, math.Max(1, 2*l.S), ui.Ink)
	p.flush()
	x, y := box.X+l.Px(14), box.Y+l.Px(8)
	put := func(s string, size, x, y, w float64, c color.RGBA) {
		s, _ = ui.Fit(l.M, s, size, w)
		p.item(ui.TextItem{S: s, Size: size, R: ui.Rect{X: x, Y: y, W: w, H: ui.LineH(size)}, Color: c})
	}
	hint := lang.T("1-9 a chapter · PgUp PgDn a step · Tab or Esc closes")
	hw := math.Min(l.Width(hint, l.Small), box.W/2)
	put(hint, l.Small, box.Right()-l.Px(14)-hw, y+l.Px(2), hw, ui.Muted)
	put(lang.T("The lesson so far"), l.Normal, x, y, box.W-hw-l.Px(40), ui.Blue)
	y += head - l.Px(8)
	for _, e := range entries {
		c, ex := ui.Ink, x+l.Px(24)
		if e.Chapter {
			c, ex = ui.Blue, x+l.Px(16)
			put(e.Key, l.Small, x, y, l.Px(14), ui.Vermillion)
		}
		if e.Current {
			put("▶", l.Small, x+l.Px(8), y, l.Px(14), ui.Vermillion)
		}
		put(e.Text, l.Small, ex, y, box.Right()-ex-l.Px(14), c)
		y += lh
	}
}

// markTip draws the texts of the caption marks under the pointer above
// the timeline.
func (r *Renderer) markTip(p *painter, a *ui.App, f *ui.Frame) {
	marks := a.HoverMarks(f)
	if len(marks) == 0 {
		return
	}
	at, _ := a.Hover()
	l := f.L
	size := l.Normal
	w := math.Min(l.W-l.Px(20), l.Px(640))
	var lines []string
	for _, m := range marks {
		lines = append(lines, ui.Wrap(l.M, m.Text, size, w-l.Px(16))...)
	}
	if most := int((l.Timeline.Y - l.Toolbar.Bottom()) / l.LineH() / 2); len(lines) > most {
		lines = lines[:max(1, most)]
	}
	tw := 0.0
	for _, ln := range lines {
		tw = math.Max(tw, l.Width(ln, size))
	}
	w = tw + l.Px(16)
	h := float64(len(lines))*l.LineH() + l.Px(8)
	x := math.Max(l.Px(4), math.Min(at.X-w/2, l.W-w-l.Px(4)))
	box := ui.Rect{X: x, Y: l.Timeline.Y - h - l.Px(4), W: w, H: h}
	p.b.rect(p.dst, box, ui.Panel)
	p.b.frame(p.dst, box, math.Max(1, 1.5*l.S), ui.ReddishPurple)
	p.flush()
	for i, ln := range lines {
		p.item(ui.TextItem{S: ln, Size: size, R: ui.Rect{X: box.X + l.Px(8), Y: box.Y + l.Px(4) + float64(i)*l.LineH(), W: tw, H: l.LineH()}, Color: ui.Ink})
	}
}

// presenterOverlays draws the presenter's overlays, on top of the rest:
// the mark tooltip, the outline, and the picker over everything.
func (r *Renderer) presenterOverlays(p *painter, a *ui.App, f *ui.Frame) {
	r.markTip(p, a, f)
	if a.Lesson != nil && a.Lesson.Outline() {
		r.outline(p, a, f)
	}
	if a.Picker != nil {
		r.picker(p, a, f)
	}
}

// PresenterHelp is the help overlay's section of a lesson's keys, in a
// language (the host adds it to Renderer.ExtraHelp).
func PresenterHelp(lang i18n.Lang) HelpSection {
	sec := HelpSection{Title: lang.T("In a lesson (presenter)")}
	for _, k := range ui.PresenterKeys {
		sec.Lines = append(sec.Lines, [2]string{k.Key, lang.T(k.What)})
	}
	return sec
}
