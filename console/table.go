package console

import (
	"strings"
	"unicode/utf8"
)

// table draws a bordered table the way etcdctl's -w table does: headers
// centred, cells right-aligned.
type table struct {
	header []string
	rows   [][]string
	left   bool // align cells left instead
}

func (t table) String() string {
	widths := make([]int, len(t.header))
	for i, h := range t.header {
		widths[i] = utf8.RuneCountInString(h)
	}
	// Each row's cells, wrapped as etcdctl wraps them (tablewrap.go).
	rows := make([][][]string, len(t.rows))
	for k, r := range t.rows {
		rows[k] = make([][]string, len(r))
		for i, cell := range r {
			rows[k][i] = wrapCell(cell)
			for _, l := range rows[k][i] {
				widths[i] = max(widths[i], utf8.RuneCountInString(l))
			}
		}
	}
	var b strings.Builder
	rule := func() {
		b.WriteString("+")
		for _, w := range widths {
			b.WriteString(strings.Repeat("-", w+2) + "+")
		}
		b.WriteString("\n")
	}
	line := func(cells []string, align func(s string, w int) string) {
		b.WriteString("|")
		for i, w := range widths {
			cell := ""
			if i < len(cells) {
				cell = cells[i]
			}
			b.WriteString(" " + align(cell, w) + " |")
		}
		b.WriteString("\n")
	}
	rule()
	line(t.header, center)
	rule()
	align := right
	if t.left {
		align = leftAlign
	}
	for _, r := range rows {
		height := 1
		for _, c := range r {
			height = max(height, len(c))
		}
		for h := range height {
			cells := make([]string, len(r))
			for i, c := range r {
				if h < len(c) {
					cells[i] = c[h]
				}
			}
			line(cells, align)
		}
	}
	rule()
	return b.String()
}

func center(s string, w int) string {
	gap := w - utf8.RuneCountInString(s)
	l := gap / 2
	return strings.Repeat(" ", l) + s + strings.Repeat(" ", gap-l)
}

func right(s string, w int) string {
	return strings.Repeat(" ", w-utf8.RuneCountInString(s)) + s
}

func leftAlign(s string, w int) string {
	return s + strings.Repeat(" ", w-utf8.RuneCountInString(s))
}
