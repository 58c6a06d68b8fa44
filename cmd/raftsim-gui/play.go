package main

import "github.com/raftsim/raftsim/render/ui"

// saveSession writes the session as a scenario YAML (see ui.SaveSession).
func saveSession(s *ui.Session, dir string) (string, error) { return ui.SaveSession(s, dir) }
