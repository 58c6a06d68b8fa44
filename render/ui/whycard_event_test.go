package ui

import (
	"strings"
	"testing"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/render/present"
	"github.com/raftsim/raftsim/sim"
)

// openLessonApp opens a lesson in the projector layout, in lang.
func openLessonApp(t *testing.T, name, lang string) *App {
	t.Helper()
	l, err := present.Open(name, lang, 0)
	if err != nil {
		t.Fatal(err)
	}
	a := NewAppFor(newSandbox(t), Screen{W: 1920, H: 1080, Scale: 2, Present: true})
	if lang == "zh" {
		a.SetLang(i18n.Zh)
	}
	if err := a.OpenLesson(l); err != nil {
		t.Fatal(err)
	}
	return a
}

// stepUntil steps the lesson a step at a time (the presenter's next-step
// key) until found finds what it wants on the frame, and returns it.
func stepUntil[T any](t *testing.T, a *App, what string, found func(*Frame) (T, bool)) T {
	t.Helper()
	for presses := 0; presses < 200 && !a.Lesson.Ended(); presses++ {
		a.Handle(Key("pagedown", false))
		a.Update()
		if v, ok := found(BuildFrame(a)); ok {
			return v
		}
	}
	t.Fatalf("no %s before the lesson's end", what)
	var zero T
	return zero
}

// clickWhy clicks p, which HitTest must find of kind k, and returns the
// card it opened, whose highlighted line must hold code in function fn
// (one of fns) and whose deciding citation must say says.
func clickWhy(t *testing.T, a *App, p Point, k HitKind, says, code string, fns ...string) *WhyCard {
	t.Helper()
	f := BuildFrame(a)
	if h := HitTest(f, p, false); h.Kind != k {
		t.Fatalf("HitTest at %v: %v, want %v", p, h.Kind, k)
	}
	for _, in := range Click(p, false) {
		a.Handle(in)
	}
	c := a.Why
	if c == nil {
		t.Fatalf("the click at %v opened no card", p)
	}
	if len(c.Log) == 0 || !strings.Contains(c.Log[c.hiLog()], says) {
		t.Fatalf("the card's deciding line does not say %q: %q %q (%q)", says, c.Lede, c.Log, c.Head)
	}
	okFn := false
	for _, fn := range fns {
		okFn = okFn || c.Func == fn
	}
	if !okFn || c.Hi < c.First || c.Hi >= c.First+len(c.Source) {
		t.Fatalf("source %s %s lines %d+%d, highlighted %d; want one of %q", c.File, c.Func, c.First, len(c.Source), c.Hi, fns)
	}
	if hi := c.Source[c.Hi-c.First]; !strings.Contains(hi, code) {
		t.Fatalf("the highlighted line is %q, not %q's", hi, code)
	}
	return c
}

// A click on a member's labels (its role, term and vote) opens the card of
// its latest role change: the leader's on becomeLeader's line, a
// follower's on the vote it cast (its learning the leader since changes
// none of its labels, and raft gives no reason for it). (Seen to
// fail with the labels' hit left out: "HitTest at ...: 0, want 9".)
func TestClickingAMembersLabelsShowsRaftsCode(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		a := openLessonApp(t, "first-election", lang)
		lead := stepUntil(t, a, "leader", func(f *Frame) (int, bool) {
			for i, m := range f.View.Members {
				if m.Role == sim.RoleLeader && i < len(f.Labels) {
					return i, true
				}
			}
			return 0, false
		})
		f := BuildFrame(a)
		c := clickWhy(t, a, f.Labels[lead].Center(), HitLabel, "became leader", "became leader", "(*raft).becomeLeader")
		if !strings.Contains(c.Title(a.Lang), f.View.Members[lead].Name) {
			t.Errorf("%s: the card's title %q does not name %s", lang, c.Title(a.Lang), f.View.Members[lead].Name)
		}
		if lang == "zh" && !strings.Contains(strings.Join(c.Gloss, ""), "成为领导者") {
			t.Errorf("zh: no gloss of becoming leader: %q", c.Gloss)
		}
		other := (lead + 1) % len(f.View.Members)
		clickWhy(t, a, f.Labels[other].Center(), HitLabel, "cast MsgVote for", "cast %s for %x", "(*raft).Step")
		a.Handle(Key("escape", false))
		if a.Why != nil {
			t.Errorf("%s: escape left the card open", lang)
		}
	}
}

// A click on a cell of the logs panel opens the card of the decision that
// put the entry there: a follower's uncommitted entry on
// handleAppendEntries's accepted MsgApp, a leader's on appendEntry, and a
// committed one on the commit that reached it. (Seen to fail with the
// cells' hit left out: "HitTest at ...: 0, want 11".)
func TestClickingALogCellShowsRaftsCode(t *testing.T) {
	type cell struct {
		p      Point
		leader bool
	}
	find := func(committed, leader bool) func(*Frame) (cell, bool) {
		return func(f *Frame) (cell, bool) {
			for _, r := range f.LogPanel().Rows {
				i, ok := f.Names[r.Name]
				if !ok || (f.View.Members[i].Role == sim.RoleLeader) != leader {
					continue
				}
				for _, c := range r.Cells {
					if !c.Compacted && c.Committed == committed && c.Term > 1 && f.L.Logs.Contains(c.R.Center()) {
						return cell{c.R.Center(), leader}, true
					}
				}
			}
			return cell{}, false
		}
	}
	commitFns := []string{"(*raftLog).maybeCommit", "(*raftLog).maybeAppend", "(*raft).handleHeartbeat", "(*raftLog).restore"}
	for _, lang := range []string{"en", "zh"} {
		a := openLessonApp(t, "figure-8-commit", lang)
		c := stepUntil(t, a, "uncommitted entry at a follower", find(false, false))
		clickWhy(t, a, c.p, HitLogCell, "appends up to index", "r.raftLog.maybeAppend(a, m.GetCommit()); ok", "(*raft).handleAppendEntries")
		c = stepUntil(t, a, "uncommitted entry at a leader", find(false, true))
		clickWhy(t, a, c.p, HitLogCell, "appends up to index", "r.raftLog.append(cloned...)", "(*raft).appendEntry")
		c = stepUntil(t, a, "committed entry at a leader", find(true, true))
		clickWhy(t, a, c.p, HitLogCell, "commits up to index", "l.matchTerm(at)", "(*raftLog).maybeCommit")
		c = stepUntil(t, a, "committed entry at a follower", find(true, false))
		clickWhy(t, a, c.p, HitLogCell, "commits up to index", "commit", commitFns...)
	}
}
