package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/raftsim/raftsim/raftsrc"
)

// runWhy runs a lesson and returns its trace and transcript.
func runWhy(t *testing.T, name string, why bool) (trace, transcript []byte) {
	t.Helper()
	s, err := LoadLesson(name)
	if err != nil {
		t.Fatal(err)
	}
	var tr, out bytes.Buffer
	r, err := NewRunner(s, RunOptions{Transcript: &out, Trace: &tr, Why: why})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := r.Run(); st != Done || err != nil {
		t.Fatalf("%s: %v %v", name, st, err)
	}
	return tr.Bytes(), out.Bytes()
}

// The traces of a run with and without why differ only in the why
// fields, and the run with it has some, in every lesson (a compare
// lesson's trace holds both panes'). (Seen to fail with the why field
// written on every event, empty without the switch.)
func TestWhyOnlyAddsWhyFields(t *testing.T) {
	for _, name := range lessonOrder() {
		t.Run(name, func(t *testing.T) {
			off, _ := runWhy(t, name, false)
			on, _ := runWhy(t, name, true)
			a, b := bytes.Split(off, []byte("\n")), bytes.Split(on, []byte("\n"))
			if len(a) != len(b) {
				t.Fatalf("%s: %d trace lines without why, %d with", name, len(a), len(b))
			}
			whys := 0
			for i := range a {
				if len(a[i]) == 0 && len(b[i]) == 0 {
					continue
				}
				var x, y map[string]any
				if err := json.Unmarshal(a[i], &x); err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(b[i], &y); err != nil {
					t.Fatal(err)
				}
				if _, ok := x["why"]; ok {
					t.Fatalf("%s line %d: a why field without --why: %s", name, i+1, a[i])
				}
				if _, ok := y["why"]; ok {
					whys++
					delete(y, "why")
				}
				if !reflect.DeepEqual(x, y) {
					t.Fatalf("%s line %d differs beyond why:\n%s\n%s", name, i+1, a[i], b[i])
				}
			}
			if whys == 0 {
				t.Errorf("%s: no why field with why on", name)
			}
		})
	}
}

var (
	citeRE   = regexp.MustCompile(`^([\w/]+\.go):(\d+) (\S+): (?s)(.*)$`)
	callRE   = regexp.MustCompile(`[Ll]ogger(?:\(\))?\.(Debug|Info|Warning|Error)(f?)\(`)
	verbRE   = regexp.MustCompile(`%[-+# 0]*[0-9]*(?:\.[0-9]+)?[a-zA-Z%]`)
	raftOnce struct {
		dir string
		err error
	}
)

func raftDir(t *testing.T) string {
	t.Helper()
	if raftOnce.dir == "" && raftOnce.err == nil {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "go.etcd.io/raft/v3").Output()
		raftOnce.dir, raftOnce.err = strings.TrimSpace(string(out)), err
	}
	if raftOnce.err != nil || raftOnce.dir == "" {
		t.Skipf("raft's source is not in the module cache: %v", raftOnce.err)
	}
	return raftOnce.dir
}

// checkCitation checks one "file:line func: message" against raft's
// source: the line exists, it is (or ends) a call to raft's logger, and
// message is what the call's format string formats to.
func checkCitation(dir, cite string, src map[string][]string) error {
	m := citeRE.FindStringSubmatch(cite)
	if m == nil {
		return fmt.Errorf("not file:line func: message")
	}
	lines, ok := src[m[1]]
	if !ok {
		b, err := os.ReadFile(filepath.Join(dir, m[1]))
		if err != nil {
			return err
		}
		lines = strings.Split(string(b), "\n")
		src[m[1]] = lines
	}
	n, _ := strconv.Atoi(m[2])
	if n < 1 || n > len(lines) {
		return fmt.Errorf("%s has %d lines, not %d", m[1], len(lines), n)
	}
	if strings.HasSuffix(m[4], notLogged) {
		return checkDecision(dir, m[1], n, m[3], lines[n-1])
	}
	// The call may start a few lines above the line the runtime reports
	// when its arguments span lines.
	for start := n - 1; start >= 0 && start >= n-6; start-- {
		loc := callRE.FindStringSubmatchIndex(lines[start])
		if loc == nil {
			if start < n-1 && strings.HasSuffix(strings.TrimSpace(lines[start]), ")") {
				break // an earlier statement
			}
			continue
		}
		if start < n-1 {
			// The call must still be open when the cited line starts.
			before := strings.Join(lines[start:n-1], "\n")[loc[0]:]
			if strings.Count(before, "(") <= strings.Count(before, ")") {
				break
			}
		}
		text := strings.Join(lines[start:min(n+6, len(lines))], "\n")[loc[1]:]
		lit := regexp.MustCompile(`^\s*("(?:[^"\\]|\\.)*"|` + "`[^`]*`" + `)`).FindStringSubmatch(text)
		if lit == nil {
			return nil // a message built elsewhere: the line is a logger call
		}
		format, err := strconv.Unquote(lit[1])
		if err != nil {
			return err
		}
		var re strings.Builder
		re.WriteString(`^(?s)`)
		last := 0
		for _, v := range verbRE.FindAllStringIndex(format, -1) {
			re.WriteString(regexp.QuoteMeta(format[last:v[0]]))
			if format[v[0]:v[1]] == "%%" {
				re.WriteString("%")
			} else {
				re.WriteString(".*?")
			}
			last = v[1]
		}
		re.WriteString(regexp.QuoteMeta(format[last:]))
		if loc[4] == loc[5] { // Info(v...): Sprint of the literal and more
			re.WriteString(".*")
		}
		re.WriteString("$")
		if !regexp.MustCompile(re.String()).MatchString(m[4]) {
			return fmt.Errorf("message %q does not match the format %q at %s:%d", m[4], format, m[1], start+1)
		}
		return nil
	}
	return fmt.Errorf("%s:%d is not a logger call: %q", m[1], n, strings.TrimSpace(lines[n-1]))
}

