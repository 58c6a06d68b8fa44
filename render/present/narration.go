package present

import (
	"strconv"

	"github.com/raftsim/raftsim/i18n"
)

// NarrationKind is what the caption area shows.
type NarrationKind uint8

// The kinds of narration.
const (
	NarrNone      NarrationKind = iota // no lesson: the sandbox's caption, or a hint
	NarrSay                            // a caption
	NarrPause                          // a question, under the caption that led to it
	NarrChapter                        // a chapter's title
	NarrEnd                            // the lesson is over
	NarrTakenOver                      // the teacher has the controls
)

// Narration is what the caption area says now: the presenter decides it,
// the window lays it out and draws it.
type Narration struct {
	Kind NarrationKind
	// Chapter is the current chapter's title ("" before the first), and
	// ChapterNo its number of Chapters (1-based).
	Chapter             string
	ChapterNo, Chapters int
	// Step is the number of the step on screen (1-based) of Steps.
	Step, Steps int
	// Lead is, for a question, the caption that led to it (shown above
	// it); for the end, the last caption.
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

// Narration returns what the caption area says now.
func (p *Presenter) Narration() Narration {
	l := p.lesson
	lang := p.lang
	n := Narration{Steps: len(l.Steps), Chapters: len(l.Chapters)}
	shown := p.Shown()
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
			n.Lead = LeadOf(l.Steps, shown)
		default:
			n.Kind = NarrSay
		}
	}
	switch {
	case p.run == nil:
		n = n.TakenOver(lang)
	case p.Ended():
		n = n.End(lang)
		if err := p.run.Err(); err != nil {
			n.Text = lang.T("The lesson stopped early: ") + err.Error()
		}
	case p.AtPause():
		n.Hint = PauseHint(lang)
	case p.Pending():
		n.Waiting = true
		n.Hint = lang.T("Space: next")
	case shown < 0:
		n.Hint = lang.T("The lesson is starting…")
	}
	return n
}

// LeadOf returns the caption that led to the question at step k: the say
// before it, if nothing but a chapter came between.
func LeadOf(steps []Step, k int) string {
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

// TakenOver is the narration while the teacher has the cluster: what was
// on screen leads to the band saying that the lesson waits.
func (n Narration) TakenOver(lang i18n.Lang) Narration {
	n.Kind, n.Lead = NarrTakenOver, n.Text
	n.Text = lang.T("The lesson waits where you left it.")
	n.Hint = lang.T("Enter: resume it · PgUp: a step back · 1-9: a chapter")
	return n
}

// End is the narration at the end of the lesson, under its last caption.
func (n Narration) End(lang i18n.Lang) Narration {
	n.Kind, n.Lead = NarrEnd, n.Text
	n.Text = lang.T("End of the lesson.")
	n.Hint = lang.T("Space: the lesson list · PgUp: back a step · b: let the cluster run on")
	return n
}

// PauseHint is what the keys do at a question.
func PauseHint(lang i18n.Lang) string { return lang.T("Space: continue") }

// OutlineEntry is one line of the lesson so far (Tab): a chapter, or a
// caption shown so far.
type OutlineEntry struct {
	Chapter bool
	Key     string // the chapter's key, "1"…"9"
	Text    string
	Current bool // the step on screen
}

// OutlineEntries returns the lesson so far: every chapter, and under each
// the captions (and questions) shown so far, the one on screen marked.
// Captions not reached yet are left out, so that the class does not read
// ahead.
func (p *Presenter) OutlineEntries() []OutlineEntry {
	shown := p.Shown()
	var out []OutlineEntry
	for i, st := range p.lesson.Steps {
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
