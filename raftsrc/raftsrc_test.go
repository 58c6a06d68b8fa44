package raftsrc

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os/exec"
	"strconv"
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

// A build without the source (the web page's) asks Fetch for it once,
// reports ErrLoading until Provide brings it, gzipped or already
// unpacked by the browser, and then serves it. (Seen to fail with
// Embedded keeping its answer once fetching began: ErrLoading for ever.)
func TestFetchedOnDemand(t *testing.T) {
	keep, keepFetch := archive, Fetch
	defer func() {
		archive, Fetch = keep, keepFetch
		embedded.src, embedded.err, embedded.fetched = nil, nil, false
	}()
	tarBytes, err := io.ReadAll(mustGunzip(t, keep))
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range [][]byte{keep, tarBytes} {
		archive = nil
		embedded.src, embedded.err, embedded.fetched = nil, nil, false
		calls := 0
		Fetch = func() { calls++ }
		for i := 0; i < 3; i++ {
			if _, err := Embedded(); !errors.Is(err, ErrLoading) {
				t.Fatalf("before Provide: %v", err)
			}
		}
		if calls != 1 {
			t.Fatalf("Fetch called %d times, want once", calls)
		}
		Provide(data, nil)
		s, err := Embedded()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := s.Find("log.go", "(*raftLog).maybeCommit", "if at.term != 0 && at.index > l.committed && l.matchTerm(at) {"); !ok {
			t.Fatal("the provided source lacks maybeCommit's test")
		}
	}
	archive = nil
	embedded.src, embedded.err, embedded.fetched = nil, nil, false
	Provide(nil, errors.New("404"))
	if _, err := Embedded(); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("after a failed fetch: %v", err)
	}
}

func mustGunzip(t *testing.T, b []byte) io.Reader {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return zr
}

// Every line of the index of decisions (decisions.go) is the line of
// the source it names. (Seen to fail with maybeCommit's test at 460.)
func TestDecisionsIndex(t *testing.T) {
	s, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(decisions), "\n") {
		f := strings.Split(l, "\t")
		if len(f) != 4 {
			t.Fatalf("decisions.go: %q is not file, function, code and line", l)
		}
		want, ok := s.Find(f[0], f[1], f[2])
		if !ok || strconv.Itoa(want) != f[3] {
			t.Errorf("decisions.go: %s %s %q is at line %d (found %v), not %s", f[0], f[1], f[2], want, ok, f[3])
		}
		if got, ok := Indexed(f[0], f[1], f[2]); !ok || got != want {
			t.Errorf("Indexed(%s, %s) = %d %v", f[0], f[1], got, ok)
		}
		n++
	}
	if n == 0 {
		t.Fatal("an empty index")
	}
}