// notLogged ends the citation of a decision raft makes without a log line.
const notLogged = "(not logged by raft; the decision is this line)"

// checkDecision checks the citation of a decision raft does not log: the
// line is inside the function cited, and it is a commit decision
// (maybeCommit's term check, or a commitTo) or an append (a leader's in
// appendEntry, a follower's accepted MsgApp in handleAppendEntries), the
// kinds sim cites.
func checkDecision(dir, file string, n int, fn, line string) error {
	src, err := moduleSource(dir)
	if err != nil {
		return err
	}
	got, _, _, ok := src.Func(file, n)
	if !ok || got != fn {
		return fmt.Errorf("%s:%d is in %q, not %q", file, n, got, fn)
	}
	code := strings.TrimSpace(line)
	for _, c := range []string{"commitTo(", "l.matchTerm(at)", "l.committed = ", "r.raftLog.append(", "r.raftLog.maybeAppend("} {
		if strings.Contains(code, c) {
			return nil
		}
	}
	return fmt.Errorf("%s:%d is not a commit or append decision: %q", file, n, code)
}

var moduleSrc struct {
	src *raftsrc.Source
	err error
}

// moduleSource is raft's source read from the module cache (not the
// embedded copy, which raftsrc's test holds to it).
func moduleSource(dir string) (*raftsrc.Source, error) {
	if moduleSrc.src == nil && moduleSrc.err == nil {
		b, err := raftsrc.Build(dir)
		if err == nil {
			moduleSrc.src, err = raftsrc.Open(b)
		}
		moduleSrc.err = err
	}
	return moduleSrc.src, moduleSrc.err
}

// Every citation of every lesson names a logger call in raft v3.7.0's
// source and the message that call formats. (Seen to fail with every
// captured line number shifted by one: "raft.go:989 is not a logger call:
// \"r.campaign(t)\"", and TestWhyCheckRejects shows the check's edges.)
func TestWhyCitationsMatchRaftSource(t *testing.T) {
	dir := raftDir(t)
	src := map[string][]string{}
	total := 0
	for _, name := range lessonOrder() {
		_, out := runWhy(t, name, true)
		n := 0
		for _, line := range strings.Split(string(out), "\n") {
			cite, ok := strings.CutPrefix(line, "    why: ")
			if !ok {
				continue
			}
			n++
			if err := checkCitation(dir, cite, src); err != nil {
				t.Errorf("%s: %s: %v", name, cite, err)
			}
		}
		if n == 0 {
			t.Errorf("%s: no why lines", name)
		}
		total += n
	}
	t.Logf("%d citations checked", total)
}

