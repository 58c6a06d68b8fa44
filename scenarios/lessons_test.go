package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/raftsim/raftsim/sim"
)

// lessonSeeds is how many seeds every lesson must hold on (issue 10: seeds
// 1 to 50, in both languages). -short runs the first five.
func lessonSeeds() uint64 {
	if testing.Short() {
		return 5
	}
	return 50
}

// runLesson runs a scenario headless as `raftsim run` does, the final
// linearizability check included, and returns how it ended: nil when every
// expectation held and the history is what the scenario expects.
func runLesson(s *Scenario, seed uint64, lang string, transcript *bytes.Buffer) error {
	return runLessonWith(s, RunOptions{Seed: seed, SeedSet: true, Lang: lang}, transcript)
}

// runLessonWith is runLesson with options.
func runLessonWith(s *Scenario, opts RunOptions, transcript *bytes.Buffer) error {
	if transcript != nil {
		opts.Transcript = transcript
	}
	r, err := NewRunner(s, opts)
	if err != nil {
		return err
	}
	if st, err := r.Run(); st != Done || err != nil {
		return fmt.Errorf("the run stopped: %w", err)
	}
	if lin := r.World().CheckLinearizability(); !lin.OK && !(lin.Result == "NOT linearizable" && r.ExpectsNotLinearizable()) {
		return fmt.Errorf("client history: %s", lin.Result)
	}
	return nil
}

// TestLessonsHoldOverSeeds runs every lesson on seeds 1 to 50 in English
// and in Chinese: each claim a lesson makes is an expect, and must hold
// whatever the latencies and election timeouts the seed draws. The
// language changes only the captions, so the Chinese run must also print
// the same events.
func TestLessonsHoldOverSeeds(t *testing.T) {
	for _, name := range lessonOrder() {
		t.Run(name, func(t *testing.T) {
			s, err := LoadLesson(name)
			if err != nil {
				t.Fatal(err)
			}
			runs := []*Scenario{s}
			if len(s.Panes) > 0 {
				runs = nil // a compare lesson holds in every pane
				for _, pn := range s.Panes {
					if pn.Lesson == "" { // an alias is a lesson of its own
						runs = append(runs, pn.Scenario)
					}
				}
			}
			for _, s := range runs {
				for seed := uint64(1); seed <= lessonSeeds(); seed++ {
					for _, lang := range []string{"en", "zh"} {
						if err := runLesson(s, seed, lang, nil); err != nil {
							t.Errorf("seed %d, --lang %s: %v", seed, lang, err)
						}
					}
				}
			}
		})
	}
}

// keyLine returns the line of the lesson's key claim: the expect marked
// with a "# key" comment. Every lesson has exactly one.
func keyLine(t *testing.T, name string) int {
	t.Helper()
	file := name
	s, err := LoadLesson(name)
	if err != nil {
		t.Fatal(err)
	}
	if s.AliasOf != "" {
		file = s.AliasOf // a pane of a compare lesson: its key among its steps
	}
	data, err := library.ReadFile("library/" + file + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	line := 0
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, "# key") && (s.AliasOf == "" || slices.ContainsFunc(s.Steps, func(st Step) bool { return st.Pos.Line == i+1 })) {
			if line != 0 {
				t.Fatalf("%s: two lines marked # key (%d and %d)", name, line, i+1)
			}
			line = i + 1
		}
	}
	if line == 0 {
		t.Fatalf("%s: no expect is marked # key", name)
	}
	return line
}

// A flip changes the one thing a lesson's key claim depends on.
type flip struct {
	what  string            // what it changes, for the failure message
	apply func(s *Scenario) // the change
	// violation, if set, is the safety invariant that must break instead
	// of an expectation (a flip that breaks raft's own rules).
	violation string
}

