package scenarios

import (
	"errors"
	"strings"
	"testing"
)

// whyLessons are the lessons with why: steps, each as it runs (a compare
// lesson's panes that are lessons of their own), and their why: steps.
func whyLessons(t *testing.T) map[string]*Scenario {
	t.Helper()
	out := map[string]*Scenario{}
	for _, name := range lessonOrder() {
		s, err := LoadLesson(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Panes) > 0 {
			continue // its panes are lessons of their own, in the order
		}
		for _, st := range s.Steps {
			if st.Why != nil {
				out[name] = s
				break
			}
		}
	}
	return out
}

// whySteps are the indexes of s's steps with a why:.
func whySteps(s *Scenario) []int {
	var out []int
	for i, st := range s.Steps {
		if st.Why != nil {
			out = append(out, i)
		}
	}
	return out
}

// At least four lessons point at raft's code, and each why: opens its
// card on the line it names, on seeds 1 to 50 (TestLessonsHoldOverSeeds
// runs them too, in both languages; this one also checks the card each
// opens). (Seen to fail with split-brain's citing raft.go:1284.)
func TestWhyStepsOpenTheirCards(t *testing.T) {
	lessons := whyLessons(t)
	if len(lessons) < 4 {
		t.Fatalf("%d lessons have why: steps, want at least 4", len(lessons))
	}
	for name, s := range lessons {
		t.Run(name, func(t *testing.T) {
			for seed := uint64(1); seed <= lessonSeeds(); seed++ {
				r, err := NewRunner(s, RunOptions{Seed: seed, SeedSet: true, NarrativeStops: true})
				if err != nil {
					t.Fatal(err)
				}
				opened := 0
				for {
					st, err := r.Advance(Forever)
					if err != nil {
						t.Fatalf("seed %d: %v", seed, err)
					}
					if o := r.WhyOpened(); o != nil && r.paused {
						if !strings.HasPrefix(o.Cite(), o.Step.Cite()+": ") || !strings.Contains(o.Cite(), o.Step.Says) {
							t.Fatalf("seed %d: the card opened on %q for %s", seed, o.Cite(), o.Step.Cite())
						}
						opened++
					}
					if st == Done {
						break
					}
					r.Resume()
				}
				if want := len(whySteps(s)); opened != want {
					t.Fatalf("seed %d: %d cards opened, want %d", seed, opened, want)
				}
			}
		})
	}
}

// A why: that names another line than raft's, or a line raft never logs,
// fails the lesson at the why:'s position; so does the flip of the
// configuration that makes raft decide (CheckQuorum off: the old leader
// never steps down; PreVote on: nobody hears a higher term; S1's term-4
// entry kept off a majority: it commits nothing), with every expect soft.
func TestWhyStepsFailFlipped(t *testing.T) {
	config := map[string]bool{"split-brain": true, "pre-vote-off": true, "figure-8-commit": true}
	for name, s := range whyLessons(t) {
		t.Run(name, func(t *testing.T) {
			for _, i := range whySteps(s) {
				for _, flip := range []struct {
					what, observed string
					apply          func(*Scenario)
				}{
					{"the next line", "raft logged it at", func(s *Scenario) { s.Steps[i].Why.Line++ }},
					{"another function", "raft logged it at", func(s *Scenario) { s.Steps[i].Why.Func = "stepFollower" }},
					{"a line raft never logs", "no line of", func(s *Scenario) { s.Steps[i].Why.Says += " (not raft's)" }},
				} {
					for seed := uint64(1); seed <= 3; seed++ {
						f, _ := LoadLesson(name)
						flip.apply(f)
						err := runLesson(f, seed, "en", nil)
						var ee *ExpectError
						if !errors.As(err, &ee) || ee.Pos != s.Steps[i].Why.Pos || !strings.Contains(ee.Observed, flip.observed) {
							t.Fatalf("seed %d, %s at %s: want a failure at %s observing %q, got %v", seed, flip.what, s.Steps[i].Why.Pos, s.Steps[i].Why.Pos, flip.observed, err)
						}
					}
				}
			}
			if !config[name] {
				return
			}
			for seed := uint64(1); seed <= 5; seed++ {
				f, _ := LoadLesson(name)
				flips[name].apply(f)
				err := runLessonWith(f, RunOptions{Seed: seed, SeedSet: true, onlyExpect: -1}, nil)
				var ee *ExpectError
				if !errors.As(err, &ee) || !strings.HasPrefix(ee.What, "why: ") {
					t.Fatalf("seed %d, %s: want a why: step to fail, got %v", seed, flips[name].what, err)
				}
				if seed == 1 {
					t.Logf("%s: %v", flips[name].what, err)
				}
			}
		})
	}
}

