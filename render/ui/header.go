package ui

import (
	"image/color"
	"math"
	"strings"
)

// HeaderText is what the header says, field by field. What goes in each
// field is the App's (and the presenter's) to say; where each goes is the
// layout's: the clock, the rate, the step and the play state are never
// shortened; the note gives way first (it is shown whole or not at all),
// then the chapter, then the title is shortened with an ellipsis.
type HeaderText struct {
	Title   string // "raftsim · split-brain: Split brain: …"
	Chapter string // "2/3 The partition"
	Step    string // "step 5/9"
	Clock   string // "t = 1.234s"
	Rate    string // "1/10×"
	State   string // "▶ playing", "|| paused"
	Note    string // "◀ viewing the past (head 3.200s)"
}

// PlaceHeader lays out a header's fields in the toolbar, left of the
// buttons. The order of giving way: the buttons first, into one menu
// button (the layout's); then the note, shown whole or not at all; then
// the chapter, shortened; then the title, shortened to no less than its
// first TitleKeeps characters. The title's least, the step, the clock,
// the rate and the play state are never shortened.
func (l Layout) PlaceHeader(h HeaderText) []TextItem {
	size := l.Normal
	y := l.Toolbar.Y + (l.Toolbar.H-LineH(size))/2
	gap := l.Px(16)
	right := l.W - l.Px(6)
	if len(l.Buttons) > 0 {
		right = l.Buttons[0].Rect.X - l.Px(8)
	}
	var out []TextItem
	// From the right: the fields that are never shortened.
	for _, f := range []struct {
		s string
		c color.RGBA
	}{{h.State, Ink}, {h.Rate, Ink}, {h.Clock, Ink}, {h.Step, Muted}} {
		if f.s == "" {
			continue
		}
		w := l.Width(f.s, size)
		out = append(out, TextItem{S: f.s, Size: size, R: Rect{right - w, y, w, LineH(size)}, Color: f.c, Essential: true})
		right -= w + gap
	}
	left := l.Px(10)
	// Then what may give way, in turn: the note, the chapter, the title
	// (down to its first TitleKeeps characters, which the layout keeps
	// room for).
	titleMin := math.Min(l.TitleMin, l.Width(TitleMin(h.Title), size))
	for _, f := range []struct {
		s string
		c color.RGBA
	}{{h.Note, Vermillion}, {h.Chapter, Blue}} {
		if f.s == "" {
			continue
		}
		// At most half of what is left, so that the title keeps room.
		room := math.Min(right-left-titleMin-gap, (right-left)/2)
		if room < l.Width("…", size)*4 {
			continue
		}
		if f.s == h.Note && l.Width(f.s, size) > room {
			continue // a note is shown whole, or not at all
		}
		s, cut := Fit(l.M, f.s, size, math.Min(room, l.Width(f.s, size)))
		w := l.Width(s, size)
		out = append(out, TextItem{S: s, Size: size, R: Rect{right - w, y, w, LineH(size)}, Color: f.c, Cut: cut})
		right -= w + gap
	}
	s, cut := Fit(l.M, h.Title, size, math.Max(right-left, titleMin))
	out = append(out, TextItem{S: s, Size: size, R: Rect{left, y, l.Width(s, size), LineH(size)}, Color: Ink, Cut: cut})
	return out
}

// CaptionText is what the caption area says. Its content is the App's
// (and the presenter's); its layout is the layout's: text is wrapped,
// never shrunk, and the area is made tall enough for the lesson's longest
// text (App.SetCaptions).
type CaptionText struct {
	Chapter string // the current chapter, top left
	Right   string // top right: the status, or where the presenter is
	Lead    string // the caption that led to a question, above it
	Text    string // the caption (big)
	// Band is a line that waits for the presenter (a question, the end of
	// the lesson), in the big font on BandFill, at the bottom.
	Band     string
	BandFill color.RGBA
	Muted    bool // Text is a hint, not a caption
	Alarm    bool // Text is a safety violation (drawn on red)
}

// PlaceCaption lays out the caption area: a top row with the chapter and
// the status; then the lead in the normal font; then the text and the
// band in the big one, wrapped. It returns the band's rectangle (empty if
// there is none), for its fill.
func (l Layout) PlaceCaption(c CaptionText) (items []TextItem, band Rect) {
	r := l.Caption
	pad := l.Px(10)
	x, w := r.X+pad, r.W-2*pad
	y := r.Y + l.Px(5)
	rowH := LineH(l.Normal)
	right := 0.0
	if c.Right != "" {
		s, cut := Fit(l.M, c.Right, l.Normal, w*0.5)
		right = l.Width(s, l.Normal)
		items = append(items, TextItem{S: s, Size: l.Normal, R: Rect{r.Right() - pad - right, y, right, rowH}, Color: Muted, Cut: cut})
	}
	if c.Chapter != "" {
		s, cut := Fit(l.M, c.Chapter, l.Normal, w-right-l.Px(16))
		items = append(items, TextItem{S: s, Size: l.Normal, R: Rect{x, y, l.Width(s, l.Normal), rowH}, Color: Blue, Cut: cut})
	}
	y += rowH
	bigH := LineH(l.Big)
	lines := l.CaptionLines
	col := Ink
	switch {
	case c.Muted:
		col = Muted
	case c.Alarm:
		col = White
	}
	text := Wrap(l.M, c.Text, l.Big, w)
	var bandLines []string
	if c.Band != "" {
		bandLines = Wrap(l.M, c.Band, l.Big, w)
	}
	lead := c.Lead
	if lead != "" && len(text)+len(bandLines) >= lines {
		lead = "" // no room: the question and the caption come first
	}
	if lead != "" {
		for _, ln := range Wrap(l.M, lead, l.Normal, w) {
			if len(text)+len(bandLines)+1 > lines {
				break
			}
			s, cut := Fit(l.M, ln, l.Normal, w)
			items = append(items, TextItem{S: s, Size: l.Normal, R: Rect{x, y + (bigH-rowH)/2, l.Width(s, l.Normal), rowH}, Color: Muted, Cut: cut})
			y += bigH
			lines--
		}
	}
	put := func(all []string, max int, c color.RGBA, essential bool) {
		for i, ln := range all {
			cut := false
			if i == max-1 && len(all) > max {
				ln, cut = Fit(l.M, strings.Join(all[i:], " "), l.Big, w)
			}
			items = append(items, TextItem{S: ln, Size: l.Big, R: Rect{x, y, l.Width(ln, l.Big), bigH}, Color: c, Cut: cut, Essential: essential})
			y += bigH
			if i == max-1 {
				break
			}
		}
	}
	bandN := min(len(bandLines), lines)
	textN := min(len(text), lines-bandN)
	if bandN == 0 {
		// A caption alone is centred in its lines.
		y += float64(lines-textN) * bigH / 2
	}
	put(text, textN, col, !c.Muted)
	if bandN > 0 {
		y = r.Bottom() - l.Px(4) - float64(bandN)*bigH
		band = Rect{r.X + 1, y - l.Px(2), r.W - 2, float64(bandN)*bigH + l.Px(4)}
		put(bandLines, bandN, Ink, true)
	}
	return items, band
}
