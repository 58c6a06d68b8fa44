package scenarios

import "testing"

// BenchmarkLessons runs every built-in lesson headless, as `raftsim run`
// does without a transcript.
func BenchmarkLessons(b *testing.B) {
	lessons, err := Lessons()
	if err != nil {
		b.Fatal(err)
	}
	var all []*Scenario
	for _, l := range lessons {
		s, err := LoadLesson(l.Name)
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, s)
	}
	for b.Loop() {
		for _, l := range all {
			r, err := NewRunner(l, RunOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := r.Run(); err != nil {
				b.Fatal(l.Name, err)
			}
		}
	}
}
