package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raftsim/raftsim/trace"
)

// lessonText is a built-in lesson's file, as `raftsim run NAME` reads it.
func lessonText(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "scenarios", "library", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// eventLines is a trace file's events: its lines after the header.
func eventLines(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) == 0 || !bytes.HasPrefix(lines[0], []byte(`{"schema":1`)) {
		t.Fatalf("%s: no header line", path)
	}
	return lines[1:]
}

// TestCompareRunsAreSingleRuns is issue 31's first Done-when: every run
// of `run --compare` has the trace, byte for byte, of `raftsim run` of the
// scenario with its settings written into the file, and the divergence it
// reports is the first event where the two traces differ.
func TestCompareRunsAreSingleRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs lessons several times")
	}
	cases := []struct {
		lesson  string
		compare []string
		// files are the scenario as each run should be, made from the
		// lesson's text by hand: run 1 is the lesson.
		files func(text string) []string
	}{
		{"lease-read", []string{"read_only=safe"}, func(text string) []string {
			return []string{text, strings.Replace(text, "\n  read_only: lease", "\n  read_only: safe", 1)}
		}},
		// The lesson has no network: the setting is added.
		{"first-election", []string{"latency=30ms"}, func(text string) []string {
			return []string{text, text + "network: {latency: 30ms}\n"}
		}},
		{"partial-partition", []string{"pre_vote=false", "check_quorum=false"}, func(text string) []string {
			noPV := strings.Replace(text, "pre_vote: true", "pre_vote: false", 1)
			noCQ := strings.Replace(text, "check_quorum: true", "check_quorum: false", 1)
			neither := strings.Replace(noPV, "check_quorum: true", "check_quorum: false", 1)
			return []string{text, noPV, noCQ, neither}
		}},
	}
	for _, c := range cases {
		t.Run(c.lesson, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"run", c.lesson, "--trace", filepath.Join(dir, "cmp.jsonl")}
			for _, s := range c.compare {
				args = append(args, "--compare", s)
			}
			var stdout, stderr bytes.Buffer
			code := run(args, nil, &stdout, &stderr)
			if code != exitOK && code != exitExpect {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			files := c.files(lessonText(t, c.lesson))
			worst := exitOK
			for i, text := range files {
				if i > 0 && text == files[0] {
					t.Fatalf("run %d: the hand-made scenario is the lesson itself", i+1)
				}
				file := filepath.Join(dir, c.lesson+".yaml")
				if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				single := filepath.Join(dir, "single.jsonl")
				var o, e bytes.Buffer
				sc := run([]string{"run", file, "--trace", single, "-q"}, nil, &o, &e)
				worst = max(worst, sc)
				want, err := os.ReadFile(single)
				if err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(comparePath(filepath.Join(dir, "cmp.jsonl"), i+1))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("run %d: its trace (%d bytes) is not that of the scenario with its settings written in (%d bytes)", i+1, len(got), len(want))
				}
			}
			if code != worst {
				t.Errorf("exit %d, want the worst of the single runs', %d", code, worst)
			}
			// The divergence, found here by hand: the first event line
			// that is not the same.
			base := eventLines(t, comparePath(filepath.Join(dir, "cmp.jsonl"), 1))
			var divergences []string
			sc := bufio.NewScanner(&stdout)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				if strings.Contains(sc.Text(), "the runs differ") || strings.Contains(sc.Text(), "the runs do not differ") {
					divergences = append(divergences, sc.Text())
				}
			}
			if len(divergences) != len(files)-1 {
				t.Fatalf("%d divergence lines, want %d:\n%s", len(divergences), len(files)-1, strings.Join(divergences, "\n"))
			}
			for i := 1; i < len(files); i++ {
				other := eventLines(t, comparePath(filepath.Join(dir, "cmp.jsonl"), i+1))
				k := 0
				for k < len(base) && k < len(other) && bytes.Equal(base[k], other[k]) {
					k++
				}
				if k == len(base) && k == len(other) {
					t.Fatalf("run %d: the same trace as run 1; the setting changed nothing", i+1)
				}
				if k >= len(base) || k >= len(other) {
					t.Fatalf("run %d: one trace is a prefix of the other; this test wants events on both sides", i+1)
				}
				var a, b trace.Event
				if err := json.Unmarshal(base[k], &a); err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(other[k], &b); err != nil {
					t.Fatal(err)
				}
				line := divergences[i-1]
				at := "from " + trace.Seconds(min(a.T, b.T)) + " the runs differ: "
				if !strings.Contains(line, at) {
					t.Errorf("run %d: %q does not begin %q (event %d: %s / %s)", i+1, line, at, k, base[k], other[k])
				}
				descB := trace.Describe(b)
				if a.Node == b.Node {
					descB = strings.TrimPrefix(descB, b.Node+" ")
				}
				if !strings.Contains(line, trace.Describe(a)) || !strings.Contains(line, " / "+descB) {
					t.Errorf("run %d: %q does not describe event %d: %s / %s", i+1, line, k, base[k], other[k])
				}
			}
			t.Logf("%s", strings.Join(divergences, "\n"))
		})
	}
}

