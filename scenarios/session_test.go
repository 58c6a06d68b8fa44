package scenarios

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// sessionOf writes n commands as a recorded session, and also as Marshal
// writes them whole.
func sessionOf(t *testing.T, n int) (streamed, whole []byte) {
	t.Helper()
	cfg := sim.SandboxConfig()
	var cmds []sim.Command
	for i := range n {
		c := sim.Command{At: sim.Time(time.Duration(i+1) * time.Millisecond), Kind: sim.CmdPut, Via: cfg.Members[i%len(cfg.Members)],
			Req: server.Put(fmt.Sprintf("k%d", i), "line one\nline two, of a value long enough to take a session past 1 MiB in 12,000 steps")}
		if i%3 == 2 {
			c = sim.Command{At: c.At, Kind: sim.CmdCrash, Node: cfg.Members[1]}
		}
		cmds = append(cmds, c)
	}
	var b bytes.Buffer
	sw, err := NewSessionWriter(&b, MarshalOptions{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cmds {
		if err := sw.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	end := sim.Time(time.Duration(n+5) * time.Millisecond)
	if err := sw.End(end); err != nil {
		t.Fatal(err)
	}
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	whole, err = MarshalWith(MarshalOptions{End: end}, cfg, cmds)
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), whole
}

// TestSessionWriterWritesWhatMarshalWrites: a session written a command
// at a time parses to the steps of the same session marshalled whole.
func TestSessionWriterWritesWhatMarshalWrites(t *testing.T) {
	streamed, whole := sessionOf(t, 30)
	if !bytes.HasPrefix(streamed, []byte("name: console-session\nsession: true\n")) {
		t.Fatalf("the head of a session:\n%.200s", streamed)
	}
	a, err := Parse("streamed.yaml", streamed)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse("whole.yaml", whole)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Session || b.Session {
		t.Errorf("session: %v and %v, want true and false", a.Session, b.Session)
	}
	a.Session = false
	ma, err := MarshalScenario(a)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := MarshalScenario(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ma, mb) {
		t.Errorf("the streamed session reads as\n%s\nthe whole one as\n%s", ma, mb)
	}
}

// TestSessionCutShortReplaysUpToItsLastWholeStep: a session file cut
// anywhere in its last step (serve killed while writing it) reads as the
// steps before; one cut after a whole step, as every step.
func TestSessionCutShortReplaysUpToItsLastWholeStep(t *testing.T) {
	streamed, _ := sessionOf(t, 6)
	lines := strings.SplitAfter(string(streamed), "\n")
	last := lines[len(lines)-3] // the final wait is the last line; before it, the last command
	before := strings.Join(lines[:len(lines)-3], "")
	for cut := 1; cut < len(last); cut += 3 {
		s, err := Parse("cut.yaml", []byte(before+last[:cut]))
		if err != nil {
			t.Fatalf("cut %d bytes into %q: %v", cut, last, err)
		}
		if len(s.Steps) != 5 {
			t.Errorf("cut %d bytes into %q: %d steps, want 5", cut, last, len(s.Steps))
		}
	}
	s, err := Parse("cut.yaml", []byte(before+last))
	if err != nil || len(s.Steps) != 6 {
		t.Fatalf("cut after the last command: %v, %d steps, want 6", err, len(s.Steps))
	}
	// A bad step anywhere else is an error with its line.
	bad := strings.Replace(string(streamed), "crash: etcd-2", "crash: nobody", 1)
	if _, err := Parse("bad.yaml", []byte(bad)); err == nil || !strings.Contains(err.Error(), "bad.yaml:") || !strings.Contains(err.Error(), "nobody") {
		t.Errorf("a session with an unknown member: %v, want an error at its line", err)
	}
}

// TestSessionOverTheLimitsLoads: a recorded session of more than
// MaxFileBytes and MaxSteps loads; the same steps without session: true
// are refused, as any hand-written scenario is.
func TestSessionOverTheLimitsLoads(t *testing.T) {
	if testing.Short() {
		t.Skip("a 1.5 MiB session")
	}
	streamed, _ := sessionOf(t, MaxSteps+2000)
	if len(streamed) <= MaxFileBytes {
		t.Fatalf("the session is %d bytes, not over %d", len(streamed), MaxFileBytes)
	}
	dir := t.TempDir()
	file := dir + "/long.yaml"
	if err := os.WriteFile(file, streamed, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Steps) != MaxSteps+2001 {
		t.Errorf("%d steps, want %d", len(s.Steps), MaxSteps+2001)
	}
	plain := bytes.Replace(streamed, []byte("session: true\n"), nil, 1)
	if err := os.WriteFile(file, plain, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(file); err == nil || !strings.Contains(err.Error(), "may be at most 1 MiB") {
		t.Errorf("a hand-written scenario over 1 MiB: %v, want refused", err)
	}
}