// flips is each lesson's flip.
var flips = map[string]flip{
	"first-election": {
		what:  "pre_vote: false",
		apply: func(s *Scenario) { s.Config.PreVote = false },
	},
	"follower-forwarding": {
		what:  "proposal_forwarding: false",
		apply: func(s *Scenario) { s.Config.DisableProposalForwarding = true },
	},
	"external-failover": {
		// NB: not topology: stacked, where apiserver-1 runs on etcd-1's
		// host and dies with it, sending nothing at all.
		what: "each apiserver has its own member only as its endpoint (on a host of its own)",
		apply: func(s *Scenario) {
			s.Config.Topology = ""
			for i, m := range s.Config.Members[:min(3, len(s.Config.Members))] {
				s.Config.Clients = append(s.Config.Clients, sim.ClientConfig{Name: fmt.Sprintf("apiserver-%d", i+1),
					Endpoints: []string{m}, Timeout: sim.DefaultClientTimeout})
			}
		},
	},
	"stale-read": {
		what:  "the read at the cut-off follower is serializable",
		apply: func(s *Scenario) { opStep(s, "l1").Req.Range.Serializable = true },
	},
	"leader-crash": {
		what:  "election_ticks: 100 (a 10s election timeout)",
		apply: func(s *Scenario) { s.Config.ElectionTicks = 100 },
	},
	"split-brain": {
		what:  "check_quorum: false",
		apply: func(s *Scenario) { s.Config.CheckQuorum = false },
	},
	"quorum-loss": {
		what:  "check_quorum: false",
		apply: func(s *Scenario) { s.Config.CheckQuorum = false },
	},
	"log-replication": {
		what: "the leader is cut from three followers, not two",
		apply: func(s *Scenario) {
			cut := firstStep(s, StepCut)
			cut.To = append(cut.To, NodeRef{Kind: RefVar, Name: "f2"})
		},
	},
	"pre-vote": {
		what:  "pre_vote: false",
		apply: func(s *Scenario) { s.Config.PreVote = false },
	},
	"pre-vote-off": {
		what:  "pre_vote: true",
		apply: func(s *Scenario) { s.Config.PreVote = true },
	},
	"partial-partition": {
		what:  "check_quorum: false",
		apply: func(s *Scenario) { s.Config.CheckQuorum = false },
	},
	"partial-partition-no-prevote": {
		what:  "pre_vote: true",
		apply: func(s *Scenario) { s.Config.PreVote = true },
	},
	"partial-partition-no-checkquorum": {
		what:  "check_quorum: true",
		apply: func(s *Scenario) { s.Config.CheckQuorum = true },
	},
	"partial-partition-neither": {
		what:  "check_quorum: true",
		apply: func(s *Scenario) { s.Config.CheckQuorum = true },
	},
	"quorum-sizes": {
		what: "four of the seven members crash at first, not three",
		apply: func(s *Scenario) {
			c := firstStep(s, StepCrash)
			c.Nodes = append(c.Nodes, NodeRef{Kind: RefVar, Name: "f3"})
		},
	},
	"leadership-transfer": {
		what: "the target's election timer fires (campaign) instead of a transfer (MsgTimeoutNow)",
		apply: func(s *Scenario) {
			st := firstStep(s, StepTransferLeader)
			st.Kind, st.Nodes = StepCampaign, st.To
		},
	},
	"log-compaction": {
		what:  "snapshot_every: 0 (the leader never compacts its log)",
		apply: func(s *Scenario) { s.Config.SnapshotEvery = 0 },
	},
	"lease-read": {
		what:  "read_only: safe (ReadIndex, as etcd reads)",
		apply: func(s *Scenario) { s.Config.ReadOnlyLease = false },
	},
	"watch": {
		what:  "the plain watch is a require-leader watch",
		apply: func(s *Scenario) { opStep(s, "plain").RequireLeader = true },
	},
	"kubernetes-failure": {
		what:  "only one of the three hosts fails",
		apply: func(s *Scenario) { c := firstStep(s, StepCrash); c.Nodes = c.Nodes[:1] },
	},
	"disaster-recovery": {
		what:  "the snapshot is saved after the writes it should miss (replicas-5, db-password)",
		apply: func(s *Scenario) { moveBefore(s, StepSnapshotSave, StepLose) },
	},
	"database-space-exceeded": {
		what:  "quota_backend_bytes: 2147483648 (etcd's default, 2 GiB)",
		apply: func(s *Scenario) { s.Config.QuotaBackendBytes = sim.DefaultQuota },
	},
	"membership": {
		what:  "snapshot_every: 0 (the leader never compacts its log)",
		apply: func(s *Scenario) { s.Config.SnapshotEvery = 0 },
	},
	"figure-8": {
		what:      "commit an entry once a majority stores it, whatever its term (sim.Config.CountReplicasCommit)",
		apply:     func(s *Scenario) { s.Config.CountReplicasCommit = true },
		violation: "Leader Completeness",
	},
	"bug-forget-vote": {
		what:  "no injected bug",
		apply: func(s *Scenario) { s.Config.Bugs = nil },
	},
	"bug-apply-uncommitted": {
		what:  "no injected bug",
		apply: func(s *Scenario) { s.Config.Bugs = nil },
	},
	"figure-8-commit": {
		what:  "S1's term-4 entry reaches S2 only, not a majority",
		apply: func(s *Scenario) { restoreOnly(s, "s1", []string{"s2", "s3"}, "s2") },
	},
}