// TestCompareFlagErrors: a bad --compare is exit 2 with the flag and the
// column within its argument, before anything runs.
func TestCompareFlagErrors(t *testing.T) {
	cases := []struct{ arg, want string }{
		{"pre_vote", "--compare pre_vote (column 9): want KEY=VALUE"},
		{"prevote=false", `--compare prevote=false (column 1): unknown setting "prevote"`},
		{"pre_vote=maybe", `--compare pre_vote=maybe (column 10): pre_vote: want true or false, found "maybe"`},
		{"network.loss=2", `--compare network.loss=2 (column 14): loss: bad ratio "2"`},
		{"cluster.latency=1ms", `--compare cluster.latency=1ms (column 9): unknown cluster key "latency"`},
		{"latency=[1", "--compare latency=[1 (column 9): latency: YAML syntax error"},
		{"heartbeat_ticks=20", "--compare heartbeat_ticks=20 (column 1): election_ticks (10) must be more than heartbeat_ticks (20)"},
		{"links=[{from: etcd-1, to: etcd-9, loss: 1%}]", `--compare links=[{from: etcd-1, to: etcd-9, loss: 1%}] (column 27): link to: unknown member "etcd-9"`},
		// An error the setting causes elsewhere in the file is at the file's position.
		{"members=[a, b]", "pre-vote-compare.yaml:27:38: let lonely: @follower4 can never resolve: a cluster of 2 members has at most 1 followers (with --compare members=[a, b])"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := run([]string{"run", "pre-vote", "--compare", c.arg}, nil, &stdout, &stderr)
		if code != exitBadInput || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("--compare %s: exit %d, stderr %q; want exit 2 and %q", c.arg, code, stderr.String(), c.want)
		}
		if stdout.Len() != 0 {
			t.Errorf("--compare %s: ran before failing: %q", c.arg, stdout.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"run", "pre-vote", "--compare", "pre_vote=false", "--compare", "pre_vote=true"}, nil, &stdout, &stderr); code != exitBadInput ||
		!strings.Contains(stderr.String(), "pre_vote is compared twice") {
		t.Errorf("the same key twice: exit %d, %q", code, stderr.String())
	}
}

// TestCompareLessonRunsItsPanes: `run pre-vote-compare` runs both panes,
// each with the trace of its lesson on its own (pre-vote, pre-vote-off),
// and says where they part.
func TestCompareLessonRunsItsPanes(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"run", "pre-vote-compare", "-q", "--trace", filepath.Join(dir, "c.jsonl")}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for i, alias := range []string{"pre-vote", "pre-vote-off"} {
		single := filepath.Join(dir, alias+".jsonl")
		var o, e bytes.Buffer
		if code := run([]string{"run", alias, "-q", "--trace", single}, nil, &o, &e); code != exitOK {
			t.Fatalf("%s: exit %d: %s", alias, code, e.String())
		}
		got, want := eventLines(t, comparePath(filepath.Join(dir, "c.jsonl"), i+1)), eventLines(t, single)
		if !bytes.Equal(bytes.Join(got, nil), bytes.Join(want, nil)) {
			t.Errorf("pane %d: its events are not those of %s (%d and %d events)", i+1, alias, len(got), len(want))
		}
	}
	for _, want := range []string{"=== run 1 of 2: pre_vote: true\n", "=== run 2 of 2: pre_vote: false\n",
		"from 0.128586s the runs differ: etcd-3 is pre-candidate in term 1 (pre_vote: true) / is candidate in term 2 (pre_vote: false)"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("the output lacks %q", want)
		}
	}
}

// TestPlayChecksCompare: play --compare checks its settings with the
// scenario, as run does, before looking for a display: a bad key or
// value is exit 2 with its position.
func TestPlayChecksCompare(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"play", "pre-vote", "--compare", "bogus=1"}, "--compare bogus=1 (column 1): unknown setting"},
		{[]string{"play", "pre-vote", "--compare=pre_vote=maybe"}, "--compare pre_vote=maybe (column 10): pre_vote: want true or false"},
		{[]string{"play", "pre-vote-compare", "--compare", "check_quorum=false"}, "compares its own panes"},
	} {
		var stdout, stderr bytes.Buffer
		t.Setenv("DISPLAY", ":raftsim-test-no-such-display")
		code := run(c.args, nil, &stdout, &stderr)
		if code != exitBadInput || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr.String(), c.want)
		}
	}
}
