package main

import (
	"fmt"
	"io"
	"os"
)

// outputWriter is standard output as the commands see it. It remembers the
// first write that failed, so that a transcript cut short (a full disk, a
// closed pipe, /dev/full) is an error with its own exit code even where a
// command wrote through fmt.Fprint and did not look at the error.
type outputWriter struct {
	w   io.Writer
	err error
}

func (o *outputWriter) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err != nil {
		o.err = err
	}
	return n, err
}

// file returns the *os.File under w, if there is one: the shell asks
// whether standard output is a terminal, and the window gets the file
// itself.
func file(w io.Writer) (*os.File, bool) {
	if o, ok := w.(*outputWriter); ok {
		w = o.w
	}
	f, ok := w.(*os.File)
	return f, ok
}

// checkOutput turns a failed write to standard output into exit code 2,
// unless the command already failed with a code of 2 or more.
func checkOutput(code int, out *outputWriter, stderr io.Writer) int {
	if out.err == nil || code >= exitBadInput {
		return code
	}
	fmt.Fprintf(stderr, "raftsim: writing standard output: %v\n", out.err)
	return exitBadInput
}

// createOutput creates (or empties) an output file before any work starts,
// so that a path that cannot be written is bad input, exit 2, before the
// first step rather than after the run: cmd and flag name it.
func createOutput(cmd, flag, path string) (*os.File, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, badInput("%s: %s: %v", cmd, flag, err)
	}
	return f, nil
}

// prepareDir makes an output directory, and a file in it, before any
// work starts, for the same reason: a directory that cannot be made or
// written into (under a file, on a read-only disk) is exit 2 at once.
func prepareDir(cmd, flag, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return badInput("%s: %s: %v", cmd, flag, err)
	}
	f, err := os.CreateTemp(dir, ".raftsim-probe-*")
	if err != nil {
		return badInput("%s: %s: cannot write into %s: %v", cmd, flag, dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}
