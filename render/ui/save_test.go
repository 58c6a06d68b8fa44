package ui

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// buildRaftsim builds the headless raftsim command for the test.
func buildRaftsim(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "raftsim")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/raftsim/raftsim/cmd/raftsim")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building raftsim: %v\n%s", err, out)
	}
	return bin
}

// A session driven through the App (clicks, drags, keys, a line typed in
// the command box, a seek back and a fork) and saved with s replays under
// `raftsim run` to the very trace of the world on screen, byte for byte.
func TestSavedSessionReplaysByteForByte(t *testing.T) {
	if testing.Short() {
		t.Skip("builds raftsim")
	}
	dir := t.TempDir()
	s := newSandbox(t)
	a := NewApp(s, 1280, 800, 1)
	var saved string
	a.Save = func(s *Session) (string, error) {
		p, err := SaveSession(s, dir)
		saved = p
		return p, err
	}
	must(t, s.Seek(sec(2.5)))
	f := BuildFrame(a)
	a.Handle(Key("2", false))
	a.Handle(Key("p", false)) // a put through etcd-2's apiserver
	must(t, s.Seek(sec(3.2)))
	for _, in := range Drag(f.Ring.Pos[0], f.Ring.Pos[3], false) { // cut etcd-1 ↔ etcd-4
		a.Handle(in)
	}
	a.Handle(Key("5", false))
	a.Handle(Key("g", true)) // a serializable get via etcd-5
	withFakeConsole(a)
	must(t, s.Seek(sec(3.6)))
	a.Handle(Type(":put /box/k v")) // a put typed into the command box
	a.Handle(Key("enter", false))
	a.Handle(Key("escape", false))
	must(t, s.Seek(sec(5)))
	a.Handle(Key("3", false))
	a.Handle(Key("x", false)) // crash etcd-3
	must(t, s.Seek(sec(7)))
	must(t, s.Seek(sec(4))) // back in time ...
	a.Handle(Key("1", false))
	a.Handle(Key("t", false)) // ... and act: a stall forks the future off
	must(t, s.Seek(sec(6.5)))
	a.Handle(Key("s", false))
	if saved == "" {
		t.Fatalf("s saved nothing (status %q)", a.Status)
	}
	if n := len(s.Commands()); n != 5 {
		t.Fatalf("the branch has %d commands, want 5 (put, cut, get, the box's put, stall): %+v", n, s.Commands())
	}
	var want bytes.Buffer
	must(t, s.World().WriteTrace(&want, SessionScenarioName))

	trace := filepath.Join(dir, "replay.jsonl")
	cmd := exec.Command(buildRaftsim(t), "run", saved, "--trace", trace, "-q")
	if out, err := cmd.CombinedOutput(); err != nil {
		data, _ := os.ReadFile(saved)
		t.Fatalf("raftsim run %s: %v\n%s\n%s", saved, err, out, data)
	}
	got, err := os.ReadFile(trace)
	must(t, err)
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("the replayed trace (%d bytes) differs from the session's (%d bytes)\nfirst difference at byte %d",
			len(got), want.Len(), firstDiff(got, want.Bytes()))
	}
	if bytes.Count(got, []byte("\n")) < 100 {
		t.Errorf("the trace has only %d lines: not much of a run", bytes.Count(got, []byte("\n")))
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
