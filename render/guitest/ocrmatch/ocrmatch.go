// Package ocrmatch judges whether text read back from a screenshot by OCR
// (tesseract) holds a caption: the lesson walk (render/guitest) and the
// web page's test (cmd/raftsim) hold captions to it.
package ocrmatch

import (
	"strings"
	"unicode"
)

// Letters keeps what OCR can be held to: letters and digits, lower case.
// Spaces and punctuation are left out, since OCR merges words ("aleader")
// and reads "·" and ":" as it likes.
func Letters(s string) []rune {
	var out []rune
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			out = append(out, r)
		}
	}
	return out
}

// Found returns how much of want the text read has: 1 less the edit
// distance from want to the closest stretch of the text read (matched
// anywhere in it), over want's length. A caption on screen with a few
// misread letters scores a little under 1; a caption that is not there
// scores low even when the text read is long, since its letters must come
// close together and in order.
func Found(want, read string) float64 {
	a, b := Letters(want), Letters(read)
	if len(a) == 0 {
		return 1
	}
	// prev[j]: the distance from a[:i] to the best stretch of b ending at j.
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		cur[0] = i + 1
		for j := range b {
			d := prev[j]
			if a[i] != b[j] {
				d++
			}
			cur[j+1] = min(d, prev[j+1]+1, cur[j]+1)
		}
		prev, cur = cur, prev
	}
	best := len(a)
	for _, d := range prev {
		best = min(best, d)
	}
	return 1 - float64(best)/float64(len(a))
}

// Enough is how well a caption must be found for it to count as on
// screen: a misread letter or two per line costs a few percent; a caption
// that is not there, or cut short, costs far more. (Measured here, with
// every caption on screen: at worst 95% in English and 83% in Chinese,
// where tesseract misreads a character in a short title now and then; a
// neighbouring caption that is not on screen: at most 64% in English and
// 60% in Chinese, since a short one finds some of its letters in order in
// any long text. The test logs both figures.)
func Enough(lang string) float64 {
	if lang == "zh" {
		return 0.75
	}
	return 0.85
}
