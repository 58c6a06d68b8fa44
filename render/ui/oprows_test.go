package ui

import (
	"fmt"
	"testing"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/render/present"
)

// checkOpRows checks the clients panel: the rows are the newest requests,
// in order, each with its whole outcome; the older ones are counted on a
// line inside the panel. No request disappears without a word.
func checkOpRows(t *testing.T, where string, a *App, f *Frame) {
	t.Helper()
	rows, older, note := f.opPanel(a)
	ops := f.View.Ops
	if len(rows)+older != len(ops) {
		t.Errorf("%s: %d requests, %d rows shown and %d counted as older", where, len(ops), len(rows), older)
		return
	}
	for k, row := range rows {
		if want := ops[len(ops)-1-k].ID; row.Op.ID != want {
			t.Errorf("%s: row %d is request #%d, want #%d", where, k, row.Op.ID, want)
		}
		if out := OpOutcome(f.L.Lang, row.Op, f.View.Now); !keepsOutcome(row.Lines, out) {
			t.Errorf("%s: request #%d's row %q cuts its outcome %q", where, row.Op.ID, row.Lines, out)
		}
		if !row.R.Inside(f.L.Clients) {
			t.Errorf("%s: request #%d's row is outside the clients panel", where, row.Op.ID)
		}
	}
	if older > 0 && !note.Inside(f.L.Clients) {
		t.Errorf("%s: the line that counts %d older requests is outside the panel", where, older)
	}
}

// Every frame of a few lessons, at the projector layout and at 1024x768:
// a request listed once stays listed until newer ones push it out, and
// then is counted. In split-brain at 1920x1080 scale 2 --present, request
// #1 (two lines) vanished at 1.21s with a line of room left, and came back
// at 3.13s.
func TestClientRowsNeverVanish(t *testing.T) {
	for _, name := range []string{"split-brain", "stale-read", "follower-forwarding"} {
		for _, sc := range []Screen{{W: 1920, H: 1080, Scale: 2, Present: true}, {W: 1024, H: 768, Scale: 1}, {W: 1280, H: 720, Scale: 1.5, Lang: i18n.Zh}} {
			l, err := present.Open(name, sc.Lang.String(), 0)
			if err != nil {
				t.Fatal(err)
			}
			a := NewAppFor(newSandbox(t), sc)
			if err := a.OpenLesson(l); err != nil {
				t.Fatal(err)
			}
			most := 0
			for n := 0; n < TPS*60*10 && !a.Lesson.ended(); n++ {
				a.Update()
				if a.Lesson.atPause() {
					a.Handle(Key("space", false))
				}
				if n%5 != 0 {
					continue
				}
				f := BuildFrame(a)
				most = max(most, len(f.View.Ops))
				checkOpRows(t, fmt.Sprintf("%s %dx%d@%g %s at %v", name, sc.W, sc.H, sc.Scale, sc.Lang, f.View.Now), a, f)
			}
			if most < 2 {
				t.Errorf("%s: only %d requests: the test sees too little", name, most)
			}
		}
	}
}