// TestLessonKeyClaimsDependOnTheirConfiguration flips, for each lesson,
// the configuration its key claim depends on (PreVote off, CheckQuorum
// off, a lease read, the commit rule...) and shows that the expect marked
// # key then fails: the claim is proven by the configuration the lesson
// names, not by luck. Every seed the flip is tried on must fail there.
// The other expects are soft in the flipped run (an expect that does not
// hold lets the run go on once its time is up), since the flip may change
// what the lesson shows on the way to its key claim.
func TestLessonKeyClaimsDependOnTheirConfiguration(t *testing.T) {
	for _, name := range lessonOrder() {
		t.Run(name, func(t *testing.T) {
			if s, err := LoadLesson(name); err == nil && len(s.Panes) > 0 && !slices.ContainsFunc(s.Panes, func(pn Pane) bool { return pn.Lesson == "" }) {
				t.Skip("a compare lesson whose panes are all lessons of their own, flipped under their names")
			}
			f, ok := flips[name]
			if !ok {
				t.Fatalf("no flip for %s: add one to flips", name)
			}
			line := keyLine(t, name)
			for seed := uint64(1); seed <= 5; seed++ {
				s, err := LoadLesson(name)
				if err != nil {
					t.Fatal(err)
				}
				if err := runLesson(s, seed, "en", nil); err != nil {
					t.Fatalf("seed %d: the lesson itself fails: %v", seed, err)
				}
				f.apply(s)
				var tr bytes.Buffer
				// Every other expect is soft: the flip may change what
				// happens before the key claim (a member is a candidate,
				// not a pre-candidate), and the run goes on to the claim.
				err = runLessonWith(s, RunOptions{Seed: seed, SeedSet: true, onlyExpect: line}, &tr)
				var ee *ExpectError
				var v *sim.Violation
				switch {
				case f.violation != "":
					if !errors.As(err, &v) || v.Invariant != f.violation {
						t.Fatalf("seed %d, %s: want a %s violation, got %v\n%s", seed, f.what, f.violation, err, tail(tr.String()))
					}
					if held := fmt.Sprintf("(%s.yaml:%d:", name, line); strings.Contains(tr.String(), held) {
						t.Fatalf("seed %d, %s: the key expect (line %d) held before the violation", seed, f.what, line)
					}
				case !errors.As(err, &ee):
					t.Fatalf("seed %d, %s: want the key expect (line %d) to fail, got %v\n%s", seed, f.what, line, err, tail(tr.String()))
				case !slices.Contains(keyConditionLines(s, line), ee.Pos.Line):
					t.Fatalf("seed %d, %s: line %d failed, want the key expect at line %d: %v", seed, f.what, ee.Pos.Line, line, ee)
				}
				if os.Getenv("RAFTSIM_SHOW_FLIPS") != "" && seed == 1 {
					t.Logf("%s with %s:\n%v", name, f.what, err)
				}
			}
		})
	}
}

