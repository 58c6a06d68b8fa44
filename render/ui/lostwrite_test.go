package ui

import (
	"testing"
	"time"

	"github.com/raftsim/raftsim/render/present"
	"github.com/raftsim/raftsim/sim"
)

// TestTheLostWriteStaysInView: in leader-crash at 7.30 s (the projector
// layout at 1920x1080, scale 2), the write forwarded to the dead leader has
// timed out; the clients panel has room for it beside the newer request,
// so its row, with its timeout, is shown rather than counted among
// "+N older requests" (issue 36: it was hidden, though a row fitted when
// in its short form).
func TestTheLostWriteStaysInView(t *testing.T) {
	l, err := present.Open("leader-crash", "en", 0)
	if err != nil {
		t.Fatal(err)
	}
	a := NewAppFor(newSandbox(t), Screen{W: 1920, H: 1080, Scale: 2, Present: true})
	if err := a.OpenLesson(l); err != nil {
		t.Fatal(err)
	}
	at := sim.Time(7300 * time.Millisecond)
	for n := 0; n < TPS*60*10 && !a.Lesson.Ended(); n++ {
		a.Update()
		if a.Lesson.AtPause() {
			a.Handle(Key("space", false))
		}
		if a.S.Now() >= at {
			break
		}
	}
	f := BuildFrame(a)
	if f.View.Now < at {
		t.Fatalf("the lesson ended at %v, before %v", f.View.Now, at)
	}
	timedOut := 0
	for _, op := range f.View.Ops {
		if op.Status == sim.OpTimeout {
			timedOut++
		}
	}
	if timedOut == 0 {
		t.Fatalf("at %v no request has timed out: the lesson changed", f.View.Now)
	}
	for _, row := range f.OpRows(a) {
		if row.Op.Status == sim.OpTimeout {
			return
		}
	}
	t.Errorf("at %v the timed-out write has no row in the clients panel (%d rows shown)", f.View.Now, len(f.OpRows(a)))
}
