package ui

import (
	"slices"
	"strconv"
	"strings"

	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

// ShowsText returns, for each thing the lesson's step on screen names
// (its shows:), the words a class reads for it, as the window writes
// them: a member's name; a request's number and operation ("#2 put"; its
// status is a word in a coloured chip, which OCR does not read reliably,
// so it is left to render/ui's checkShows); an entry's or a commit index's
// member and number. What reads the screen back (the
// lesson walk's OCR) looks for each; they are worked out from the
// lesson's run, not from what the window drew. A request not sent yet,
// or an entry not yet in its member's log, is left out: the caption
// speaks of what is about to happen.
func (a *App) ShowsText() [][]string {
	if a.Lesson == nil {
		return nil
	}
	var out [][]string
	for _, s := range a.Lesson.Shows() {
		switch s.Kind {
		case scenarios.ShowRequest:
			if op := a.S.World().Op(s.Label); op != nil { // else not sent yet
				out = append(out, []string{"#" + strconv.FormatUint(op.ID, 10) + " " + op.Kind.String()})
			}
		case scenarios.ShowMember:
			out = append(out, []string{s.Member})
		case scenarios.ShowEntry:
			if m, ok := memberView(a.S.World().View(), s.Member); ok && m.LastIndex < s.Index {
				continue // not appended yet (the caption speaks of what comes)
			}
			out = append(out, []string{s.Member, strconv.FormatUint(s.Index, 10)})
		case scenarios.ShowCommit:
			out = append(out, []string{s.Member, strconv.FormatUint(s.Index, 10)})
		case scenarios.ShowKey:
			// The key's last segment (its object's name) and the value.
			paths := ShortPaths(s.Key)
			words := []string{strings.TrimPrefix(paths[len(paths)-1], "…/")}
			if !s.Absent {
				words = append(words, s.Value)
			}
			out = append(out, words)
		case scenarios.ShowAlarm:
			for _, m := range a.S.World().View().Members {
				if m.Up && (NamedKey{On: s.On}).For(m.Name) && slices.Contains(m.Alarms, s.Key) {
					out = append(out, []string{s.Key}) // else not raised yet
					break
				}
			}
		}
	}
	return out
}

// memberView finds a member in a view of the world.
func memberView(v sim.View, name string) (sim.MemberView, bool) {
	for _, m := range v.Members {
		if m.Name == name {
			return m, true
		}
	}
	return sim.MemberView{}, false
}

// NamedChip is the status chip of a request the step on screen names: the
// word it says and where it is, and where the row's words are.
type NamedChip struct {
	Label, Status string
	R, Text       Rect
}

// NamedChips returns the chips of the rows of the requests the step on
// screen names (its shows:) that the clients panel holds now, so that what
// reads the screen back can read each chip's word on its own (tesseract
// misses white words on a coloured chip in a whole screen).
func (a *App) NamedChips() []NamedChip {
	pinned := a.pinned()
	if len(pinned) == 0 {
		return nil
	}
	f := BuildFrame(a)
	var out []NamedChip
	for _, row := range f.OpRows(a) {
		if row.Op.Label != "" && slices.Contains(pinned, row.Op.Label) {
			text := Rect{X: row.Chip.Right(), Y: row.R.Y, W: row.R.Right() - row.Chip.Right(), H: row.R.H}
			out = append(out, NamedChip{Label: row.Op.Label, Status: row.Status, R: row.Chip, Text: text})
		}
	}
	return out
}
