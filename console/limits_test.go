package console

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/raftsim/raftsim/sim"
)

// Long lines (issue 13): a line of 1 MiB ended the session with
// "bufio.Scanner: token too long". Requests up to etcd's 1.5 MiB work; a
// larger one gets etcd's own error (with key "k" a value of 1572839 bytes
// is the largest etcd-1 takes: its member ID ends in 0xcd0c, so its request
// IDs take 10 bytes; see sim/request_size.go for what was measured against
// etcd v3.6.16); a line longer than the shell reads is refused; and the
// session goes on after each.
func TestLongLines(t *testing.T) {
	w, err := sim.New(sim.SandboxConfig())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	c := New(w, Options{Out: &out})
	if err := c.Start("sandbox"); err != nil {
		t.Fatal(err)
	}
	script := strings.Join([]string{
		"put k " + strings.Repeat("a", 1572839),
		"put k " + strings.Repeat("b", 1572840),
		"put k " + strings.Repeat("c", 2<<20),
		"put k " + strings.Repeat("d", 5<<20),
		"get k --print-value-only",
		"put k small",
		"get k --print-value-only",
	}, "\n")
	if err := c.RunScript(strings.NewReader(script)); err != nil {
		t.Fatal(err)
	}
	var answers []string
	for _, l := range strings.Split(out.String(), "\n") {
		if !strings.HasPrefix(l, "raftsim ") && len(l) < 200 {
			answers = append(answers, l)
		} else if !strings.HasPrefix(l, "raftsim ") {
			answers = append(answers, l[:1]+"×"+strconv.Itoa(len(l)))
		}
	}
	got := strings.Join(answers[4:], "\n")
	want := strings.Join([]string{
		"OK",
		"{×424", // clientv3 logs the failed call, as JSON on standard error
		"Error: etcdserver: request is too large",
		"Error: rpc error: code = ResourceExhausted desc = trying to send message larger than max (2097160 vs. 2097152)",
		"Error: the line is 5 MiB long; the shell reads lines of at most 3 MiB (etcd takes requests of up to 1.5 MiB)",
		"a×1572839",
		"OK",
		"small",
		"",
	}, "\n")
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestWaitHasTheCompactorsLimit: a console wait, as a scenario's, may not
// take the run past the compactors' bound (sim.CheckCompactors): 9
// stacked apiservers compacting every 5s write 2 times a second by the
// rule, and 9 members may make 133,333 requests and compactor writes, so
// the run may last 18.5 hours; the shell let `wait 999h` run (issue 29).
// The refusal says the same words as a scenario's, a wait within the
// bound runs, and the session goes on.
func TestWaitHasTheCompactorsLimit(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Members = []string{"e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8", "e9"}
	cfg.Topology, cfg.CompactionInterval = "stacked", 5*time.Second
	w, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	c := New(w, Options{Out: &out})
	if err := c.Start("compactors"); err != nil {
		t.Fatal(err)
	}
	start := w.Now()
	for _, tc := range []struct{ line, want string }{
		{"wait 999h", "Error: wait: by here the run may last 999h0m0.351596s, and the apiservers' compactors (compaction_interval: 5s) write 2 times a second, 7192801 writes; a run may send at most 133333"},
		{"wait 19h", "a run may send at most 133333 requests and compactor writes (with 9 members"},
		{"wait 1s", ""},
	} {
		out.Reset()
		if err := c.Exec(tc.line); err != nil {
			t.Fatalf("%s: the session ended: %v", tc.line, err)
		}
		switch got := out.String(); {
		case tc.want == "" && strings.Contains(got, "Error"):
			t.Errorf("%s: %s, want it run", tc.line, got)
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("%s: %s, want %q", tc.line, got, tc.want)
		}
	}
	if now := w.Now(); now != start.Add(time.Second) {
		t.Errorf("after wait 1s: at %s, want %s", now, start.Add(time.Second))
	}
}

// TestWaitHasTheHeartbeatsLimit: a console wait, as a scenario's, may not
// take the run past the heartbeats' bound (sim.CheckHeartbeats): 99
// members' leader sends 98 heartbeats every 100ms, and the run may last
// 40h48m58s; the shell let `wait 999h` run (issue 29). The refusal says
// the same words as a scenario's, a wait within the bound runs, and the
// session goes on.
func TestWaitHasTheHeartbeatsLimit(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Members = nil
	for i := 1; i <= 99; i++ {
		cfg.Members = append(cfg.Members, "e"+strconv.Itoa(i))
	}
	w, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	c := New(w, Options{Out: &out})
	if err := c.Start("heartbeats"); err != nil {
		t.Fatal(err)
	}
	start := w.Now()
	for _, tc := range []struct{ line, want string }{
		{"wait 999h", "Error: wait: by here the run may last 999h0m0.21744s, and its leader"},
		{"wait 999h", "and its leader sends a heartbeat to each of the other 98 members every 100ms (tick: 100ms × heartbeat_ticks: 1), 3524472214 heartbeats; a run may send at most 144000000, what 5 members send in 1000h at etcd's default 100ms, so with 99 members and this interval it may last 40h48m58s"},
		{"wait 41h", "a run may send at most 144000000"},
		{"wait 1s", ""},
	} {
		out.Reset()
		if err := c.Exec(tc.line); err != nil {
			t.Fatalf("%s: the session ended: %v", tc.line, err)
		}
		switch got := out.String(); {
		case tc.want == "" && strings.Contains(got, "Error"):
			t.Errorf("%s: %s, want it run", tc.line, got)
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("%s: %s, want %q", tc.line, got, tc.want)
		}
	}
	if now := w.Now(); now != start.Add(time.Second) {
		t.Errorf("after wait 1s: at %s, want %s", now, start.Add(time.Second))
	}
}
