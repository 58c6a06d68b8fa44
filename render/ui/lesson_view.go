package ui

import (
	"math"
	"strconv"
	"strings"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/render/present"
)

// Narration returns what the caption area says now: the presenter's
// narration in a lesson, NarrNone in the sandbox.
func (a *App) Narration() present.Narration {
	if a.Lesson == nil {
		return present.Narration{Kind: present.NarrNone}
	}
	return a.Lesson.Narration()
}

// Header returns what the header says now, field by field: the title
// (in a lesson, the lesson's own; its chapter is on the caption area's top
// row), the chapter in a scenario, the lesson's step, the virtual time,
// the rate, whether time runs, and a note (the past, or a smaller scale
// than asked for). The layout decides where each goes, and what gives way
// (PlaceHeader).
func (a *App) Header() HeaderText {
	h := HeaderText{Title: a.HeaderTitle(), Clock: "t = " + a.S.Now().String()}
	mode := a.Lang.T("adaptive")
	if a.Pace.Fixed {
		mode = a.Lang.T("fixed")
	} else if a.Pace.Scale != 1 {
		mode += " ×" + present.ScaleLabel(a.Pace.Scale)
	}
	h.Rate = a.SpeedLabel() + " " + mode
	n := a.Narration()
	if n.Chapter != "" && a.Lesson == nil {
		h.Chapter = strconv.Itoa(n.ChapterNo) + "/" + strconv.Itoa(n.Chapters) + " " + n.Chapter
	}
	if a.S.Now() < a.S.Head() {
		h.Note = a.Lang.F("◀ viewing the past (head %s)", a.S.Head())
	} else if l := a.L; l.S < l.Scale-0.005 {
		// The window cannot hold everything at the scale asked for.
		h.Note = a.Lang.F("scale %.2f (of %g)", l.S, l.Scale)
	}
	if n.Steps > 0 {
		h.Step = a.Lang.F("step %d/%d", n.Step, n.Steps)
	}
	switch {
	case a.S.World().Violation() != nil:
		h.State = a.Lang.T("■ stopped")
	case a.Picker != nil:
		h.State = a.Lang.T("|| choosing a lesson")
	case a.Help:
		h.State = a.Lang.T("|| help")
	case n.Kind == present.NarrPause && a.Lesson.AtPause():
		h.State = a.Lang.T("|| question")
	case n.Kind == present.NarrEnd && !a.Lesson.AfterEnd():
		h.State = a.Lang.T("■ end")
	case n.Waiting:
		h.State = a.Lang.T("|| reading")
	case !a.Playing:
		h.State = a.Lang.T("|| paused")
	default:
		h.State = a.Lang.T("▶ playing")
	}
	return h
}

// HeaderTitle names what is on screen, as the header says it: a lesson's
// title alone (its name if it has none): it keeps at least its first
// TitleKeeps characters whatever the window (the layout gives way
// elsewhere first); "raftsim · " and the picker, or what the host named
// it (the sandbox), otherwise.
func (a *App) HeaderTitle() string {
	if p := a.Lesson; p != nil {
		if l := p.Lesson(); l.Title != "" {
			return l.Title
		} else {
			return l.Name
		}
	}
	if a.Picker != nil {
		return "raftsim · " + a.Lang.T("lessons")
	}
	if a.Title != "" {
		return "raftsim · " + a.Title
	}
	return "raftsim · " + a.Lang.T("sandbox")
}

// captionMarkText is the text a timeline caption mark shows on hover:
// the caption without its "say: " prefix.
func captionMarkText(t string) string {
	for _, pre := range []string{"say: ", "pause: ", "chapter: "} {
		if rest, ok := strings.CutPrefix(t, pre); ok {
			return rest
		}
	}
	return t
}

// HoverMarks returns the caption marks under the pointer on the timeline,
// for their tooltip: the captions' texts, in order (several captions can
// share an instant, and so a place on the timeline).
func (a *App) HoverMarks(f *Frame) []Mark {
	p, ok := a.Hover()
	if !ok || !f.L.Timeline.Contains(p) || a.drag != nil {
		return nil
	}
	bestD := f.L.Px(5)
	var out []Mark
	for _, m := range f.Marks {
		if m.Kind != MarkCaption {
			continue
		}
		d := math.Abs(XAtTime(f.Track, f.Span, m.At) - p.X)
		switch {
		case d < bestD-0.5:
			bestD, out = d, nil
			fallthrough
		case d <= bestD+0.5:
			m.Text = captionMarkText(m.Text)
			out = append(out, m)
		}
	}
	return out
}

