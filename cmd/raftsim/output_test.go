package main

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// failingWriter fails every write after the first n bytes, like a disk that
// fills up or a pipe whose reader left.
type failingWriter struct{ n int }

var errFull = errors.New("no space left on device")

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) <= f.n {
		f.n -= len(p)
		return len(p), nil
	}
	n := f.n
	f.n = 0
	return n, errFull
}

// A failed write to standard output is an error with exit code 2 in every
// command and format (issue 13: `raftsim run first-election > /dev/full`
// exited 0). Each command is cut off at its first byte and in the middle.
func TestOutputWriteErrors(t *testing.T) {
	for _, args := range [][]string{
		{"run", "first-election"},
		{"run", "first-election", "-q"},
		{"run", "first-election", "--format", "json"},
		{"validate", "../../scenarios/library/first-election.yaml"},
		{"lessons"},
		{"shell"},
		{"--help"},
	} {
		for _, after := range []int{0, 20} {
			var stderr bytes.Buffer
			code := run(args, strings.NewReader("put a b\nget a\n"), &failingWriter{n: after}, &stderr)
			if code != exitBadInput || !strings.Contains(stderr.String(), "no space left on device") {
				t.Errorf("raftsim %s, output failing after %d bytes: exit %d, stderr %q; want exit 2 and the write error",
					strings.Join(args, " "), after, code, stderr.String())
			}
		}
	}
}

// An output file that is a device, such as /dev/full, is refused before
// any work rather than written until the write fails:
// TestOutputsLeaveNodesAlone (nodes_test.go) checks every output on nodes
// of its own making.

// Every output path is created before any work: one that cannot be is
// exit 2 at once, with nothing run and the flag named (issue 24: `shell
// --trace /nonexistent-dir/t.jsonl` ran every command and failed at exit;
// `swarm --repro-dir` under a file failed after every seed had run).
func TestOutputPathsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/a-file"
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "first-election", "--trace", "/nonexistent-dir/t.jsonl"}, "run: --trace: /nonexistent-dir/t.jsonl: cannot write into /nonexistent-dir: no such file or directory"},
		{[]string{"run", "first-election", "--trace", dir}, "run: --trace: " + dir + ": is a directory, not a regular file"},
		{[]string{"run", "first-election", "--linearizability-html", file + "/x.html"}, "run: --linearizability-html: " + file + "/x.html: not a directory"},
		{[]string{"shell", "--trace", "/nonexistent-dir/t.jsonl"}, "shell: --trace: /nonexistent-dir/t.jsonl: cannot write into /nonexistent-dir: no such file or directory"},
		{[]string{"swarm", "--seeds", "1-5", "--workers", "1", "--repro-dir", file + "/repro"}, "swarm: --repro-dir: " + file + "/repro: not a directory"},
		{[]string{"swarm", "--seeds", "1-5", "--workers", "1", "--repro-dir", "/dev/full/repro"}, "swarm: --repro-dir: /dev/full/repro: not a directory"},
		{[]string{"swarm", "--seeds", "1-5", "--workers", "1", "--out", "/nonexistent-dir/r.jsonl"}, "swarm: --out: /nonexistent-dir/r.jsonl: cannot write into /nonexistent-dir: no such file or directory"},
		{[]string{"export", "first-election", "--lamport", "/nonexistent-dir/l.svg"}, "export: --lamport: /nonexistent-dir/l.svg: cannot write into /nonexistent-dir: no such file or directory"},
		{[]string{"export", "first-election", "--shiviz", dir}, "export: --shiviz: " + dir + ": is a directory, not a regular file"},
		{[]string{"export", "first-election", "--porcupine", file + "/p.html"}, "export: --porcupine: " + file + "/p.html: not a directory"},
		{[]string{"export", "first-election", "--frames", file + "/frames", "--to", "2s"}, "export: --frames: " + file + "/frames: not a directory"},
		{[]string{"export", "first-election", "--gif", "/nonexistent-dir/x.gif", "--to", "2s"}, "export: --gif: /nonexistent-dir/x.gif: cannot write into /nonexistent-dir: no such file or directory"},
		// Frames beyond MaxFrames are refused before the run (issue 24:
		// --every 1us grew without bound).
		{[]string{"export", "first-election", "--gif", "x.gif", "--every", "1us", "--to", "10s"}, "export: a frame every 1µs from 0s to 10s is 10000001 frames; at most 3000"},
		{[]string{"experiment", "election-time", "--trials", "100000", "--out", file + "/out"}, "experiment election-time: --out: " + file + "/out: not a directory"},
		{[]string{"experiment", "split-votes", "--trials", "10000", "--out", "/proc/out"}, "experiment split-votes: --out: /proc/out: no such file or directory"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, strings.NewReader("put a b\n"), &stdout, &stderr)
		if code != exitBadInput || !strings.Contains(stderr.String(), tc.want) || stdout.Len() != 0 {
			t.Errorf("raftsim %s: exit %d, stdout %q, stderr %q; want exit 2 before any work, and %q",
				strings.Join(tc.args, " "), code, stdout.String(), stderr.String(), tc.want)
		}
	}
}
