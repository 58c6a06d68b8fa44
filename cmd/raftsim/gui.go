package main

import (
	"fmt"
	"io"
)

// sandboxCmd and playCmd start the GUI binary (see DESIGN.md: ebiten cannot
// be linked into a binary that must run without a display).
// TODO(gui issue): exec raftsim-gui next to os.Executable() or on PATH.
func sandboxCmd(stdout, stderr io.Writer) error {
	return &exitError{code: exitBadInput, err: fmt.Errorf("raftsim: the window is not built yet; try 'raftsim run first-election'")}
}

func playCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return sandboxCmd(stdout, stderr)
}
