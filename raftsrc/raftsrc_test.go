package raftsrc

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// The embedded archive is what the module cache's raft builds to: run
// `go generate ./raftsrc/` after raft's version changes. (Seen to fail
// with one byte of raft.go changed in a copy of the module.)
func TestArchiveIsTheModule(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}} {{.Version}}", Module).Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", Module, err)
	}
	dir, version, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if version != Version {
		t.Fatalf("the build uses raft %s, the archive says %s", version, Version)
	}
	want, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, Archive()) {
		t.Fatalf("raft.tar.gz (%d bytes) is not %s's source (%d bytes): run go generate ./raftsrc/", len(Archive()), dir, len(want))
	}
}

func TestFuncAndFind(t *testing.T) {
	s, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.License(), "Apache License") {
		t.Fatal("no Apache-2.0 LICENSE in the archive")
	}
	n, ok := s.Find("log.go", "(*raftLog).maybeCommit", "if at.term != 0 && at.index > l.committed && l.matchTerm(at) {")
	if !ok {
		t.Fatal("maybeCommit's test not found")
	}
	name, first, last, ok := s.Func("log.go", n)
	if !ok || name != "(*raftLog).maybeCommit" || first >= n || last <= n {
		t.Fatalf("Func(log.go, %d) = %q %d-%d %v", n, name, first, last, ok)
	}
	lines, _ := s.Lines("log.go")
	if !strings.HasPrefix(lines[first-1], "func (l *raftLog) maybeCommit(") || lines[last-1] != "}" {
		t.Fatalf("lines %d-%d: %q .. %q", first, last, lines[first-1], lines[last-1])
	}
	for _, c := range []struct{ file, fn string }{{"raft.go", "stepLeader"}, {"raft.go", "(*raft).Step"}, {"tracker/progress.go", "(*Progress).MaybeUpdate"}} {
		if _, ok := s.Find(c.file, c.fn, "}"); !ok {
			t.Errorf("%s: no function %s", c.file, c.fn)
		}
	}
	if _, ok := s.Find("log.go", "(*raftLog).maybeCommit", "no such line"); ok {
		t.Error("found a line that is not there")
	}
}
