package scenarios

import (
	"fmt"
	"strings"
	"testing"
)

// whyDecision is a decision of raft a lesson's caption explains, as it
// stands in raft's source: the function that makes it, a piece of the
// cited line's code, and pieces of the code that act on it within the few
// lines after it (the reply or the state change that is the decision's
// effect). A line that exists and logs, but is another decision, fails.
type whyDecision struct {
	lesson string
	what   string
	fn     string
	line   string   // in the cited line
	then   []string // each within the cited line and the next `within`
	within int
}

// whyDecisions are the four decisions issue 32 names.
var whyDecisions = []whyDecision{
	{
		lesson: "pre-vote-off", what: "the rejected MsgVote of a candidate whose log is behind",
		fn: "(*raft).Step", line: "rejected %s from %x",
		// The reply to a vote at the voter's own term (not 1163's
		// rejected MsgPreVote from a lower term, nor 1124's step-down on
		// a higher one).
		then: []string{"voteRespMsgType(m.GetType())", "Reject: new(true)"}, within: 2,
	},
	{
		lesson: "split-brain", what: "CheckQuorum's step-down",
		fn: "stepLeader", line: "stepped down to follower since quorum is not active",
		then: []string{"r.becomeFollower(r.Term, None)"}, within: 1,
	},
	{
		lesson: "log-replication", what: "a rejected append and its hint",
		fn: "(*raft).handleAppendEntries", line: "rejected MsgApp",
		then: []string{"findConflictByTerm", "RejectHint:"}, within: 30,
	},
	{
		lesson: "figure-8-commit", what: "only an entry of the leader's term is committed by counting replicas",
		fn: "(*raftLog).maybeCommit", line: "l.matchTerm(at)",
		then: []string{"l.commitTo(at.index)"}, within: 1,
	},
}

// checkWhyDecision checks that a why: step cites d's decision in raft's
// source dir: its function, a line of the decision's code, and the code
// that acts on it right after.
func checkWhyDecision(dir string, d whyDecision, w *WhyStep) error {
	src, err := moduleSource(dir)
	if err != nil {
		return err
	}
	lines, ok := src.Lines(w.File)
	if !ok || w.Line > len(lines) {
		return fmt.Errorf("%s has no line %d", w.File, w.Line)
	}
	if w.Func != d.fn {
		return fmt.Errorf("it names %s, not %s", w.Func, d.fn)
	}
	if got, _, _, ok := src.Func(w.File, w.Line); !ok || got != d.fn {
		return fmt.Errorf("%s:%d is in %q, not %s", w.File, w.Line, got, d.fn)
	}
	if code := lines[w.Line-1]; !strings.Contains(code, d.line) {
		return fmt.Errorf("%s:%d is %q, not the line with %q", w.File, w.Line, strings.TrimSpace(code), d.line)
	}
	after := strings.Join(lines[w.Line-1:min(w.Line+d.within, len(lines))], "\n")
	for _, c := range d.then {
		if !strings.Contains(after, c) {
			return fmt.Errorf("%s:%d is not followed within %d lines by %q", w.File, w.Line, d.within, c)
		}
	}
	return nil
}

// Each of the four lessons issue 32 names has a why: that cites the line
// of raft's source that makes the decision its caption explains, read in
// raft v3.7.0 in the module cache; TestWhyCitationsMatchRaftSource only
// holds a citation to a line that logs, which a citation of the wrong
// decision passes. (Seen to fail with pre-vote-off's why: citing
// raft.go:1124, the step-down on a higher term, as it did: "raft.go:1124
// is r.logger.Infof(... received a %s message with higher term ...), not
// the line with "rejected %s from %x"" (quotes elided); and
// TestWhyDecisionCheckRejects refuses 1163, the rejected pre-vote from a
// lower term, which logs the same format.)
func TestWhyCitesTheDecisionItsCaptionExplains(t *testing.T) {
	dir := raftDir(t)
	lessons := whyLessons(t)
	for _, d := range whyDecisions {
		t.Run(d.lesson, func(t *testing.T) {
			s, ok := lessons[d.lesson]
			if !ok {
				t.Fatalf("%s has no why: step (%s)", d.lesson, d.what)
			}
			var errs []string
			for _, i := range whySteps(s) {
				w := s.Steps[i].Why
				err := checkWhyDecision(dir, d, w)
				if err == nil {
					return
				}
				errs = append(errs, fmt.Sprintf("%s: why: cites %s: %v", w.Pos, w.Cite(), err))
			}
			t.Errorf("%s: no why: cites %s:\n%s", d.lesson, d.what, strings.Join(errs, "\n"))
		})
	}
}

// The check refuses the lines next to each decision, and the decisions
// of the other rows: each row tells its decision from the others.
func TestWhyDecisionCheckRejects(t *testing.T) {
	dir := raftDir(t)
	good := map[string]WhyStep{
		"pre-vote-off":    {File: "raft.go", Line: 1259, Func: "(*raft).Step"},
		"split-brain":     {File: "raft.go", Line: 1283, Func: "stepLeader"},
		"log-replication": {File: "raft.go", Line: 1804, Func: "(*raft).handleAppendEntries"},
		"figure-8-commit": {File: "log.go", Line: 459, Func: "(*raftLog).maybeCommit"},
	}
	for _, d := range whyDecisions {
		w := good[d.lesson]
		if err := checkWhyDecision(dir, d, &w); err != nil {
			t.Fatalf("%s: %s: %v", d.lesson, w.Cite(), err)
		}
		bad := []WhyStep{
			{File: w.File, Line: w.Line - 1, Func: w.Func},
			{File: w.File, Line: w.Line + 1, Func: w.Func},
			{File: w.File, Line: w.Line, Func: "stepFollower"},
		}
		if d.lesson == "pre-vote-off" {
			bad = append(bad,
				WhyStep{File: "raft.go", Line: 1124, Func: "(*raft).Step"}, // the step-down on a higher term
				WhyStep{File: "raft.go", Line: 1163, Func: "(*raft).Step"}, // a rejected pre-vote from a lower term
			)
		}
		for _, o := range whyDecisions {
			if o.lesson != d.lesson {
				bad = append(bad, good[o.lesson])
			}
		}
		for _, b := range bad {
			if err := checkWhyDecision(dir, d, &b); err == nil {
				t.Errorf("%s: %s passed", d.lesson, b.Cite())
			}
		}
	}
}