// CaptionOf composes what the caption area says for a narration: the
// chapter on the top row, the caption, and a band (a question, the end,
// the lesson waiting) under the caption that led to it, its colour by the
// narration's kind. The layout sizes the area from these very texts
// (LessonCaptions).
func CaptionOf(n present.Narration, lang i18n.Lang) CaptionText {
	c := CaptionText{Text: n.Text}
	if n.Chapter != "" && n.Kind != present.NarrChapter {
		c.Chapter = lang.F("Chapter %d/%d · %s", n.ChapterNo, n.Chapters, n.Chapter)
	}
	switch n.Kind {
	case present.NarrChapter:
		c.Text = lang.F("Chapter %d · %s", n.ChapterNo, n.Text)
	case present.NarrPause, present.NarrEnd, present.NarrTakenOver:
		c.Lead, c.Band, c.Text = n.Lead, n.Text, ""
		if n.Hint != "" {
			c.Band += "   — " + n.Hint
		}
	}
	switch n.Kind {
	case present.NarrPause:
		c.BandFill = Yellow
	case present.NarrEnd:
		c.BandFill = Pale(BluishGreen, 0.6)
	case present.NarrTakenOver:
		c.BandFill = Pale(SkyBlue, 0.5)
	}
	if n.Step == 0 && n.Kind != present.NarrTakenOver {
		c.Text, c.Muted = n.Hint, true
	}
	return c
}

// LessonCaptions returns every text a lesson's caption area shows, as the
// presenter shows them (a question with the caption that led to it and
// its hint, a chapter's title card, the end), so that the layout makes
// the caption area tall enough for the longest (App.SetCaptions). Each
// is composed by Narration.Caption, as drawn.
func LessonCaptions(l *present.Lesson, lang i18n.Lang) []string {
	var out []string
	var last present.Narration
	for i, st := range l.Steps {
		n := present.Narration{Kind: present.NarrSay, Step: i + 1, Steps: len(l.Steps), Text: st.Text}
		switch {
		case st.IsChapter():
			n.Kind, n.ChapterNo = present.NarrChapter, st.Chapter+1
		case st.IsPause():
			n.Kind, n.Lead, n.Hint = present.NarrPause, present.LeadOf(l.Steps, i), present.PauseHint(lang)
		}
		out = append(out, CaptionOf(n, lang).lines())
		last = present.Narration{Step: i + 1, Text: st.Text}
	}
	return append(out, CaptionOf(last.End(lang), lang).lines(), CaptionOf(last.TakenOver(lang), lang).lines())
}

// lines is the caption's big texts as the layout measures them: the lead,
// then the text or the band.
func (c CaptionText) lines() string {
	var parts []string
	for _, s := range []string{c.Lead, c.Text, c.Band} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

// Caption returns what the caption area says now: in a lesson its
// narration (the chapter and the status on the top row; the caption; a
// question on a yellow band under the caption that led to it; the end on
// a green one; what waits when the teacher has the controls); in the
// sandbox the latest caption, or a hint; over either, a safety violation
// on red.
func (a *App) Caption() CaptionText {
	lang := a.Lang
	var c CaptionText
	if a.Lesson != nil {
		c = CaptionOf(a.Lesson.Narration(), lang)
		// The step's number is in the header; the top right is the
		// status.
		c.Right = a.Status
	} else {
		c = CaptionText{Text: a.latestCaption(), Right: a.Status}
		if c.Text == "" {
			c.Text, c.Muted = lang.T("Click a member for its menu · drag from one member to another to cut the link · press ? for help"), true
		}
	}
	if v := a.S.World().Violation(); v != nil {
		// A broken invariant stops the world: what broke, on red (a
		// lesson about an injected bug ends so, over the band of its end).
		c.Text, c.Alarm, c.Muted, c.Lead = lang.T("SAFETY VIOLATION: ")+v.Error(), true, false, ""
		if a.Lesson == nil {
			c.Band = ""
		}
	}
	return c
}

// latestCaption returns the scenario's caption, or the latest one in the
// history.
func (a *App) latestCaption() string {
	if d := a.S.Driver(); d != nil {
		if c := d.Caption(); c != "" {
			return c
		}
	}
	t, ok := a.S.World().LastCaption()
	if !ok {
		return ""
	}
	return captionMarkText(t)
}
