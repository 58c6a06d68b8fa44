package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestCLI runs the golden files in testdata/: each drives the raftsim
// command line in-process and shows its stdout, stderr and exit code.
//
// Commands:
//
//	file name=NAME      # writes the input to NAME in the test's directory
//	raftsim ARGS...     # runs raftsim; the input, if any, is its stdin
func TestCLI(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		dir := t.TempDir()
		wd, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chdir(dir); err != nil {
			t.Fatal(err)
		}
		defer os.Chdir(wd)
		datadriven.RunTest(t, filepath.Join(wd, path), func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "file":
				// Example: file name=bad.yaml
				var name string
				d.ScanArgs(t, "name", &name)
				if err := os.WriteFile(name, []byte(d.Input), 0o644); err != nil {
					t.Fatal(err)
				}
				return ""
			case "raftsim":
				// Example: raftsim run split-brain -q
				var args []string
				for _, a := range d.CmdArgs {
					args = append(args, a.String())
				}
				var stdout, stderr bytes.Buffer
				code := run(args, strings.NewReader(d.Input), &stdout, &stderr)
				var b strings.Builder
				b.WriteString(stdout.String())
				if stderr.Len() > 0 {
					b.WriteString("--- stderr\n")
					b.WriteString(stderr.String())
				}
				fmt.Fprintf(&b, "exit %d\n", code)
				return b.String()
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}
