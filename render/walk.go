package render

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/raftsim/raftsim/outfile"
	"github.com/raftsim/raftsim/render/present"
	"github.com/raftsim/raftsim/render/ui"
)

// walk steps through a lesson as a presenter with a clicker does
// (PageDown, again and again) and saves a PNG of the window at each of its
// narrative steps (step-001.png, ...) and at its end (end.png). Started at
// the lesson picker, it walks every lesson in the picker's order, going
// from the end of one to the next as a class does (Space at the end opens
// the picker with the next lesson chosen, Space again opens it), each
// into a directory of its own. WalkOut gets a line for each picture: the
// lesson, the step, the time, and where the caption area is (x y w h);
// then a line for each thing the step names (ui.App.ShowsText), and one
// for the status chip of each request it names (ui.App.NamedChips).
func (g *Game) walk() error {
	a := g.App
	all := a.Lesson == nil
	if all {
		if a.Picker == nil {
			g.err = errors.New("--walk needs a lesson (raftsim-gui play NAME --walk DIR) or the picker (raftsim-gui play --walk DIR)")
			return errDone
		}
		a.Handle(ui.Key("space", false))
		// DIR holds a folder per lesson: it is made first (its parent
		// must exist, package outfile's rule), then each lesson's.
		if _, err := outfile.Dir(g.opt.WalkDir); err != nil {
			g.err = err
			return errDone
		}
	}
	for {
		if a.Lesson == nil {
			g.err = errors.New("--walk: no lesson opened")
			return errDone
		}
		name := a.Lesson.Lesson().Name
		dir := g.opt.WalkDir
		if all {
			dir = filepath.Join(dir, name)
		}
		if err := g.walkLesson(name, dir); err != nil {
			g.err = err
			return errDone
		}
		if !all {
			return errDone
		}
		a.Handle(ui.Key("space", false)) // the end: the picker, the next lesson chosen
		if a.Picker == nil {
			g.err = fmt.Errorf("--walk: Space at the end of %s did not open the picker", name)
			return errDone
		}
		if a.Picker.Lessons[a.Picker.Sel].Name == name {
			return errDone // the last lesson
		}
		a.Handle(ui.Key("space", false))
	}
}

// walkLesson steps through the lesson on screen to its end.
func (g *Game) walkLesson(name, dir string) error {
	a := g.App
	shot := func(file, what string) error {
		if _, err := g.writePNG(filepath.Join(dir, file)); err != nil {
			return err
		}
		if g.opt.WalkOut != nil {
			c := a.L.Caption
			g.opt.WalkOut(fmt.Sprintf("%s %s at %s; caption area %.0f %.0f %.0f %.0f", name, what, a.S.Now(), c.X, c.Y, c.W, c.H))
			// What the step names (its shows:), as the words a class
			// reads for each: "split-brain step 8 of 8 shows #2 put".
			for _, words := range a.ShowsText() {
				g.opt.WalkOut(fmt.Sprintf("%s %s shows %s", name, what, strings.Join(words, " | ")))
			}
			// And the status chip of each request it names, with the
			// word it says, and where its row's words are:
			// "split-brain step 8 of 8 chip w2 timeout 1412 300 96 28
			// text 1508 299 400 90".
			for _, c := range a.NamedChips() {
				g.opt.WalkOut(fmt.Sprintf("%s %s chip %s %s %.0f %.0f %.0f %.0f text %.0f %.0f %.0f %.0f", name, what, c.Label, c.Status,
					c.R.X, c.R.Y, c.R.W, c.R.H, c.Text.X, c.Text.Y, c.Text.W, c.Text.H))
			}
			// And whatever it names that the frame hides though it could
			// show it: "split-brain step 8 of 8 missing request w2 ...".
			if g.opt.WalkFrames {
				for _, m := range a.ShowsMissing() {
					g.opt.WalkOut(fmt.Sprintf("%s %s missing %s", name, what, m))
				}
			}
		}
		return nil
	}
	for presses := 0; presses < 10_000; presses++ {
		if g.opt.WalkFrames && presses > 0 {
			if err := g.playStep(shot); err != nil {
				return err
			}
			if a.Narration().Kind == present.NarrEnd {
				// The last step played to the end of the script: the
				// end is on screen (a key now would open the picker).
				return shot("end.png", "end")
			}
		}
		before := a.Narration()
		a.Handle(ui.Key("pagedown", false))
		now := a.Narration()
		if now.Kind == present.NarrEnd {
			return shot("end.png", "end")
		}
		if now.Step == before.Step {
			continue // a question answered, or time set going
		}
		if err := shot(fmt.Sprintf("step-%03d.png", now.Step), fmt.Sprintf("step %d of %d", now.Step, now.Steps)); err != nil {
			return err
		}
	}
	return fmt.Errorf("--walk: %s did not end after 10,000 presses", name)
}
