package guiconsole

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/raftsim/raftsim/render/ui"
	"github.com/raftsim/raftsim/sim"
)

func sec(f float64) sim.Time { return sim.Time(f * float64(time.Second)) }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func newApp(t *testing.T, dir string) (*ui.App, *ui.Session) {
	t.Helper()
	s, err := ui.NewSession(sim.SandboxConfig())
	must(t, err)
	must(t, s.Seek(sec(3)))
	a := ui.NewApp(s, 1280, 800, 1)
	a.NewConsole = Factory(dir)
	return a, s
}

func scrollback(a *ui.App) string {
	var b strings.Builder
	for _, l := range a.Box.Lines() {
		b.WriteString(l.Text + "\n")
	}
	return b.String()
}

// play runs the window's clock for n ticks at 1× speed.
func play(a *ui.App, n int) {
	a.SetSpeed(1)
	a.Playing = true
	for range n {
		a.Update()
	}
	a.Playing = false
}

// The real console in the command box: a put is answered OK once the
// window's clock gets there, endpoint status prints etcdctl's table, wait
// moves the window's clock, a watch streams as a numbered job, exit closes
// the box, and the trace setting survives the world being rebuilt.
func TestTheConsoleInTheWindow(t *testing.T) {
	a, s := newApp(t, t.TempDir())
	a.OpenBox()
	a.RunLine("watch foo")
	a.RunLine("put foo bar")
	if strings.Contains(scrollback(a), "\nOK\n") {
		t.Fatalf("OK before any virtual time passed:\n%s", scrollback(a))
	}
	play(a, 10)
	out := scrollback(a)
	for _, want := range []string{"[1] watching foo", "\nOK\n", "[1] PUT\n[1] foo\n[1] bar\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the scrollback:\n%s", want, out)
		}
	}
	a.RunLine("endpoint status -w table")
	if out := scrollback(a); !strings.Contains(out, "| IS LEADER |") || strings.Count(out, " true |") != 1 {
		t.Errorf("endpoint status -w table:\n%s", out)
	}
	before := s.Now()
	a.RunLine("wait 1s")
	if s.Now() != before+sec(1) {
		t.Errorf("wait 1s took the window from %s to %s", before, s.Now())
	}
	a.RunLine("trace on")
	must(t, s.Seek(s.Now()-sec(0.5)))
	a.Update()
	n := len(a.Box.Lines())
	a.RunLine("crash etcd-5")
	play(a, 2)
	if out := scrollback(a); !strings.Contains(strings.Join(strings.Split(out, "\n")[n:], "\n"), "etcd-5") {
		t.Errorf("no trace after the seek:\n%s", out)
	}
	a.RunLine("exit")
	if a.BoxOpen() {
		t.Error("exit left the box open")
	}
}

// A session with clicks and lines typed in the command box, a seek back
// and a fork, saved with s, replays under `raftsim run` to the very trace
// of the world on screen, byte for byte: the box's commands are in the
// same log as the clicks.
func TestBoxSessionReplaysByteForByte(t *testing.T) {
	if testing.Short() {
		t.Skip("builds raftsim")
	}
	dir := t.TempDir()
	a, s := newApp(t, dir)
	var saved string
	a.Save = func(s *ui.Session) (string, error) {
		p, err := ui.SaveSession(s, dir)
		saved = p
		return p, err
	}
	a.Handle(ui.Key("2", false))
	a.Handle(ui.Key("p", false)) // a click-path put through etcd-2's apiserver
	a.Handle(ui.Type(":put /box/a 1"))
	a.Handle(ui.Key("enter", false))
	play(a, 20)
	a.RunLine("get /box --prefix --consistency=s")
	a.RunLine("partition etcd-1,etcd-2")
	a.RunLine("watch /box --prefix --for 300ms")
	play(a, 40)
	a.RunLine("put /box/b 2")
	play(a, 30)
	must(t, s.Seek(s.Now()-sec(0.4))) // back in time ...
	a.RunLine("crash etcd-4")         // ... and act: the future is forked off
	play(a, 30)
	a.Handle(ui.Key("escape", false))
	a.Handle(ui.Key("s", false))
	if saved == "" {
		t.Fatalf("s saved nothing (status %q)", a.Status)
	}
	kinds := map[sim.CommandKind]int{}
	for _, c := range s.Commands() {
		kinds[c.Kind]++
	}
	if kinds[sim.CmdPut] < 2 || kinds[sim.CmdGet] != 1 || kinds[sim.CmdPartition] != 1 || kinds[sim.CmdCrash] != 1 || kinds[sim.CmdWatch] != 1 {
		t.Errorf("the log has %v", kinds)
	}
	var want bytes.Buffer
	must(t, s.World().WriteTrace(&want, ui.SessionScenarioName))

	bin := filepath.Join(dir, "raftsim")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/raftsim/raftsim/cmd/raftsim").CombinedOutput(); err != nil {
		t.Fatalf("building raftsim: %v\n%s", err, out)
	}
	trace := filepath.Join(dir, "replay.jsonl")
	if out, err := exec.Command(bin, "run", saved, "--trace", trace, "-q").CombinedOutput(); err != nil {
		data, _ := os.ReadFile(saved)
		t.Fatalf("raftsim run %s: %v\n%s\n%s", saved, err, out, data)
	}
	got, err := os.ReadFile(trace)
	must(t, err)
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("the replayed trace (%d bytes) differs from the session's (%d bytes)", len(got), want.Len())
	}
}
