package experiment

import (
	"math"
	"testing"
	"time"
)

// TestPaperTrials checks the trials read off the paper's figure against
// what its text says of them (the paper, section 9.3; the thesis,
// leaderelection/real.tex, lines 96-112): 12-24 has a mean of 35ms and a
// longest trial of 152ms; 150-155 a median of 287ms; 150-200 a longest
// trial of 513ms; 150-150 "consistently took longer than 10 seconds" (read
// off the figure, its fastest trial is 9.86s). And 150-300, in both
// graphs, is the same trials read off two different axes.
func TestPaperTrials(t *testing.T) {
	near := func(what string, got time.Duration, want, tol float64) {
		t.Helper()
		if ms := got.Seconds() * 1000; math.Abs(ms-want) > tol {
			t.Errorf("%s: %.1fms, the paper says %gms", what, ms, want)
		}
	}
	s := func(r Range) Summary {
		t.Helper()
		s, ok := PaperSummary(r)
		if !ok {
			t.Fatalf("no paper trials for %s", r)
		}
		return s
	}
	near("12-24 mean", s(Range{12, 24}).Mean, 35, 0.5)
	near("12-24 max", s(Range{12, 24}).Max, 152, 0.5)
	near("150-155 median", s(Range{150, 155}).Median, 287, 1)
	near("150-200 max", s(Range{150, 200}).Max, 513, 1)
	if m := s(Range{150, 150}).Min; m < 9800*time.Millisecond {
		t.Errorf("150-150: fastest trial %s", m)
	}
	for _, r := range append(append([]Range{}, PaperRanges...), PaperTopRanges...) {
		want := 1000
		if r.Min == r.Max {
			want = 100
		}
		if n := len(PaperTrials[r]); n != want {
			t.Errorf("%s: %d trials, want %d", r, n, want)
		}
	}
	if n := len(PaperTrials); n != 10 {
		t.Errorf("%d ranges, want 10", n)
	}
	// The two readings of 150-300 agree to the precision written (0.1ms),
	// which checks both axes' calibration.
	bottom, top := parsePaperTrials(paperBottom)[Range{150, 300}], parsePaperTrials(paperTop)[Range{150, 300}]
	for i := range bottom {
		if d := bottom[i] - top[i]; d > 200*time.Microsecond || d < -200*time.Microsecond {
			t.Fatalf("150-300 trial %d: %s on the bottom graph, %s on the top one", i, bottom[i], top[i])
		}
	}
}
