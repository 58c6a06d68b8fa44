package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/render/present"
)

func TestShortPaths(t *testing.T) {
	got := ShortPaths("/registry/deployments/default/web")
	want := []string{"/registry/deployments/default/web", "/registry/…/default/web", "/registry/…/web", "…/web"}
	if !slices.Equal(got, want) {
		t.Errorf("ShortPaths = %q, want %q", got, want)
	}
	if got := ShortPaths("/k"); !slices.Equal(got, []string{"/k"}) {
		t.Errorf("ShortPaths(/k) = %q", got)
	}
}

// A key a lesson step names (shows: key:) leads each member's row of the
// state-machine panel, its value whole and its path shortened in the
// middle when the row is narrow, never cut from its left (its value, as
// the member has it by then, whole); disaster-recovery
// names the deployment web at each step of its story, and the configmap
// written with it at the start comes after it.
func TestNamedKeysLeadTheStateRows(t *testing.T) {
	requireCJK(t)
	l, err := present.Open("disaster-recovery", "en", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range []Screen{{W: 1024, H: 768, Scale: 1}, {W: 1024, H: 768, Scale: 2}, {W: 1920, H: 1080, Scale: 2}} {
		sc.Lang, sc.Present = i18n.En, true
		a := NewAppFor(newSandbox(t), sc)
		if err := a.OpenLesson(l); err != nil {
			t.Fatal(err)
		}
		seen := 0
		for presses := 0; presses < 200 && !a.Lesson.Ended(); presses++ {
			a.Handle(Key("pagedown", false))
			f := BuildFrame(a)
			keys := a.namedKeys()
			if len(keys) == 0 {
				continue
			}
			seen++
			for _, row := range f.StateRows() {
				if m, ok := memberView(f.View, row[0].S); !ok || !m.Up || !keys[0].For(m.Name) {
					continue
				}
				if len(row) < 2 {
					t.Fatalf("%dx%d@%g step %d: a row without keys: %v", sc.W, sc.H, sc.Scale, a.Lesson.Shown()+1, row)
				}
				pc := row[1]
				k := keys[0]
				if pc.Key != k.Key || strings.HasPrefix(pc.S, "…") || !pc.Missing && !strings.HasSuffix(pc.S, "="+pc.Value) {
					t.Errorf("%dx%d@%g step %d: %s's row starts with %q, want the key %s first, whole or shortened in its middle", sc.W, sc.H, sc.Scale, a.Lesson.Shown()+1, row[0].S, pc.S, k.Key)
				}
			}
		}
		if seen < 5 {
			t.Errorf("%dx%d@%g: %d steps named a key, want 5 or more", sc.W, sc.H, sc.Scale, seen)
		}
	}
}
