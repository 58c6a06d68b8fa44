package typeface

import (
	"testing"
	"time"
)

func TestEmbeddedMeasures(t *testing.T) {
	f, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	w1 := f.Advance("follower", 12)
	w2 := f.Advance("follower", 24)
	if w1 < 30 || w1 > 70 {
		t.Errorf("\"follower\" at 12px is %.1f px wide", w1)
	}
	if d := w2 - 2*w1; d < -1 || d > 1 {
		t.Errorf("twice the size is not twice the width: %.2f and %.2f", w1, w2)
	}
	if f.Advance("iiii", 12) >= f.Advance("MMMM", 12) {
		t.Errorf("the widths are not the glyphs' own: iiii is as wide as MMMM")
	}
	if f.Advance("", 12) != 0 {
		t.Error("the empty string has a width")
	}
}

// With the CJK font (installed in CI by .ci/deps.sh), Chinese is measured
// in its own glyphs: a Han character is about one em wide.
func TestCJKMeasures(t *testing.T) {
	start := time.Now()
	f, err := Find(false)
	if err != nil {
		t.Fatal(err)
	}
	if !f.CJK {
		t.Skip("no CJK font installed (fonts-noto-cjk)")
	}
	t.Logf("%s loaded in %v", f.Name, time.Since(start))
	w := f.Advance("领导者", 20)
	if w < 55 || w > 65 {
		t.Errorf("three Han characters at 20px are %.1f px wide, want about 60", w)
	}
}
