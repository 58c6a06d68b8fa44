package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/raftsim/raftsim/outfile"
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

// createOutput checks an output path and opens the temporary file it is
// written through (package outfile), before any work starts, so that a
// path that cannot be written, or is not a regular file, is bad input,
// exit 2, before the first step rather than after the run: cmd and flag
// name it. The output appears at its path only on Commit; a deferred
// Close abandons it and leaves the path as it was.
func createOutput(cmd, flag, path string) (*outfile.File, error) {
	f, err := outfile.Create(path)
	if err != nil {
		return nil, badInput("%s: %s: %v", cmd, flag, err)
	}
	return f, nil
}

// prepareDir makes an output directory (or takes one that is there)
// before any work starts, for the same reason: a directory that cannot be
// made or written into, or a path that is not one (a file, a device, a
// FIFO), is exit 2 at once. names are the files (or globs) the command
// will write in it: each that is already there must be a regular file
// that may be replaced. It returns the directories it made, for
// outfile.RemoveEmpty.
func prepareDir(cmd, flag, dir string, names ...string) ([]string, error) {
	made, err := outfile.Dir(dir)
	if err != nil {
		return nil, badInput("%s: %s: %v", cmd, flag, err)
	}
	for _, n := range names {
		paths, _ := filepath.Glob(filepath.Join(dir, n))
		for _, p := range paths {
			if err := outfile.Check(p); err != nil {
				outfile.RemoveEmpty(made)
				return nil, badInput("%s: %s: %v", cmd, flag, err)
			}
		}
	}
	return made, nil
}
