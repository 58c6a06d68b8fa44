package main

import (
	"fmt"
	"io"
)

// TODO(core issue): run, validate and lessons over the scenarios package.
func runCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return fmt.Errorf("run: not built yet")
}

func validateCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return fmt.Errorf("validate: not built yet")
}

func lessonsCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return fmt.Errorf("lessons: not built yet")
}
