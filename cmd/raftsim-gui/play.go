package main

import (
	"fmt"

	"github.com/raftsim/raftsim/render/ui"
)

// playSession opens a scenario for the window.
func playSession(name string, seed uint64, lang string) (*ui.Session, string, error) {
	return nil, "", fmt.Errorf("play %s: the scenario runner is not available in this build yet; try 'raftsim run %s'", name, name)
}

// saveSession writes the session as a scenario YAML.
func saveSession(s *ui.Session, dir string) (string, error) {
	return "", fmt.Errorf("the scenario writer is not available in this build yet")
}