// The check refuses a citation whose line is not a logger call, whose
// message is not its format's, or whose line is past the file's end.
func TestWhyCheckRejects(t *testing.T) {
	dir := raftDir(t)
	src := map[string][]string{}
	good := "raft.go:988 (*raft).hup: 3 is starting a new election at term 1"
	if err := checkCitation(dir, good, src); err != nil {
		t.Fatalf("%s: %v", good, err)
	}
	// raft.go:1065 is the second line of a call that starts at :1064.
	span := "raft.go:1065 (*raft).campaign: 3 [logterm: 1, index: 5] sent MsgVote request to 1 at term 2"
	if err := checkCitation(dir, span, src); err != nil {
		t.Fatalf("%s: %v", span, err)
	}
	for _, bad := range []string{
		"raft.go:989 (*raft).hup: 3 is starting a new election at term 1",  // the next line: r.campaign(t)
		"raft.go:987 (*raft).hup: 3 is starting a new election at term 1",  // the line before
		"raft.go:988 (*raft).hup: 3 is starting an old election at term 1", // not its message
		"raft.go:1066 (*raft).campaign: 3 [logterm: 1, index: 5] sent MsgVote request to 1 at term 2",
		"raft.go:99999 (*raft).hup: x",
		"log.go:458 (*raftLog).maybeCommit: 3 commits up to index 6: x " + notLogged, // a comment above the test
		"log.go:459 (*raftLog).maybeAppend: 3 commits up to index 6: x " + notLogged, // another function
		"raft.go:988 (*raft).hup: 3 commits up to index 6: x " + notLogged,           // not a commit
		"raft.go:835 (*raft).appendEntry: 3 appends up to index 6: x " + notLogged,   // a comment after the append
		"nosuch.go:1 f: x",
	} {
		if err := checkCitation(dir, bad, src); err == nil {
			t.Errorf("%s passed", bad)
		} else {
			t.Logf("%s: %v", bad, err)
		}
	}
}

// Each citation is on an event of the member that logged it: raft starts
// most of its lines with the logging member's ID ("3 became candidate at
// term 2"), and the trace names each event's member (a send's sender, an
// arrival's receiver). (Seen to fail when a citation went to the next event
// anyone recorded: etcd-1's arrival of a MsgVote carried etcd-3's "3
// received MsgVoteResp from 3 at term 2".)
func TestWhyCitationsAreOfTheirMember(t *testing.T) {
	lead := regexp.MustCompile(`^[^ ]+ [^ ]+: ([0-9a-f]+) `)
	checked := 0
	for _, name := range lessonOrder() {
		s, err := LoadLesson(name)
		if err != nil {
			t.Fatal(err)
		}
		var trace bytes.Buffer
		r, err := NewRunner(s, RunOptions{Trace: &trace, Why: true})
		if err != nil {
			t.Fatal(err)
		}
		if st, err := r.Run(); st != Done || err != nil {
			t.Fatalf("%s: %v %v", name, st, err)
		}
		ids := map[string]uint64{} // member i has raft ID i, added ones too
		for i, m := range r.World().MemberNames() {
			ids[m] = uint64(i + 1)
		}
		for _, l := range bytes.Split(trace.Bytes(), []byte("\n")) {
			var e struct {
				T    int64
				Ev   string
				Node string
				Why  string
			}
			if len(l) == 0 || json.Unmarshal(l, &e) != nil || e.Why == "" {
				continue
			}
			id, ok := ids[e.Node]
			if !ok {
				t.Fatalf("%s: %s is not a member", name, e.Node)
			}
			for _, cite := range strings.Split(e.Why, "\n") {
				m := lead.FindStringSubmatch(cite)
				if m == nil {
					continue
				}
				got, err := strconv.ParseUint(m[1], 16, 64)
				if err != nil {
					continue
				}
				checked++
				if got != id {
					t.Errorf("%s: %s at %dns (%s): %q is member %x's line", name, e.Ev, e.T, e.Node, cite, got)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no citation checked")
	}
	t.Logf("%d citations checked", checked)
}

// Every commit index that advances is cited, though raft logs none of
// them: by the leader's maybeCommit, or a follower's maybeAppend,
// handleHeartbeat or snapshot restore, found in raft's source by their code (raftsrc). (Seen
// to fail with the citation left out: "no citation".)
func TestWhyDecisionsAreCited(t *testing.T) {
	kinds := map[string]int{}
	for _, name := range lessonOrder() {
		trace, _ := runWhy(t, name, true)
		for _, l := range bytes.Split(trace, []byte("\n")) {
			var e struct {
				T        int64
				Ev, Node string
				Index    uint64
				Why      string
			}
			if len(l) == 0 || json.Unmarshal(l, &e) != nil || e.Ev != "commit" {
				continue
			}
			found := false
			for _, cite := range strings.Split(e.Why, "\n") {
				if m := citeRE.FindStringSubmatch(cite); m != nil && strings.HasSuffix(m[4], notLogged) &&
					strings.Contains(m[4], fmt.Sprintf(" commits up to index %d", e.Index)) {
					kinds[m[3]]++
					found = true
				}
			}
			if !found {
				t.Errorf("%s: %s's commit to %d at %dns: no citation (why: %q)", name, e.Node, e.Index, e.T, e.Why)
			}
		}
	}
	for _, fn := range []string{"(*raftLog).maybeCommit", "(*raftLog).maybeAppend"} {
		if kinds[fn] == 0 {
			t.Errorf("no commit cited by %s", fn)
		}
	}
	t.Logf("%v", kinds)
}