// why: is refused with a position where it cannot be.
func TestWhyStepErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"  - wait: 1s\n    why: {says: x, cites: \"raft.go:1 f\"}\n", "lesson.yaml:5:5: why: goes with a say or pause"},
		{"  - chapter: c\n    why: {says: x, cites: \"raft.go:1 f\"}\n", "lesson.yaml:5:5: why: goes with a say or pause"},
		{"  - say: hi\n    why: {cites: \"raft.go:1 f\"}\n", "lesson.yaml:5:10: why: missing says:"},
		{"  - say: hi\n    why: {says: x}\n", "lesson.yaml:5:10: why: missing cites:"},
		{"  - say: hi\n    why: {says: x, cites: \"raft.go f\"}\n", "lesson.yaml:5:27: why cites: want FILE:LINE FUNCTION"},
		{"  - say: hi\n    why: {says: \"\", cites: \"raft.go:1 f\"}\n", "lesson.yaml:5:17: why says: is empty"},
		{"  - say: hi\n    why: {member: nobody, says: x, cites: \"raft.go:1 f\"}\n", "lesson.yaml:5:19: "},
		{"  - say: hi\n    why: {says: x, cites: \"raft.go:1 f\", at: 3}\n", "lesson.yaml:5:42: unknown key \"at\" in why"},
	} {
		src := "name: t\ncluster: {members: [etcd-1, etcd-2, etcd-3]}\nsteps:\n" + c.src
		_, err := Parse("lesson.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: want an error with %q, got %v", c.src, c.want, err)
		} else {
			t.Log(err)
		}
	}
	ok := "name: t\ncluster: {members: [etcd-1, etcd-2, etcd-3]}\nsteps:\n  - say: hi\n    why: {member: etcd-1, says: x, cites: \"raft.go:1 f\"}\n"
	s, err := Parse("lesson.yaml", []byte(ok))
	if err != nil {
		t.Fatal(err)
	}
	if w := s.Steps[0].Why; w == nil || w.Member.Name != "etcd-1" || w.Cite() != "raft.go:1 f" {
		t.Fatalf("parsed %+v", w)
	}
	out, err := MarshalScenario(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("back.yaml", out)
	if err != nil {
		t.Fatalf("written back:\n%s\n%v", out, err)
	}
	if w := back.Steps[0].Why; w == nil || w.Member.Name != "etcd-1" || w.Says != "x" || w.Cite() != "raft.go:1 f" {
		t.Fatalf("written back as %+v:\n%s", w, out)
	}
}

// With --why the transcript says, under the caption, which line the card
// opened on; without it the transcript has no such line.
func TestWhyCardInTranscript(t *testing.T) {
	_, on := runWhy(t, "split-brain", true)
	_, off := runWhy(t, "split-brain", false)
	if !strings.Contains(string(on), "  why card: raft.go:1283 stepLeader: ") {
		t.Errorf("no why card line with why on:\n%s", on)
	}
	if strings.Contains(string(off), "why card:") {
		t.Errorf("a why card line with why off")
	}
}
