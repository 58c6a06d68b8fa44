package render

import (
	"fmt"

	"github.com/raftsim/raftsim/render/present"
	"time"
)

// walkTick is how far the walk moves time between the frames it looks at
// while a step is on screen (--walk-frames).
const walkTick = 5 * time.Millisecond

// playStep plays the step on screen (--walk-frames) up to the instant the
// next one runs, as the window would while the class reads it, and takes
// a frame wherever what the step names changes (change-NNN-K.png: a
// request's outcome, a member's role or term, an entry, a commit index, a
// key's value) and its last frame (last-NNN.png), just before the next
// step replaces it. A question not answered yet holds time: nothing plays.
func (g *Game) playStep(shot func(file, what string) error) error {
	a := g.App
	p := a.Lesson
	n := a.Narration()
	if p == nil || p.TakenOver() || p.AtPause() || p.Pending() || p.Run().Done() || n.Kind == present.NarrEnd || n.Step == 0 {
		return nil
	}
	what := fmt.Sprintf("step %d of %d", n.Step, n.Steps)
	state := a.ShowsState()
	start := a.S.Now()
	changes := 0
	for i := 0; i < 1_000_000 && !p.Pending() && !p.Run().Done(); i++ {
		if _, err := a.S.AdvanceTo(a.S.Now().Add(walkTick)); err != nil {
			return err
		}
		if p.Pending() || p.Run().Done() {
			break // the next step has run: its instant is this step's last frame
		}
		if s := a.ShowsState(); s != state {
			state = s
			changes++
			if err := shot(fmt.Sprintf("change-%03d-%d.png", n.Step, changes), fmt.Sprintf("%s change %d", what, changes)); err != nil {
				return err
			}
		}
	}
	if p.Run().Done() && !p.Pending() {
		return nil // the last step: the end's frame is its last
	}
	if a.S.Now() == start && changes == 0 {
		return nil // the next step came at once: the first frame was the last
	}
	return shot(fmt.Sprintf("last-%03d.png", n.Step), what+" last")
}