// tail is the end of a transcript, for a failure message.
func tail(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return strings.Join(lines, "\n")
}

// restoreOnly finds the restore step from `from` to exactly the members
// `to` and keeps only its link to `keep`.
func restoreOnly(s *Scenario, from string, to []string, keep string) {
	for i := range s.Steps {
		st := &s.Steps[i]
		if st.Kind != StepRestore || len(st.From) != 1 || st.From[0].Name != from || len(st.To) != len(to) {
			continue
		}
		var names []string
		for _, r := range st.To {
			names = append(names, r.Name)
		}
		if strings.Join(names, ",") != strings.Join(to, ",") {
			continue
		}
		for _, r := range st.To {
			if r.Name == keep {
				st.To = []NodeRef{r}
				return
			}
		}
	}
	panic("restoreOnly: no such restore step")
}

// moveBefore moves the first step of kind what to just before the first
// step of kind before.
func moveBefore(s *Scenario, what, before StepKind) {
	i := slices.IndexFunc(s.Steps, func(st Step) bool { return st.Kind == what })
	st := s.Steps[i]
	s.Steps = slices.Delete(s.Steps, i, i+1)
	j := slices.IndexFunc(s.Steps, func(st Step) bool { return st.Kind == before })
	s.Steps = slices.Insert(s.Steps, j, st)
}

// opStep returns the operation step labelled label.
func opStep(s *Scenario, label string) *Step {
	for i := range s.Steps {
		if s.Steps[i].Kind.IsOp() && s.Steps[i].Label == label {
			return &s.Steps[i]
		}
	}
	panic("no operation labelled " + label)
}

// firstStep returns the first step of that kind.
func firstStep(s *Scenario, kind StepKind) *Step {
	for i := range s.Steps {
		if s.Steps[i].Kind == kind {
			return &s.Steps[i]
		}
	}
	panic("no step " + kind.String())
}

// keyConditionLines returns the lines of the conditions of the expect at
// line: a failure of the key claim names one of them.
func keyConditionLines(s *Scenario, line int) []int {
	var lines []int
	for _, st := range s.Steps {
		if st.Pos.Line == line {
			for _, c := range st.Conds {
				lines = append(lines, c.Pos.Line)
			}
		}
	}
	return lines
}

// TestLeaseReadStaleEvenWithTrueClocks backs what docs/lessons.md says of
// lease-read: its slow clock makes the stale read certain, but raft's
// lease is not a true lease even when clocks agree. A leader cut off steps
// down one to two election timeouts after its last check (CheckQuorum),
// while the others may elect a new leader one election timeout after their
// last heartbeat; a read in between is stale. With the clock step's rate
// set to 1, some seeds give the stale read and some do not.
func TestLeaseReadStaleEvenWithTrueClocks(t *testing.T) {
	stale, fresh := 0, 0
	for seed := uint64(1); seed <= 20; seed++ {
		s, err := LoadLesson("lease-read")
		if err != nil {
			t.Fatal(err)
		}
		firstStep(s, StepClock).Rate = 1
		r, err := NewRunner(s, RunOptions{Seed: seed, SeedSet: true, onlyExpect: -1})
		if err != nil {
			t.Fatal(err)
		}
		if st, err := r.Run(); st != Done || err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		op := r.World().Op("r1")
		switch v, _ := op.Found(); {
		case op.Status == sim.OpOK && v == "v1":
			stale++
		default:
			fresh++
		}
	}
	t.Logf("with true clocks, %d of 20 seeds served the stale read", stale)
	if stale == 0 || fresh == 0 {
		t.Fatalf("stale %d, not stale %d: want some of each", stale, fresh)
	}
}

