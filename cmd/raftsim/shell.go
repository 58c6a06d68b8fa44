package main

import (
	"fmt"
	"io"
)

// TODO(console issue): the etcdctl-like console.
func shellCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return &exitError{code: exitBadInput, err: fmt.Errorf("raftsim shell: not built yet")}
}
