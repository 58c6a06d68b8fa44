package ui

import (
	"strings"
	"testing"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/render/present"
)

// A lesson step with why: opens its card as it comes on screen, on the
// line it names, and the card closes when the next step replaces it: in
// split-brain, CheckQuorum's step-down in stepLeader, in both languages.
// (Seen to fail with the card left unopened: syncLessonWhy not called.)
func TestLessonWhyStepOpensTheCard(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		l, err := present.Open("split-brain", lang, 0)
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
		opened := -1
		for presses := 0; presses < 100 && !a.Lesson.Ended(); presses++ {
			a.Handle(Key("pagedown", false))
			a.Update()
			if a.Why == nil {
				if opened >= 0 && a.Lesson.Shown() != opened {
					break // closed by the next step
				}
				continue
			}
			if opened >= 0 {
				if a.Lesson.Shown() != opened {
					t.Fatalf("%s: step %d's card is still open on step %d", lang, opened+1, a.Lesson.Shown()+1)
				}
				continue
			}
			opened = a.Lesson.Shown()
			c := a.Why
			if c.Func != "stepLeader" || c.File != "raft.go" || c.Hi != 1283 {
				t.Fatalf("%s: the card shows %s %s, line %d highlighted", lang, c.File, c.Func, c.Hi)
			}
			if hi := c.Source[c.Hi-c.First]; !strings.Contains(hi, "stepped down to follower since quorum is not active") {
				t.Fatalf("%s: the highlighted line is %q", lang, hi)
			}
			if !strings.Contains(c.Title(a.Lang), "etcd-") || !strings.Contains(c.Lede, "etcd-") || lang == "zh" && !strings.Contains(c.Lede, "做出这个决定") {
				t.Errorf("%s: title %q, lede %q", lang, c.Title(a.Lang), c.Lede)
			}
			if lang == "zh" && !strings.Contains(strings.Join(c.Gloss, ""), "领导者退位") {
				t.Errorf("zh: no gloss of the step-down: %q", c.Gloss)
			}
		}
		if opened < 0 {
			t.Fatalf("%s: no step opened a card", lang)
		}
		if a.Why != nil {
			t.Fatalf("%s: the card of step %d is still open", lang, opened+1)
		}
	}
}