// TestLessonsDoc keeps docs/lessons.md true to the library: its table of
// key claims names every lesson, and its Figure 8 table quotes log lines
// that the two Figure 8 lessons print (seed 1).
func TestLessonsDoc(t *testing.T) {
	data, err := os.ReadFile("../docs/lessons.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, name := range lessonOrder() {
		if !strings.Contains(doc, "\n| "+name+" | ") {
			t.Errorf("docs/lessons.md: the table of key claims has no row for %s", name)
		}
	}
	var transcripts strings.Builder
	for _, name := range []string{"figure-8", "figure-8-commit"} {
		s, err := LoadLesson(name)
		if err != nil {
			t.Fatal(err)
		}
		var tr bytes.Buffer
		if err := runLesson(s, 1, "en", &tr); err != nil {
			t.Fatal(err)
		}
		transcripts.Write(tr.Bytes())
	}
	quoted := 0
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "| (") {
			continue
		}
		cells := strings.Split(line, "`")
		if len(cells) < 3 {
			t.Errorf("docs/lessons.md: a Figure 8 row quotes no transcript line: %s", line)
			continue
		}
		want := strings.Replace(cells[1], "logs ...:", "logs (the term of each entry, from index 1):", 1)
		if !strings.Contains(squeeze(transcripts.String()), squeeze(want)) {
			t.Errorf("docs/lessons.md quotes %q, which the Figure 8 lessons do not print", cells[1])
		}
		quoted++
	}
	if quoted != 5 {
		t.Errorf("docs/lessons.md: %d Figure 8 rows, want panels (a) to (e)", quoted)
	}
}

// squeeze makes every run of spaces one space.
func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestLessonTranscriptsTellTheStory: a headless run prints every chapter,
// say and pause of a lesson in order, in the language asked for, so that
// `raftsim run NAME --lang zh` reads as the lesson does in the window.
func TestLessonTranscriptsTellTheStory(t *testing.T) {
	for _, name := range lessonOrder() {
		for _, lang := range []string{"en", "zh"} {
			s, err := LoadLesson(name)
			if err != nil {
				t.Fatal(err)
			}
			var tr bytes.Buffer
			if err := runLesson(s, s.Seed, lang, &tr); err != nil {
				t.Fatalf("%s --lang %s: %v", name, lang, err)
			}
			rest := tr.String()
			for _, st := range s.Steps {
				if !st.Kind.Narrative() {
					continue
				}
				text := st.Text.In(lang)
				if lang == "zh" && st.Text.Zh == "" {
					t.Errorf("%s:%d: a %s without a Chinese text", name, st.Pos.Line, st.Kind)
				}
				line := "── " + st.Kind.String() + ": " + text + "\n"
				i := strings.Index(rest, line)
				if i < 0 {
					t.Errorf("%s --lang %s: the transcript lacks, or has out of order, %q", name, lang, line)
					break
				}
				rest = rest[i+len(line):]
			}
		}
	}
}

// TestLessonsAreComplete: every lesson has a title and a summary in both
// languages, at least one chapter and at least one pause question.
func TestLessonsAreComplete(t *testing.T) {
	for _, name := range lessonOrder() {
		s, err := LoadLesson(name)
		if err != nil {
			t.Fatal(err)
		}
		if s.Title.En == "" || s.Title.Zh == "" || s.Summary.En == "" || s.Summary.Zh == "" {
			t.Errorf("%s: want a title and a summary in English and Chinese", name)
		}
		kinds := map[StepKind]int{}
		for _, st := range s.Steps {
			kinds[st.Kind]++
		}
		if kinds[StepChapter] == 0 || kinds[StepPause] == 0 {
			t.Errorf("%s: %d chapters and %d pauses; want at least one of each", name, kinds[StepChapter], kinds[StepPause])
		}
	}
}
