package raftsrc

import (
	"strconv"
	"strings"
)

// Locate is the line of file, inside function fn, whose text, trimmed, is
// code: from the source when the build holds it, else from the index of
// the lines raftsim cites (decisions.go). It never fetches the source.
func Locate(file, fn, code string) (int, bool) {
	if archive != nil {
		if src, err := Embedded(); err == nil {
			return src.Find(file, fn, code)
		}
	}
	return Indexed(file, fn, code)
}

// Indexed is Locate from the index alone.
func Indexed(file, fn, code string) (int, bool) {
	for _, l := range strings.Split(decisions, "\n") {
		f := strings.Split(l, "\t")
		if len(f) != 4 || f[0] != file || f[1] != fn || f[2] != code {
			continue
		}
		n, err := strconv.Atoi(f[3])
		return n, err == nil
	}
	return 0, false
}
