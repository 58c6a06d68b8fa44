package scenarios

import (
	"testing"
)

// TestDocExamplesRun runs the examples of docs/scenarios.md that are whole
// scenarios, and the step lists in the default cluster: what the
// documentation shows must do what it says, not only parse.
func TestDocExamplesRun(t *testing.T) {
	for _, b := range docBlocks(t) {
		src := b.text
		switch b.info {
		case "steps":
			src = "name: doc-example\nsteps:\n" + src
		case "":
		default:
			continue
		}
		s, err := Parse("lesson.yaml", []byte(src))
		if err != nil {
			continue // TestDocExamples reports it
		}
		r, err := NewRunner(s, RunOptions{})
		if err != nil {
			t.Errorf("docs/scenarios.md:%d: %v", b.line, err)
			continue
		}
		if st, err := r.Run(); st != Done {
			t.Errorf("docs/scenarios.md:%d: the example does not run to the end: %v", b.line, err)
		}
	}
}
