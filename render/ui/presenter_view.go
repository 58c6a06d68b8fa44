package ui

import (
	"math"
	"strconv"
	"strings"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/render/present"
)

// NarrationKind is what the caption panel shows.
type NarrationKind uint8

// The kinds of narration.
const (
	NarrNone      NarrationKind = iota // the sandbox: its latest caption, or a hint
	NarrSay                            // a caption
	NarrPause                          // a question, under the caption that led to it
	NarrChapter                        // a chapter's title
	NarrEnd                            // the lesson is over
	NarrTakenOver                      // the teacher has the controls
)

// Narration is what the caption panel shows now: the drawing reads it,
// the presenter decides it.
type Narration struct {
	Kind NarrationKind
	// Chapter is the current chapter's title ("" before the first), and
	// ChapterNo its number of Chapters (1-based).
	Chapter             string
	ChapterNo, Chapters int
	// Step is the number of the step on screen (1-based) of Steps.
	Step, Steps int
	// Lead is, for a pause, the caption that led to it (shown above the
	// question); for the end, the last caption.
	Lead string
	// Text is the caption, the question, the chapter's title, or for
	// NarrEnd and NarrTakenOver what happened.
	Text string
	// Hint says what the presenter's keys do now.
	Hint string
	// Waiting says that the next step has come and waits for this one
	// to be read (time stands still meanwhile).
	Waiting bool
}

// Narration returns what the caption panel shows.
func (a *App) Narration() Narration {
	p := a.Lesson
	if p == nil {
		return Narration{Kind: NarrNone}
	}
	l := p.Lesson
	n := Narration{Steps: len(l.Steps), Chapters: len(l.Chapters)}
	shown := p.onScreen()
	if shown >= 0 {
		st := l.Steps[shown]
		n.Step = shown + 1
		if st.Chapter >= 0 {
			n.ChapterNo = st.Chapter + 1
			n.Chapter = l.Steps[l.Chapters[st.Chapter]].Text
		}
		n.Text = st.Text
		switch {
		case st.IsChapter():
			n.Kind = NarrChapter
		case st.IsPause():
			n.Kind = NarrPause
			n.Lead = a.leadOf(shown)
		default:
			n.Kind = NarrSay
		}
	}
	switch {
	case p.run == nil:
		n = n.takenOver(a.Lang)
	case p.ended() && !p.pending():
		n = n.end(a.Lang)
		if err := p.run.Err(); err != nil {
			n.Text = a.Lang.T("The lesson stopped early: ") + err.Error()
		}
	case p.atPause():
		n.Hint = pauseHint(a.Lang)
	case p.pending():
		n.Waiting = true
		n.Hint = a.Lang.T("Space: next")
	case shown < 0:
		n.Hint = a.Lang.T("The lesson is starting…")
	}
	return n
}

// leadOf returns the caption that led to the pause at step k: the say
// before it, if nothing but a chapter came between.
func (a *App) leadOf(k int) string { return leadOf(a.Lesson.Lesson.Steps, k) }

func leadOf(steps []present.Step, k int) string {
	for i := k - 1; i >= 0; i-- {
		switch {
		case steps[i].IsChapter():
			return ""
		case !steps[i].IsPause():
			return steps[i].Text
		}
	}
	return ""
}

// Header is what the toolbar says, besides the clock: the drawing lays it
// out (the title may be shortened; the rest may not).
type Header struct {
	Title   string // "sandbox", or the lesson's name and title
	Chapter string // the current chapter, with its number: "2/3 The partition"
	Step    string // "step 5/9"
	Rate    string // "1/36× adaptive", "1/10× fixed"
	State   string // "▶ playing", "|| paused", "|| question", …
}

