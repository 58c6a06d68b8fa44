package scenarios

import (
	"bytes"
	"testing"
)

// A run that RunOptions.Stop stops, again and again, and that is carried
// on each time, is the same run as one never stopped: the same trace and
// transcript, byte for byte. Stopping is at a clean instant, with both
// flushed up to it.
func TestStopAndGoOnIsTheSameRun(t *testing.T) {
	for _, name := range []string{"split-brain", "membership", "watch"} {
		s, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		run := func(stopEvery int) (string, string, int) {
			var trace, transcript bytes.Buffer
			calls, stops := 0, 0
			opts := RunOptions{Trace: &trace, Transcript: &transcript, ForgetHistory: true}
			if stopEvery > 0 {
				opts.Stop = func() bool { calls++; return calls%stopEvery == 0 }
			}
			r, err := NewRunner(s, opts)
			if err != nil {
				t.Fatal(err)
			}
			for {
				st, err := r.Run()
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if st != Interrupted {
					break
				}
				stops++
				// What was written so far ends at a whole line.
				if b := trace.Bytes(); len(b) > 0 && b[len(b)-1] != '\n' {
					t.Fatalf("%s: stopped with a partial trace line", name)
				}
			}
			return trace.String(), transcript.String(), stops
		}
		trace, transcript, _ := run(0)
		for _, every := range []int{1, 7, 97} {
			tr, ts, stops := run(every)
			if stops == 0 {
				t.Fatalf("%s: Stop every %d calls never stopped the run", name, every)
			}
			if tr != trace || ts != transcript {
				t.Fatalf("%s: stopped %d times (every %d calls), the run differs from one never stopped", name, stops, every)
			}
		}
	}
}
