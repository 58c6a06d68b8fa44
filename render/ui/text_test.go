package ui

import (
	"strings"
	"testing"
)

// Wrapping never drops or changes a word, and every line fits; fitting
// shortens with an ellipsis to at most the width; both measure prefixes
// as the whole text is shaped, and check the result as drawn.
func TestWrapAndFit(t *testing.T) {
	m := WindowFont()
	for _, s := range []string{
		"The majority side elects a new leader in a higher term. CheckQuorum makes the old leader step down.",
		"多数派在更高的任期选出新的领导者。CheckQuorum 使旧领导者在一个选举超时内收不到多数派的回应后下台。",
		"averyveryverylongwordwithoutanyspacesatallthatmustbebrokensomewhere",
	} {
		for _, w := range []float64{80, 200, 600} {
			lines := Wrap(m, s, 17, w)
			for _, ln := range lines {
				if got := m.Advance(ln, 17); got > w {
					t.Errorf("%q at %g: the line %q is %.1f wide", s, w, ln, got)
				}
			}
			joined := strings.Join(lines, "")
			if strings.ReplaceAll(joined, " ", "") != strings.ReplaceAll(s, " ", "") {
				t.Errorf("%q at %g wraps to %q: characters lost", s, w, lines)
			}
			f, cut := Fit(m, s, 17, w)
			if !cut || !strings.HasSuffix(f, "…") || m.Advance(f, 17) > w {
				t.Errorf("Fit(%q, %g) = %q (%.1f wide), cut %v", s, w, f, m.Advance(f, 17), cut)
			}
		}
	}
	if s, cut := Fit(m, "short", 17, 500); s != "short" || cut {
		t.Errorf("Fit shortened a text that fits: %q", s)
	}
}
