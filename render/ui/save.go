package ui

import (
	"path/filepath"
	"strconv"

	"github.com/raftsim/raftsim/outfile"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

// SessionScenarioName is the name a saved session's scenario gets.
const SessionScenarioName = "gui-session"

// MarshalSession writes the session as a scenario: the configuration and
// the commands of the current branch up to the moment shown (each stamped
// with its virtual time), ending with a wait up to that moment. `raftsim run`
// on it replays the same run, so its trace is byte for byte the trace of
// the world on screen.
func MarshalSession(s *Session) ([]byte, error) {
	var cmds []sim.Command
	now := s.Now()
	for _, c := range s.Commands() {
		if c.At <= now {
			cmds = append(cmds, c)
		}
	}
	return scenarios.MarshalWith(scenarios.MarshalOptions{Name: SessionScenarioName, End: now}, s.Config(), cmds)
}

// SaveSession writes MarshalSession's scenario into dir, named after the
// virtual time, and returns its path.
func SaveSession(s *Session, dir string) (string, error) {
	data, err := MarshalSession(s)
	if err != nil {
		return "", err
	}
	if _, err := outfile.Dir(dir); err != nil {
		return "", err
	}
	path := filepath.Join(dir, SessionFileName(s))
	return path, outfile.WriteFile(path, data)
}

// SessionFileName is the name a saved session's file gets: named after
// the virtual time.
func SessionFileName(s *Session) string {
	return "raftsim-session-t" + strconv.FormatInt(s.Now().Duration().Milliseconds(), 10) + "ms.yaml"
}
