//go:build !js

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// nodeState is what a test checks of a file raftsim must leave alone: its
// type and mode, device number, inode, modification time and content.
func nodeState(t *testing.T, path string) string {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return "absent: " + err.Error()
	}
	s := strconv.FormatUint(uint64(st.Mode), 8) + " rdev=" + strconv.FormatUint(st.Rdev, 10) +
		" ino=" + strconv.FormatUint(st.Ino, 10) + " mtime=" + strconv.FormatInt(st.Mtim.Nano(), 10)
	if st.Mode&syscall.S_IFMT == syscall.S_IFREG {
		b, _ := os.ReadFile(path)
		s += " content=" + strconv.Quote(string(b))
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFLNK {
		l, _ := os.Readlink(path)
		s += " -> " + l
	}
	return s
}

// Every output of every command, pointed at a device node, a FIFO, a
// directory, a symlink to a device and a read-only file, is refused with
// the path named, and leaves the node as it was: not removed, replaced,
// truncated, written or blocked on (issue 29: as root, `export --lamport
// /dev/full` deleted /dev/full; `run --linearizability-html` removed its
// path when there was nothing to show; `save out.fifo` blocked forever).
// The nodes are made here (mknod, mkfifo), never the machine's /dev.
func TestOutputsLeaveNodesAlone(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: mknod, and root's power to write a read-only file")
	}
	if testing.Short() {
		t.Skip("runs raftsim about a hundred times")
	}
	dir := t.TempDir()
	nodes := map[string]string{}
	mk := func(name string) string { nodes[name] = filepath.Join(dir, name); return nodes[name] }
	if err := syscall.Mknod(mk("full"), syscall.S_IFCHR|0o666, 1<<8|7); err != nil { // as /dev/full
		t.Fatal(err)
	}
	if err := syscall.Mknod(mk("null"), syscall.S_IFCHR|0o666, 1<<8|3); err != nil { // as /dev/null
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(mk("fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(mk("dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(nodes["full"], mk("link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mk("readonly"), []byte("keep me\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	// A directory output's own files: the names the command writes, each
	// already a FIFO in the directory given.
	mkInside := func(name string, files ...string) {
		d := mk(name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := syscall.Mkfifo(filepath.Join(d, f), 0o644); err != nil {
				t.Fatal(err)
			}
			nodes[name+"/"+f] = filepath.Join(d, f)
		}
	}
	mkInside("frames-fifos", "frame-00000.png")
	mkInside("repro-fifos", "swarm-seed-1.yaml")
	mkInside("experiment-fifos", "election-time.csv", "election-time.png", "election-time.svg")

	before := map[string]string{}
	for name, p := range nodes {
		before[name] = nodeState(t, p)
	}

	fileTargets := []string{"full", "null", "fifo", "dir", "link", "readonly"}
	type output struct {
		args  func(p string) []string
		stdin string
		dirs  []string // targets when the output is a directory
	}
	outputs := []output{
		{args: func(p string) []string { return []string{"run", "first-election", "-q", "--trace", p} }},
		{args: func(p string) []string { return []string{"run", "first-election", "-q", "--linearizability-html", p} }},
		{args: func(p string) []string { return []string{"run", "bug-forget-vote", "-q", "--linearizability-html", p} }},
		{args: func(p string) []string { return []string{"shell", "--trace", p} }, stdin: "put a b\n"},
		{args: func(p string) []string { return []string{"shell"} }, stdin: "put a b\nsave %s\n"},
		{args: func(p string) []string { return []string{"shell"} }, stdin: "put a b\nsnapshot save %s --endpoints m1\n"},
		{args: func(p string) []string { return []string{"export", "split-brain", "--lamport", p} }},
		{args: func(p string) []string { return []string{"export", "first-election", "--porcupine", p} }},
		{args: func(p string) []string { return []string{"export", "first-election", "--shiviz", p} }},
		{args: func(p string) []string { return []string{"export", "first-election", "--gif", p, "--to", "1s"} }},
		{args: func(p string) []string { return []string{"swarm", "--seeds", "1", "--workers", "1", "--out", p} }},
		{args: func(p string) []string { return []string{"export", "first-election", "--frames", p, "--to", "1s"} },
			dirs: []string{"full", "fifo", "link", "readonly", "frames-fifos"}},
		{args: func(p string) []string {
			return []string{"swarm", "--seeds", "1", "--workers", "1", "--bug", "apply-uncommitted", "--no-shrink", "--repro-dir", p}
		}, dirs: []string{"full", "fifo", "link", "readonly", "repro-fifos"}},
		{args: func(p string) []string { return []string{"experiment", "election-time", "--trials", "20", "--out", p} },
			dirs: []string{"full", "fifo", "link", "readonly", "experiment-fifos"}},
	}
	for _, o := range outputs {
		targets := fileTargets
		if o.dirs != nil {
			targets = o.dirs
		}
		for _, target := range targets {
			p := nodes[target]
			args := o.args(p)
			stdin := o.stdin
			if strings.Contains(stdin, "%s") {
				stdin = strings.ReplaceAll(stdin, "%s", p)
			}
			what := "raftsim " + strings.Join(args, " ")
			if stdin != "" {
				what += " <<< " + strconv.Quote(stdin)
			}
			work := t.TempDir()
			s := startRaftsim(t, work, stdin, args...)
			done := make(chan struct{})
			go func() { s.cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(60 * time.Second):
				s.cmd.Process.Kill()
				<-done
				t.Errorf("%s: still running after 60 s (blocked on the output?)", what)
			}
			out := s.read(t, s.stdout) + s.read(t, s.stderr)
			code := s.cmd.ProcessState.ExitCode()
			// The console goes on after a command's error, as etcdctl
			// does: its refusal is an Error: line.
			refused := code != 0 || (stdin != "" && strings.Contains(out, "Error: "))
			if !refused || !strings.Contains(out, p) {
				t.Errorf("%s: exit %d, output %q; want a refusal that names %s", what, code, out, p)
			}
			for name, np := range nodes {
				if now := nodeState(t, np); now != before[name] {
					t.Errorf("%s: %s changed: %s, was %s", what, name, now, before[name])
					before[name] = now
				}
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
				t.Errorf("%s: left %v", what, left)
				for _, l := range left {
					os.RemoveAll(l)
				}
			}
		}
	}
}
