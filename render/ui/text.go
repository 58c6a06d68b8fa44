package ui

import (
	"image/color"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Measurer measures text as the window draws it: how wide s is at a font
// size in pixels. The window and the layout tests both measure with
// package typeface, over the font the window draws with.
type Measurer interface {
	Advance(s string, size float64) float64
}

// TextItem is one piece of text, placed: the layout and the frame decide
// every word's size and box, and the renderer only paints them, so a test
// can check that no text is cut or overlaps without a display.
type TextItem struct {
	S     string
	Size  float64 // font size in pixels
	R     Rect    // the box it is drawn in; S fits its width
	Align Align
	Color color.RGBA
	// Essential text is never shortened (a role, a term, the time): the
	// layout makes room for it or makes everything smaller.
	Essential bool
	// Cut says the text was shortened with an ellipsis to fit (only text
	// that is not essential may be).
	Cut bool
	// Plate, if not zero, is drawn behind the text (to keep it readable over
	// messages and links).
	Plate color.RGBA
}

// Align is where a text sits in its box.
type Align uint8

// The alignments.
const (
	AlignStart Align = iota
	AlignCenter
	AlignEnd
)

// LineH is the height of a line of text at a font size.
func LineH(size float64) float64 { return math.Round(size * 1.3) }

// PrefixMeasurer is a Measurer that can measure every prefix of a text
// at once (package typeface's Font): fitting and wrapping use it to shape
// a text once rather than once per prefix tried.
type PrefixMeasurer interface {
	Measurer
	PrefixWidths(s string, size float64) []float64
}

// prefixWidths returns the widths of every prefix of r: at once if m can,
// else one at a time.
func prefixWidths(m Measurer, r []rune, size float64) func(n int) float64 {
	if pm, ok := m.(PrefixMeasurer); ok {
		ws := pm.PrefixWidths(string(r), size)
		return func(n int) float64 { return ws[n] }
	}
	return func(n int) float64 { return m.Advance(string(r[:n]), size) }
}

// Fit shortens s with an ellipsis until it is at most w wide, and says
// whether it had to.
func Fit(m Measurer, s string, size, w float64) (string, bool) {
	if m.Advance(s, size) <= w {
		return s, false
	}
	if w <= 0 {
		return "", true
	}
	r := []rune(s)
	prefix := prefixWidths(m, r, size)
	ell := m.Advance("…", size)
	lo, hi := 0, len(r)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if prefix(mid)+ell <= w {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	// The prefix was measured inside the whole text; measure the result as
	// it is drawn, and give back a rune if it is wider.
	for lo > 0 && m.Advance(strings.TrimRightFunc(string(r[:lo]), unicode.IsSpace)+"…", size) > w {
		lo--
	}
	if lo == 0 {
		return "", true
	}
	return strings.TrimRightFunc(string(r[:lo]), unicode.IsSpace) + "…", true
}

// wrapKey is a wrapped text in the memo of Wrap.
type wrapKey struct {
	m       Measurer
	s       string
	size, w float64
}

var (
	wrapMu   sync.Mutex
	wrapMemo = map[wrapKey][]string{}
)

// Wrap breaks s into lines at most w wide: at spaces where it can, and
// between any two characters in text without spaces (Chinese). It never
// drops a word; a single word wider than w is broken. (The layout wraps
// the same captions often, so the lines are remembered.)
func Wrap(m Measurer, s string, size, w float64) []string {
	k := wrapKey{m, s, size, w}
	wrapMu.Lock()
	lines, ok := wrapMemo[k]
	wrapMu.Unlock()
	if ok {
		return slices.Clone(lines)
	}
	lines = wrap(m, s, size, w)
	wrapMu.Lock()
	if len(wrapMemo) > 1<<14 {
		clear(wrapMemo)
	}
	wrapMemo[k] = lines
	wrapMu.Unlock()
	return slices.Clone(lines)
}

func wrap(m Measurer, s string, size, w float64) []string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		rest := []rune(strings.TrimSpace(para))
		for len(rest) > 0 {
			if m.Advance(string(rest), size) <= w {
				lines = append(lines, string(rest))
				break
			}
			// The longest prefix that fits (at least one character).
			prefix := prefixWidths(m, rest, size)
			lo, hi := 1, len(rest)
			for lo < hi {
				mid := (lo + hi + 1) / 2
				if prefix(mid) <= w {
					lo = mid
				} else {
					hi = mid - 1
				}
			}
			// Measured inside the whole text; as drawn alone it may be a
			// little wider.
			for lo > 1 && m.Advance(strings.TrimSpace(string(rest[:lo])), size) > w {
				lo--
			}
			cut := lo
			// Back up to a space, or to a break Chinese allows, or after a
			// slash or a dot in a path, if one is near.
			for i := lo; i > lo/3; i-- {
				if rest[i] == ' ' || rest[i-1] == ' ' || isWide(rest[i-1]) && !isClosing(rest[i]) ||
					strings.ContainsRune("/·=,", rest[i-1]) && !isClosing(rest[i]) {
					cut = i
					break
				}
			}
			lines = append(lines, strings.TrimSpace(string(rest[:cut])))
			rest = []rune(strings.TrimLeft(string(rest[cut:]), " "))
		}
	}
	return lines
}

// isWide reports whether r is a CJK character, after which a line may
// break.
func isWide(r rune) bool { return r >= 0x2e80 }

// isClosing reports whether r is punctuation that may not start a line.
func isClosing(r rune) bool {
	return strings.ContainsRune("，。、；：？！）》」』】,.;:?!)", r)
}
