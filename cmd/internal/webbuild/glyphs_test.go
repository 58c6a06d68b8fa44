package webbuild

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/render/present"
	"github.com/raftsim/raftsim/render/typeface"
	"github.com/raftsim/raftsim/render/ui"
	"github.com/raftsim/raftsim/scenarios"
)

// windowTexts gathers, through the packages' own APIs, text the window
// draws: every text of the catalog in both languages, every lesson's
// title, summary and narrative steps in both languages, and the keys of
// the help overlay. Glyphs computes its set from the sources instead; the
// two must agree.
func windowTexts(t *testing.T) map[string]string {
	t.Helper()
	texts := map[string]string{}
	for _, l := range i18n.Langs {
		for _, s := range i18n.Texts(l) {
			texts[s] = "the catalog (" + l.String() + ")"
		}
	}
	lessons, err := scenarios.Lessons()
	if err != nil {
		t.Fatal(err)
	}
	for _, ls := range lessons {
		s, err := scenarios.LoadLesson(ls.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, lang := range []string{"en", "zh"} {
			l, err := present.New(s, lang, 0)
			if err != nil {
				t.Fatal(err)
			}
			where := ls.Name + " (" + lang + ")"
			texts[l.Title] = where
			texts[ls.Summary.In(lang)] = where
			for _, st := range l.Steps {
				texts[st.Text] = where
			}
		}
	}
	for _, k := range ui.GlobalKeys {
		texts[k.Key] = "the help's keys"
	}
	for _, k := range ui.PresenterKeys {
		texts[k.Key] = "the help's keys"
	}
	for _, k := range ui.BoxKeys {
		texts[k.Key] = "the help's keys"
	}
	return texts
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// Every rune the window draws from the catalog, the lessons and the help
// is in the set the page's font is cut to.
func TestGlyphsHoldTheWindowsText(t *testing.T) {
	glyphs, err := Glyphs(moduleRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(glyphs, '领') || !slices.Contains(glyphs, '→') {
		t.Errorf("the set lacks 领 or →: %d runes", len(glyphs))
	}
	missing := map[rune]string{}
	for text, where := range windowTexts(t) {
		for _, r := range text {
			if r >= ' ' {
				if _, ok := slices.BinarySearch(glyphs, r); !ok {
					missing[r] = where + ": " + text
				}
			}
		}
	}
	for r, where := range missing {
		t.Errorf("%q (U+%04X) is not in the page's glyphs; it is in %s", r, r, where)
	}
}

// The subset font has a glyph for every rune of the set, so that nothing
// the window draws becomes a box on the page; and it is far smaller than
// the whole font.
func TestSubsetFontHasEveryGlyph(t *testing.T) {
	if testing.Short() {
		t.Skip("subsets a font")
	}
	if _, err := typeface.Find(false); err != nil {
		t.Skip(err)
	}
	needFonttools(t)
	root := moduleRoot(t)
	out := t.TempDir()
	// The whole font is cached (or built once) by BuildFonts; this test
	// looks at the subset only.
	if err := BuildFonts(Options{Root: root, Out: out}, t.Logf); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(out, "fonts", "ui.otf"))
	if err != nil {
		t.Fatal(err)
	}
	sub, err := typeface.Parse("ui.otf", data)
	if err != nil {
		t.Fatal(err)
	}
	glyphs, err := Glyphs(root)
	if err != nil {
		t.Fatal(err)
	}
	var lacking []rune
	for _, r := range glyphs {
		if !sub.Has(r) {
			lacking = append(lacking, r)
		}
	}
	full, err := typeface.Find(false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range lacking {
		if full.Has(r) {
			t.Errorf("the subset lacks %q (U+%04X), which the font has", r, r)
		} else {
			t.Logf("the font itself lacks %q (U+%04X): the desktop window draws it as a box too", r, r)
		}
	}
	if sub.Has('鑫') {
		t.Errorf("the subset has 鑫, which no text uses: it is not a subset")
	}
	t.Logf("fonts/ui.otf: %d bytes for %d runes", len(data), len(glyphs))
	if len(data) > 1_500_000 {
		t.Errorf("fonts/ui.otf is %d bytes: the page's start-up budget has 1.5 MB for it", len(data))
	}
}
