package main

import (
	"fmt"

	"github.com/raftsim/raftsim/render/ui"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

// playSession opens a scenario file or a built-in lesson for the window. The
// scenario's runner drives the world while the user watches at its head;
// seeking back replays the command log, and acting in the past drops the
// runner (the rest of the script is then no longer what it was written for).
func playSession(name string, seed uint64, lang string) (*ui.Session, string, error) {
	s, err := scenarios.Load(name)
	if err != nil {
		return nil, "", err
	}
	r, err := scenarios.NewRunner(s, scenarios.RunOptions{Seed: seed, SeedSet: seed != 0, Lang: lang, PauseStops: true})
	if err != nil {
		return nil, "", err
	}
	title := s.Name
	if t := s.Title.In(lang); t != "" {
		title = s.Name + ": " + t
	}
	return ui.NewDriven(&runnerDriver{r: r}), title, nil
}

// runnerDriver adapts a scenarios.Runner to ui.Driver. After the script's
// last step, or after an expectation failed, the world simply runs on.
type runnerDriver struct {
	r    *scenarios.Runner
	done bool
}

func (d *runnerDriver) World() *sim.World { return d.r.World() }
func (d *runnerDriver) Resume()           { d.r.Resume() }
func (d *runnerDriver) Done() bool        { return d.done }
func (d *runnerDriver) Caption() string   { return d.r.Caption() }

func (d *runnerDriver) Advance(until sim.Time) (bool, error) {
	if d.done {
		return false, d.r.World().RunUntil(until)
	}
	st, err := d.r.Advance(until)
	switch st {
	case scenarios.Paused:
		return true, nil
	case scenarios.Done:
		d.done = true
		return false, d.r.World().RunUntil(until)
	case scenarios.Failed:
		d.done = true
		if d.r.World().Violation() != nil {
			return false, err
		}
		return false, fmt.Errorf("the scenario stopped: %v (the cluster runs on; you can keep acting on it)", err)
	}
	return false, nil
}

// saveSession writes the session as a scenario YAML (see ui.SaveSession).
func saveSession(s *ui.Session, dir string) (string, error) { return ui.SaveSession(s, dir) }