// Header returns what the toolbar says now.
func (a *App) Header() Header {
	h := Header{Title: a.shownTitle()}
	mode := a.Lang.T("adaptive")
	if a.Pace.Fixed {
		mode = a.Lang.T("fixed")
	} else if a.Pace.Scale != 1 {
		mode += " ×" + present.ScaleLabel(a.Pace.Scale)
	}
	h.Rate = a.SpeedLabel() + " " + mode
	n := a.Narration()
	if n.Chapter != "" {
		h.Chapter = strconv.Itoa(n.ChapterNo) + "/" + strconv.Itoa(n.Chapters) + " " + n.Chapter
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
	case n.Kind == NarrPause && a.Lesson.atPause():
		h.State = a.Lang.T("|| question")
	case n.Kind == NarrEnd && !a.Lesson.afterEnd:
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

// shownTitle names what is on screen: the lesson's title (its name if it
// has none), the picker, or what the host named it (the sandbox). A
// lesson's title alone: the header has little room left of the clock, and
// "raftsim · split-brain: Split brain" was cut to "raftsim…" at 1024x768
// and in the projector layout.
func (a *App) shownTitle() string {
	if p := a.Lesson; p != nil {
		if p.Lesson.Title != "" {
			return p.Lesson.Title
		}
		return p.Lesson.Name
	}
	if a.Picker != nil {
		return a.Lang.T("lessons")
	}
	if a.Title != "" {
		return a.Title
	}
	return a.Lang.T("sandbox")
}

// OutlineEntry is one line of the lesson outline (Tab): a chapter, or a
// caption shown so far.
type OutlineEntry struct {
	Chapter bool
	Key     string // the chapter's key, "1"…"9"
	Text    string
	Current bool // the step on screen
}

// OutlineEntries returns the lesson's outline: every chapter, and under
// each the captions (and questions) shown so far, the one on screen
// marked. Captions not reached yet are left out, so that the class does
// not read ahead.
func (a *App) OutlineEntries() []OutlineEntry {
	p := a.Lesson
	if p == nil {
		return nil
	}
	shown := p.onScreen()
	var out []OutlineEntry
	for i, st := range p.Lesson.Steps {
		switch {
		case st.IsChapter():
			key := ""
			if st.Chapter < 9 {
				key = strconv.Itoa(st.Chapter + 1)
			}
			out = append(out, OutlineEntry{Chapter: true, Key: key, Text: st.Text, Current: i == shown})
		case i <= shown:
			text := st.Text
			if st.IsPause() {
				text = "? " + text
			}
			out = append(out, OutlineEntry{Text: text, Current: i == shown})
		}
	}
	return out
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

// takenOver is the narration while the teacher has the cluster: what
// was on screen leads to the band saying that the lesson waits.
func (n Narration) takenOver(lang i18n.Lang) Narration {
	n.Kind, n.Lead = NarrTakenOver, n.Text
	n.Text = lang.T("The lesson waits where you left it.")
	n.Hint = lang.T("Enter: resume it · PgUp: a step back · 1-9: a chapter")
	return n
}

// end is the narration at the end of the lesson, under its last caption.
func (n Narration) end(lang i18n.Lang) Narration {
	n.Kind, n.Lead = NarrEnd, n.Text
	n.Text = lang.T("End of the lesson.")
	n.Hint = lang.T("Space: the lesson list · PgUp: back a step · b: let the cluster run on")
	return n
}

func pauseHint(lang i18n.Lang) string { return lang.T("Space: continue") }

// Caption composes what the caption area says for a narration: the
// chapter on the top row, the caption, and a band (a question, the end,
// the lesson waiting) under the caption that led to it. The layout sizes
// the area from these very texts (LessonCaptions), and the renderer draws
// them, choosing the band's colour by n.Kind.
func (n Narration) Caption(lang i18n.Lang) CaptionText {
	c := CaptionText{Text: n.Text}
	if n.Chapter != "" && n.Kind != NarrChapter {
		c.Chapter = lang.F("Chapter %d/%d · %s", n.ChapterNo, n.Chapters, n.Chapter)
	}
	switch n.Kind {
	case NarrChapter:
		c.Text = lang.F("Chapter %d · %s", n.ChapterNo, n.Text)
	case NarrPause, NarrEnd, NarrTakenOver:
		c.Lead, c.Band, c.Text = n.Lead, n.Text, ""
		if n.Hint != "" {
			c.Band += "   — " + n.Hint
		}
	}
	if n.Step == 0 && n.Kind != NarrTakenOver {
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
	var last Narration
	for i, st := range l.Steps {
		n := Narration{Kind: NarrSay, Step: i + 1, Steps: len(l.Steps), Text: st.Text}
		switch {
		case st.IsChapter():
			n.Kind, n.ChapterNo = NarrChapter, st.Chapter+1
		case st.IsPause():
			n.Kind, n.Lead, n.Hint = NarrPause, leadOf(l.Steps, i), pauseHint(lang)
		}
		out = append(out, n.Caption(lang).lines())
		last = Narration{Step: i + 1, Text: st.Text}
	}
	return append(out, last.end(lang).Caption(lang).lines(), last.takenOver(lang).Caption(lang).lines())
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
