package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every directory output of every command is made if absent, but never
// its missing parents: exit 2 before any work, the path and the missing
// parent named, nothing made, as mkdir without -p refuses (issue 29: the
// limits swarm, seed 1796644258071133915 input 78, found `experiment
// election-time --out no/such/dir/out` making no/such/dir/out and exiting
// 0). serve --tls goes through the same rule (wire.WriteCerts). Seen to
// fail while package outfile made the parents.
func TestDirectoryOutputsRefuseMissingParents(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such", "dir")
	for _, tc := range []struct {
		flag string
		args []string
	}{
		{"--out", []string{"experiment", "election-time", "--trials", "2", "--workers", "1", "--out", filepath.Join(missing, "out")}},
		{"--out", []string{"experiment", "split-votes", "--trials", "2", "--workers", "1", "--out", filepath.Join(missing, "out")}},
		{"--repro-dir", []string{"swarm", "--seeds", "1", "--workers", "1", "--repro-dir", filepath.Join(missing, "repro")}},
		{"--frames", []string{"export", "first-election", "--frames", filepath.Join(missing, "frames"), "--to", "1s"}},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
		path := tc.args[len(tc.args)-1]
		if tc.flag == "--frames" {
			path = tc.args[3]
		}
		want := tc.flag + ": " + path + ": its parent directory " + missing + " does not exist"
		if code != exitBadInput || !strings.Contains(stderr.String(), want) || stdout.Len() != 0 {
			t.Errorf("raftsim %s: exit %d, stdout %q, stderr %q; want exit 2 before any work, and %q",
				strings.Join(tc.args, " "), code, stdout.String(), stderr.String(), want)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Fatalf("raftsim %s: made %s in the directory", strings.Join(tc.args, " "), ents[0].Name())
		}
	}
	// Its parent there: the directory itself is made, and written into.
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"experiment", "election-time", "--trials", "2", "--workers", "1", "--out", out}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("experiment --out %s: exit %d: %s", out, code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, "election-time.csv")); err != nil {
		t.Fatal(err)
	}
}
