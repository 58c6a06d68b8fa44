package ui

import (
	"fmt"
	"image/color"
	"slices"
	"testing"

	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/sim"
)

// minDeltaE is how far apart (CIEDE2000) two colours that must be told
// apart have to stay, for normal vision and under each simulated colour
// blindness. About 2 is just noticeable side by side; 11 is what the best
// seven-colour role palette we found reaches under all three
// deficiencies, and every category here reaches it.
const minDeltaE = 11

// named is a colour with what it stands for.
type named struct {
	name string
	c    color.RGBA
}

// palette is the colours of one kind that must be told apart, and which
// pairs of them must be (all, or terms close to each other).
type palette struct {
	kind  string
	cs    []named
	pairs func(i, j int) bool
}

func allPairs(i, j int) bool { return true }

// palettes returns the window's palettes: roles, message types, the
// colours of terms (solid, and paled as uncommitted entries are), and the
// statuses of client requests.
func palettes() []palette {
	var roles, msgs, terms, pale, status []named
	for _, r := range Roles {
		roles = append(roles, named{r.String(), StyleOfRole(r).Fill})
	}
	for _, t := range LegendMessages {
		if StyleOfMessage(t).Hollow {
			continue
		}
		msgs = append(msgs, named{t.String(), StyleOfMessage(t).Fill})
	}
	for t := uint64(1); t <= uint64(len(termPalette)); t++ {
		terms = append(terms, named{fmt.Sprintf("term %d", t), TermColor(t)})
		pale = append(pale, named{fmt.Sprintf("term %d uncommitted", t), Pale(TermColor(t), UncommittedPale)})
	}
	for _, s := range []sim.OpStatus{sim.OpPending, sim.OpOK, sim.OpError, sim.OpTimeout} {
		status = append(status, named{s.String(), OpStatusColor(s)})
	}
	status = append(status, named{"stale", StaleColor})
	// Terms: any two at most two apart (the palette repeats every seven).
	near := func(i, j int) bool {
		d := (j - i + len(terms)) % len(terms)
		return min(d, len(terms)-d) <= 2
	}
	return []palette{{"roles", roles, allPairs}, {"message types", msgs, allPairs}, {"terms", terms, near},
		{"uncommitted terms", pale, near}, {"request statuses", status, allPairs}}
}

// tooClose returns the pairs of a palette that come closer than minDeltaE
// under some vision.
func tooClose(p palette) []string {
	var out []string
	for _, d := range Deficiencies {
		for i := range p.cs {
			for j := i + 1; j < len(p.cs); j++ {
				if !p.pairs(i, j) {
					continue
				}
				a, b := p.cs[i], p.cs[j]
				if e := DeltaE2000(Simulate(a.c, d), Simulate(b.c, d)); e < minDeltaE {
					out = append(out, fmt.Sprintf("%s: %s and %s under %s: ΔE2000 %.1f", p.kind, a.name, b.name, d, e))
				}
			}
		}
	}
	return out
}

// Every pair of colours that must be told apart stays apart for people
// with protanopia, deuteranopia or tritanopia (Machado et al. 2009,
// severity 1.0), by CIEDE2000.
func TestColoursStayApart(t *testing.T) {
	for _, p := range palettes() {
		for _, bad := range tooClose(p) {
			t.Error(bad)
		}
	}
}

// The palette before this check failed it, where the issue said it would:
// leader green against down grey under deuteranopia, pale term-2 against
// term-3 cells; the check catches them. (Pre-vote yellow against vote
// orange is 11.5 apart under deuteranopia, just enough; their trouble was
// the same diamond, which TestKindsDifferWithoutColour now refuses.)
func TestTheOldPaletteFails(t *testing.T) {
	old := []color.RGBA{SkyBlue, Orange, BluishGreen, ReddishPurple, Yellow, Blue, Vermillion}
	roles := palette{"roles", []named{{"leader", BluishGreen}, {"down", Grey}}, allPairs}
	terms := palette{"uncommitted terms", []named{{"term 2", Pale(old[2], 0.7)}, {"term 3", Pale(old[3], 0.7)}}, allPairs}
	for _, p := range []palette{roles, terms} {
		if len(tooClose(p)) == 0 {
			t.Errorf("the old %s %s and %s pass the check: it is too lax", p.kind, p.cs[0].name, p.cs[1].name)
		}
	}
	// And term 3 of the old palette was the timeout status's colour.
	if old[3] != ReddishPurple || OpStatusColor(sim.OpTimeout) == old[3] {
		t.Errorf("the timeout status still has term 3's old colour")
	}
}

// The simulation and the difference are the published ones: CIEDE2000 on
// Sharma, Wu and Dalal's test pairs (2005), and Machado's matrices keep
// white white and black black.
func TestColourScience(t *testing.T) {
	for _, d := range Deficiencies {
		if w := Simulate(White, d); DeltaE2000(w, White) > 0.5 {
			t.Errorf("%s turns white into %v", d, w)
		}
		if b := Simulate(Black, d); b != Black {
			t.Errorf("%s turns black into %v", d, b)
		}
	}
	// Sharma et al., pairs 1, 7 and 17 (given in Lab; checked through
	// the Lab path only).
	for _, tt := range []struct {
		a, b Lab
		want float64
	}{
		{Lab{50, 2.6772, -79.7751}, Lab{50, 0, -82.7485}, 2.0425},
		{Lab{50, 0, 0}, Lab{50, -1, 2}, 2.3669},
		{Lab{50, 2.5, 0}, Lab{73, 25, -18}, 27.1492},
	} {
		if got := deltaE2000Lab(tt.a, tt.b); got < tt.want-0.001 || got > tt.want+0.001 {
			t.Errorf("ΔE2000(%v, %v) = %.4f, want %.4f", tt.a, tt.b, got, tt.want)
		}
	}
	// Protanopia and deuteranopia confuse red and green; tritanopia does
	// not.
	red, green := color.RGBA{0xd0, 0x30, 0x30, 0xff}, color.RGBA{0x40, 0x90, 0x30, 0xff}
	for _, d := range []Deficiency{Protanopia, Deuteranopia} {
		if e := DeltaE2000(Simulate(red, d), Simulate(green, d)); e > 25 {
			t.Errorf("%s keeps red and green %.1f apart", d, e)
		}
	}
	if e := DeltaE2000(Simulate(red, Tritanopia), Simulate(green, Tritanopia)); e < 30 {
		t.Errorf("tritanopia brings red and green to %.1f", e)
	}
}

// Each pair that must be told apart also differs without colour: roles
// by shape and marks (TestRolesAreDistinctWithoutColour), message types
// by glyph, statuses by their words in both languages, and terms by the
// number written in every cell (checked by the layout matrix test).
func TestKindsDifferWithoutColour(t *testing.T) {
	seen := map[Glyph]pb.MessageType{}
	for _, typ := range LegendMessages {
		st := StyleOfMessage(typ)
		if st.Hollow {
			continue
		}
		if o, ok := seen[st.Glyph]; ok {
			t.Errorf("%s and %s have the same glyph", typ, o)
		}
		seen[st.Glyph] = typ
	}
	for _, lang := range i18n.Langs {
		var words []string
		for _, s := range []sim.OpStatus{sim.OpPending, sim.OpOK, sim.OpError, sim.OpTimeout} {
			words = append(words, lang.T(StatusWord(s)))
		}
		words = append(words, lang.T("STALE"))
		for i, w := range words {
			if slices.Contains(words[i+1:], w) {
				t.Errorf("%s: two statuses are both written %q", lang, w)
			}
		}
	}
}
