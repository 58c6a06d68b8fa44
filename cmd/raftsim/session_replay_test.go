package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/raftsim/raftsim/outfile"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// TestLongRecordedSessionReplays: a session of more than 10 MiB and more
// than scenarios.MaxSteps commands, written by serve's writer as serve
// writes it (a command at a time, as the world logs it), replays with
// raftsim run, and the replay's trace is the session's. Before, run
// refused any file over 1 MiB.
func TestLongRecordedSessionReplays(t *testing.T) {
	if testing.Short() {
		t.Skip("a 10 MiB session")
	}
	dir := t.TempDir()
	w, err := sim.New(sim.SandboxConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.RunUntil(sim.Time(2 * time.Second)); err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(dir, "long.yaml")
	f, err := outfile.CreatePart(saved, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	sess := &session{f: f, lastSync: time.Now()}
	if sess.sw, err = scenarios.NewSessionWriter(f, scenarios.MarshalOptions{}, w.Config()); err != nil {
		t.Fatal(err)
	}
	// Five puts at each instant, as a busy client sends them: raft
	// batches them, and the test costs less.
	members := w.Config().Members
	value := strings.Repeat("v", 1000)
	const n = 10_500
	for i := range n {
		c := sim.Command{Kind: sim.CmdPut, Via: members[i%len(members)], Req: server.Put(fmt.Sprintf("/k/%05d", i), value)}
		if _, err := w.Do(c); err != nil {
			t.Fatal(err)
		}
		if i%5 != 4 {
			continue
		}
		if err := sess.log(w); err != nil {
			t.Fatal(err)
		}
		if err := w.RunUntil(w.Now().Add(10 * time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.RunUntil(w.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := sess.finish(w, &out); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(saved); err != nil || fi.Size() < 10<<20 {
		t.Fatalf("the session file: %v, %d bytes; want more than 10 MiB", err, fi.Size())
	}
	if keep := os.Getenv("RAFTSIM_TEST_KEEP_SESSION"); keep != "" {
		data, _ := os.ReadFile(saved)
		os.WriteFile(keep, data, 0o644)
	}
	served := filepath.Join(dir, "served.jsonl")
	if err := writeTrace(w, served); err != nil {
		t.Fatal(err)
	}
	replayed := filepath.Join(dir, "replayed.jsonl")
	var rout, rerr bytes.Buffer
	if code := run([]string{"run", saved, "--trace", replayed, "-q"}, nil, &rout, &rerr); code != exitOK {
		t.Fatalf("raftsim run: exit %d\n%s%s", code, rout.String(), rerr.String())
	}
	sameFiles(t, served, replayed)
}

// sameFiles fails unless the two files hold the same bytes; it says at
// which line they part.
func sameFiles(t *testing.T, a, b string) {
	t.Helper()
	fa, err := os.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	sa, sb := bufio.NewScanner(fa), bufio.NewScanner(fb)
	sa.Buffer(nil, 64<<20)
	sb.Buffer(nil, 64<<20)
	for line := 1; ; line++ {
		okA, okB := sa.Scan(), sb.Scan()
		if !okA || !okB {
			if okA != okB {
				t.Fatalf("%s and %s part at line %d: one ends", a, b, line)
			}
			return
		}
		if !bytes.Equal(sa.Bytes(), sb.Bytes()) {
			t.Fatalf("%s and %s part at line %d:\n%s\n%s", a, b, line, sa.Bytes(), sb.Bytes())
		}
	}
}
