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
