package ui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/raftsim/raftsim/scenarios"
)

// What the screen walk asks of every frame it takes (render/walk.go):
// whether each thing the step on screen names is on screen
// (ShowsMissing), and what those things are now (ShowsState), so that it
// can take a frame wherever a named outcome changes.

// ShowsMissing returns each thing the step on screen names that the frame
// does not show though it could: a request sent whose row is not in the
// clients panel, an entry appended that is not drawn, a member not on the
// ring, a key whose row is not in the state-machine panel.
func (a *App) ShowsMissing() []string {
	if a.Lesson == nil {
		return nil
	}
	f := BuildFrame(a)
	rows, _, _ := f.opPanel(a)
	var out []string
	var state [][]StatePiece
	for _, sh := range a.Lesson.Shows() {
		switch sh.Kind {
		case scenarios.ShowRequest:
			op := a.S.World().Op(sh.Label)
			if op == nil {
				continue
			}
			found := false
			for _, r := range rows {
				found = found || r.Op.ID == op.ID
			}
			if !found {
				out = append(out, fmt.Sprintf("request %s (#%d %s) is not in the clients panel", sh.Label, op.ID, op.Kind))
			}
		case scenarios.ShowEntry:
			if m, ok := memberView(f.View, sh.Member); ok && m.LastIndex < sh.Index {
				continue
			}
			found := false
			for _, r := range f.LogPanel().Rows {
				for _, c := range r.Cells {
					found = found || r.Name == sh.Member && c.Index == sh.Index && !c.Compacted && c.R.Inside(f.L.Logs)
				}
			}
			if !found {
				out = append(out, fmt.Sprintf("%s's entry %d is not drawn", sh.Member, sh.Index))
			}
		case scenarios.ShowMember, scenarios.ShowCommit:
			if _, ok := f.Names[sh.Member]; !ok {
				out = append(out, sh.Member+" is not on the ring")
			}
		case scenarios.ShowAlarm:
			if state == nil {
				state = f.StateRows()
			}
			for _, m := range f.View.Members {
				if !m.Up || !(NamedKey{On: sh.On}).For(m.Name) || !slices.Contains(m.Alarms, sh.Key) {
					continue // not raised yet: the caption speaks of what comes
				}
				found := false
				for _, row := range state {
					if len(row) > 0 && row[0].S == m.Name {
						for _, pc := range row[1:] {
							found = found || pc.DB && pc.Bad && strings.Contains(pc.S, sh.Key)
						}
					}
				}
				if !found {
					out = append(out, fmt.Sprintf("%s's alarm %s is not in the state machines panel", m.Name, sh.Key))
				}
			}
		case scenarios.ShowKey:
			if state == nil {
				state = f.StateRows()
			}
			for _, m := range f.View.Members {
				if !m.Up || !(NamedKey{On: sh.On}).For(m.Name) {
					continue
				}
				found := false
				for _, row := range state {
					if len(row) > 0 && row[0].S == m.Name {
						for _, pc := range row[1:] {
							found = found || pc.Key == sh.Key
						}
					}
				}
				if !found {
					out = append(out, fmt.Sprintf("%s's key %s is not in the state machines panel", m.Name, sh.Key))
				}
			}
		}
	}
	return out
}

// ShowsState says what each thing the step on screen names is now: a
// request's status, a member's role and term, an entry's term, a commit
// index, a key's value on each member. It changes when a named outcome
// does.
func (a *App) ShowsState() string {
	if a.Lesson == nil {
		return ""
	}
	w := a.S.World()
	var b strings.Builder
	for _, sh := range a.Lesson.Shows() {
		switch sh.Kind {
		case scenarios.ShowRequest:
			if op := w.Op(sh.Label); op != nil {
				fmt.Fprintf(&b, "%s=%s;", sh.Label, op.Status)
			}
		case scenarios.ShowMember:
			if in, ok := w.Info(sh.Member); ok {
				fmt.Fprintf(&b, "%s=%s/%d;", sh.Member, in.Role, in.Term)
			}
		case scenarios.ShowCommit:
			if in, ok := w.Info(sh.Member); ok {
				fmt.Fprintf(&b, "%s.commit=%d;", sh.Member, in.Commit)
			}
		case scenarios.ShowEntry:
			terms, _ := w.LogTerms(sh.Member)
			var t uint64
			if sh.Index <= uint64(len(terms)) {
				t = terms[sh.Index-1]
			}
			fmt.Fprintf(&b, "%s[%d]=%d;", sh.Member, sh.Index, t)
		case scenarios.ShowAlarm:
			for _, in := range w.Infos() {
				fmt.Fprintf(&b, "%s:alarms=%v;", in.Name, w.Alarms(in.Name))
			}
		case scenarios.ShowKey:
			for _, in := range w.Infos() {
				if (NamedKey{On: sh.On}).For(in.Name) {
					v, ok := w.KVGet(in.Name, sh.Key)
					fmt.Fprintf(&b, "%s:%s=%s/%s;", in.Name, sh.Key, strconv.FormatBool(ok), v)
				}
			}
		}
	}
	return b.String()
}
