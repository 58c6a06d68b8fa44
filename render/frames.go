package render

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/raftsim/raftsim/sim"
)

// Frames asks the window for images of its view at even steps of virtual
// time, for slides: frame-00000.png, frame-00001.png, ... in Dir, the first
// at From and one every Every up to To, then the game ends. (raftsim export
// --frames and --gif drive it.)
type Frames struct {
	Dir             string
	Every, From, To time.Duration
}

// framesAndExit plays to each frame's time, as the screenshot does, saves
// the view, and ends the game after the last.
func (g *Game) framesAndExit() error {
	f := g.opt.Frames
	if f.Every <= 0 || f.To < f.From {
		g.err = fmt.Errorf("frames: want a positive step and a window that ends after it starts (every %s, from %s to %s)", f.Every, f.From, f.To)
		return errDone
	}
	for i, t := 0, f.From; t <= f.To; i, t = i+1, t+f.Every {
		if err := g.PlayTo(sim.Time(t)); err != nil {
			g.err = err
			return errDone
		}
		if _, err := g.writePNG(filepath.Join(f.Dir, fmt.Sprintf("frame-%05d.png", i))); err != nil {
			g.err = err
			return errDone
		}
		if g.App.S.World().Violation() != nil {
			break
		}
	}
	return errDone
}

// PlayTo seeks to target and plays on to it through a scenario's presenter
// pauses, as a presenter would. It fails only if it cannot seek.
func (g *Game) PlayTo(target sim.Time) error {
	// In a lesson, App.Seek plays it again through every narrative step
	// up to target.
	if err := g.App.Seek(target); err != nil && g.App.S.World().Violation() == nil {
		return err
	}
	for i := 0; i < 1000 && g.App.S.Now() < target && g.App.S.World().Violation() == nil; i++ {
		if d := g.App.S.Driver(); d != nil {
			d.Resume()
		}
		if _, err := g.App.S.AdvanceTo(target); err != nil {
			g.App.Status = err.Error()
			break
		}
	}
	return nil
}
