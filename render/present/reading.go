package present

import (
	"time"
	"unicode"
)

// Reading speeds, for a class reading a projected caption while the
// teacher talks: about 200 English words or 350 Chinese characters a
// minute, after a second to notice that the caption changed.
const (
	readingStart   = 1000 * time.Millisecond
	readingPerWord = 300 * time.Millisecond
	readingPerHan  = 170 * time.Millisecond
	chapterMinimum = 2000 * time.Millisecond
)

// ReadingTime is how long a narrative step must stay on screen, at the
// least, before the next one may replace it: a function of its length.
// A pause has none: it stays until the presenter moves on.
func ReadingTime(s Step) time.Duration {
	if s.IsPause() {
		return 0
	}
	d := readingStart
	inWord := false
	for _, r := range s.Text {
		switch {
		case unicode.Is(unicode.Han, r):
			d += readingPerHan
			inWord = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !inWord {
				d += readingPerWord
			}
			inWord = true
		default:
			inWord = false
		}
	}
	if s.IsChapter() {
		d = max(d, chapterMinimum)
	}
	return d
}
