// Command raftsrcgen writes raftsrc's archive (raftsrc.Build) from the raft
// module in the module cache. Run it with `go generate ./raftsrc/`;
// raftsrc's test checks the archive against the module cache.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/raftsim/raftsim/outfile"
	"github.com/raftsim/raftsim/raftsrc"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: raftsrcgen ARCHIVE")
		os.Exit(2)
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", raftsrc.Module).Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "raftsrcgen: go list:", err)
		os.Exit(1)
	}
	data, err := raftsrc.Build(strings.TrimSpace(string(out)))
	if err == nil {
		err = outfile.WriteFile(os.Args[1], data)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "raftsrcgen:", err)
		os.Exit(1)
	}
}
