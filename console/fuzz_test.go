package console

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/raftsim/raftsim/sim"
)

// FuzzLine runs one arbitrary command line against a fresh sandbox:
// whatever the line says, the console answers (or prints an error) and
// the session goes on, with no panic and no hang. Each input may let at
// most ten seconds of virtual time pass (two minutes kept most inputs that
// wait or load at a few a second), and writes no file.
func FuzzLine(f *testing.F) {
	f.Add("put foo bar")
	f.Add(`get "" --prefix --keys-only -w json`)
	f.Fuzz(func(t *testing.T, line string) {
		args, err := split(line)
		if err == nil && slices.ContainsFunc(args, func(a string) bool { return a == "save" || a == "snapshot" }) {
			return // these write files; their arguments are checked in the golden sessions
		}
		// A hang would stall the fuzzer silently; crash instead, so that
		// it keeps the input. (Wall time only guards the test.)
		watchdog := time.AfterFunc(20*time.Second, func() {
			os.WriteFile(filepath.Join(os.TempDir(), "raftsim-fuzz-line-hang.txt"), []byte(line), 0o644)
			panic("FuzzLine: a line ran for more than 20s of wall time")
		})
		defer watchdog.Stop()
		w, err := sim.New(sim.SandboxConfig())
		if err != nil {
			t.Fatal(err)
		}
		c := New(w, Options{Out: io.Discard, Dir: t.TempDir()})
		c.maxRunTime = 10 * time.Second
		if err := c.Start("sandbox"); err != nil {
			t.Fatal(err)
		}
		if err := c.Exec(line); err != nil && err != ErrQuit {
			t.Fatalf("%q ended the session: %v", line, err)
		}
		if err := c.Exec("get foo"); err != nil {
			t.Fatalf("after %q, the session ended: %v", line, err)
		}
	})
}
