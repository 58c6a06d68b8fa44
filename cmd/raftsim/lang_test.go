package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/scenarios"
)

// transcriptData is what a Chinese transcript keeps as it is because it
// is data, not words: the command line, raft's message types, file
// positions, a lesson's own text (its author's
// words, in its zh: translation), quoted keys and values, labels, etcdctl
// flags, and etcd's and gRPC's error strings, which users grep for.
var transcriptData = []*regexp.Regexp{
	regexp.MustCompile(`^raftsim run .*`),
	regexp.MustCompile(`── (say|pause|chapter): .*`),
	regexp.MustCompile(`"(\\.|[^"\\])*"`),
	regexp.MustCompile(`\bMsg[A-Za-z]+`),                // raft's message types
	regexp.MustCompile(`[A-Za-z0-9_./-]+\.yaml(:\d+)*`), // a scenario file's position
	regexp.MustCompile(`[A-Za-z0-9_./-]+\.db\b`),        // a snapshot file's name
	regexp.MustCompile(`\[[a-z0-9][a-z0-9_-]*\]`),
	regexp.MustCompile(`--[a-z-]+(=[^\s，）]*)?`),
	regexp.MustCompile(`(rpc error: code = \w+ desc = |etcdserver: |mvcc: )[^\[，）]*`),
	regexp.MustCompile(`context (deadline exceeded|canceled)`),
	// a compared setting, as a scenario file writes it (run --compare's labels)
	regexp.MustCompile(`\b(` + strings.Join(scenarios.CompareKeys(), "|") + `): [^,，/()（）]+`),
}

// transcriptForeign returns the words of a Chinese transcript's line left
// in English.
func transcriptForeign(line string) []string {
	for _, re := range transcriptData {
		line = re.ReplaceAllString(line, " ")
	}
	return i18n.Foreign(line)
}

// Issue 8: the headless transcript's fixed words follow --lang. Every
// lesson's whole output under --lang zh (events, outcomes, the summary and
// the linearizability verdict) has no English word outside data.
func TestChineseTranscriptHasNoEnglish(t *testing.T) {
	lessons, err := scenarios.Lessons()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lessons {
		var stdout, stderr bytes.Buffer
		code := run([]string{"run", l.Name, "--lang", "zh"}, strings.NewReader(""), &stdout, &stderr)
		if code != 0 {
			t.Errorf("raftsim run %s --lang zh: exit %d: %s", l.Name, code, stderr.String())
		}
		seen := map[string]bool{}
		for _, line := range strings.Split(stdout.String()+stderr.String(), "\n") {
			for _, w := range transcriptForeign(line) {
				if !seen[w] {
					seen[w] = true
					t.Errorf("%s: %q left in English in: %s", l.Name, w, line)
				}
			}
		}
	}
}

// The check finds English words and leaves data alone.
func TestTranscriptForeign(t *testing.T) {
	for line, want := range map[string]string{
		`  0.5s  apiserver-2 ← etcd-2  错误：rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial tcp etcd-2:2379: connect: connection refused"  [w2]，耗时 2ms`: "",
		`  0.5s  apiserver-2 → etcd-2  watch "/registry/pods/" --prefix --rev=7  [again]`:                                                                                                                 "",
		`  6.0s  etcd-3（本地客户端） → etcd-3  member add etcd-4 as a learner  [a1]`:                                                                                                                            "as a learner",
		`  0.7s  ── say: 在 read_only: lease 下，"request timed out"`:                                                                                                                                        "",
		`  7.0s  etcd-3 → etcd-3  get "k"  [op 3]`:                                                                                                                                                        "op",
	} {
		if got := strings.Join(transcriptForeign(line), " "); got != want {
			t.Errorf("transcriptForeign(%q) = %q, want %q", line, got, want)
		}
	}
}
