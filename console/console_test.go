package console

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/raftsim/raftsim/sim"
)

// TestConsole runs the scripted sessions in testdata/. Directives:
//
//	new [seed=N] [topology=stacked|external] [members=N]
//	    a fresh sandbox world; prints the banner
//	run
//	    one console command a line, as `raftsim shell < file` reads them
//	cat FILE
//	    prints a file the session wrote
//
// Refresh with go test ./console -rewrite, and read the diff.
func TestConsole(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt") // NB: not testdata/fuzz
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden sessions: %v", err)
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) { consoleFile(t, path) })
	}
}

// consoleFile runs one golden session.
func consoleFile(t *testing.T, path string) {
	var c *Console
	var out bytes.Buffer
	dir := t.TempDir()
	datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
		out.Reset()
		switch d.Cmd {
		case "new":
			cfg := sim.SandboxConfig()
			for _, a := range d.CmdArgs {
				v := ""
				if len(a.Vals) > 0 {
					v = a.Vals[0]
				}
				switch a.Key {
				case "seed":
					n, err := strconv.ParseUint(v, 10, 64)
					if err != nil {
						t.Fatalf("%s: bad seed %q", d.Pos, v)
					}
					cfg.Seed = n
				case "topology":
					cfg.Topology, cfg.Clients = v, nil
				case "quota":
					n, err := strconv.ParseInt(v, 10, 64)
					if err != nil {
						t.Fatalf("%s: bad quota %q", d.Pos, v)
					}
					cfg.QuotaBackendBytes = n
				case "members":
					n, err := strconv.Atoi(v)
					if err != nil || n < 1 || n > 5 {
						t.Fatalf("%s: bad members %q", d.Pos, v)
					}
					cfg.Members = cfg.Members[:n]
					cfg.Clients = nil
				default:
					t.Fatalf("%s: unknown argument %s", d.Pos, a.Key)
				}
			}
			w, err := sim.New(cfg)
			if err != nil {
				t.Fatalf("%s: %v", d.Pos, err)
			}
			c = New(w, Options{Out: &out, Dir: dir})
			if err := c.Start("sandbox"); err != nil {
				t.Fatalf("%s: %v", d.Pos, err)
			}
		case "run":
			if c == nil {
				t.Fatalf("%s: run before new", d.Pos)
			}
			if err := c.RunScript(strings.NewReader(d.Input)); err != nil {
				out.WriteString("session ended: " + err.Error() + "\n")
			}
		case "cat":
			if len(d.CmdArgs) != 1 {
				t.Fatalf("%s: cat FILE", d.Pos)
			}
			b, err := os.ReadFile(filepath.Join(dir, d.CmdArgs[0].Key))
			if err != nil {
				t.Fatalf("%s: %v", d.Pos, err)
			}
			return string(b)
		default:
			t.Fatalf("%s: unknown directive %q", d.Pos, d.Cmd)
		}
		return out.String()
	})
}

// TestEveryVerbHasHelp keeps help complete.
func TestEveryVerbHasHelp(t *testing.T) {
	for _, v := range verbs {
		if h, ok := helpText[v.name]; !ok || h[0] == "" || h[1] == "" {
			t.Errorf("verb %q has no help text", v.name)
		}
	}
	for name := range helpText {
		if findVerb(name) == nil {
			t.Errorf("help for %q, which is not a verb", name)
		}
	}
}

// TestEveryVerbIsGolden checks that the golden sessions use every verb.
func TestEveryVerbIsGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	var all strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	for _, v := range verbs {
		re := regexp.MustCompile(`(?m)^raftsim [0-9.]+s> ` + regexp.QuoteMeta(v.name) + `\b`)
		if !re.MatchString(all.String()) {
			t.Errorf("no golden session runs %q", v.name)
		}
	}
}

// TestStoppedWatchIsCanceled: a watch that ends by --for, or by unwatch,
// closes its stream in the simulation, so it receives no more events.
func TestStoppedWatchIsCanceled(t *testing.T) {
	w, err := sim.New(sim.SandboxConfig())
	if err != nil {
		t.Fatal(err)
	}
	c := New(w, Options{Mode: Blocking})
	c.Start("sandbox")
	for _, line := range []string{"watch /a --prefix --for 100ms", "watch /b --prefix &", "unwatch", "put /a/1 x", "put /b/1 y"} {
		if err := c.Exec(line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	for _, op := range w.Ops() {
		if op.Kind == sim.OpWatch && (!op.Canceled || len(op.Events()) != 0) {
			t.Errorf("watch %s: canceled=%v, %d events after it was stopped", op.Key(), op.Canceled, len(op.Events()))
		}
	}
}

// TestAsyncModeLeavesTheClockToTheHost: in Async mode wait and tick ask the
// host for time instead of running the world, a watch is a numbered job,
// and its --for, when the host's clock passes it, closes the stream.
func TestAsyncModeLeavesTheClockToTheHost(t *testing.T) {
	w, err := sim.New(sim.SandboxConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.RunUntil(sim.Time(3 * time.Second)); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	var asked []time.Duration
	c := New(w, Options{Out: &out, Mode: Async, Advance: func(d time.Duration) error { asked = append(asked, d); return nil }})
	start := w.Now()
	for _, line := range []string{"wait 2s", "tick 3", "watch /a --prefix --for 100ms"} {
		if err := c.Exec(line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	if w.Now() != start {
		t.Errorf("the console moved the clock from %s to %s; the host owns it", start, w.Now())
	}
	if want := []time.Duration{2 * time.Second, 300 * time.Millisecond}; !slices.Equal(asked, want) {
		t.Errorf("asked the host for %v, want %v", asked, want)
	}
	if !strings.Contains(out.String(), "[1] watching /a") {
		t.Errorf("the watch is not a numbered job:\n%s", out.String())
	}
	// The host advances past the watch's --for and polls.
	for range 3 {
		if err := w.Advance(50 * time.Millisecond); err != nil {
			t.Fatal(err)
		}
		c.Poll()
	}
	op := w.Op("watch-1")
	if op == nil || !op.Canceled {
		t.Errorf("the watch is not canceled after its --for: %+v", op)
	}
}
