package present

import (
	"strconv"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/scenarios"
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

var narrationKindNames = [...]string{"none", "say", "pause", "chapter", "end", "taken-over"}

// String names the kind, for a test's report.
func (k NarrationKind) String() string {
	if int(k) < len(narrationKindNames) {
		return narrationKindNames[k]
	}
	return "unknown"
}

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

// Shown is one thing the step on screen names (its shows:), resolved: what
// the window must show now.
type Shown struct {
	Kind scenarios.ShowKind
	// Label is a request's label (its as:).
	Label string
	// Member is the member of an entry, a member or a commit index.
	Member string
	// Index is an entry's index or a commit index; Term an entry's term.
	Index, Term uint64
	// Key is a key of the state machines, Value its value (Absent: none),
	// on the members On (nil: every member); or an alarm raised on them.
	Key, Value string
	Absent     bool
	On         []string
}

// Shows returns what the step on screen names, resolved against the
// lesson's run as it is now: a $name bound, @leader as it is. An item
// whose member cannot be told yet (a $name bound later in the step) is
// left out until it can. Taken over, the screen is the teacher's: none.
func (p *Presenter) Shows() []Shown {
	if p.run == nil || p.shown < 0 {
		return nil
	}
	var out []Shown
	for _, sh := range p.lesson.Steps[p.shown].Shows {
		s := Shown{Kind: sh.Kind, Label: sh.Label, Index: sh.Index, Term: sh.Term, Key: sh.Key, Value: sh.Value, Absent: sh.Absent}
		if sh.Kind == scenarios.ShowKey || sh.Kind == scenarios.ShowAlarm {
			s.On = p.run.resolveOn(sh.On)
			out = append(out, s)
			continue
		}
		if sh.Kind != scenarios.ShowRequest {
			name, ok := p.run.Resolve(sh.Node)
			if !ok {
				continue
			}
			s.Member = name
		}
		out = append(out, s)
	}
	return out
}
