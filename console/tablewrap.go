package console

import (
	"math"
	"strings"
	"unicode/utf8"
)

// etcdctl's tables are olekukonko/tablewriter v0.0.5's, which wraps a cell
// wider than 30 columns (MAX_ROW_WIDTH) at its spaces into lines of
// minimal raggedness (WrapString, WrapWords: MIT licence, Oleku Konko),
// a word longer than that on a line of its own; the row then takes as many
// lines as its tallest cell, the other cells blank below their first.

// maxCellWidth is tablewriter's MAX_ROW_WIDTH.
const maxCellWidth = 30

// wrapCell is a cell's lines, as tablewriter's parseDimension makes them
// with auto-wrap on: one line unless the cell is wider than maxCellWidth.
func wrapCell(s string) []string {
	var out []string
	for i, para := range strings.Split(s, "\n") {
		if i > 0 {
			out = append(out, " ")
		}
		if utf8.RuneCountInString(para) <= maxCellWidth {
			out = append(out, para)
			continue
		}
		out = append(out, wrapString(para, maxCellWidth)...)
	}
	return out
}

// wrapString is tablewriter's WrapString: s's words (split at single
// spaces, so a trailing space is an empty last word) into lines of at
// most lim, lim widened to the longest word.
func wrapString(s string, lim int) []string {
	words := strings.Split(s, " ")
	for _, w := range words {
		lim = max(lim, utf8.RuneCountInString(w))
	}
	var lines []string
	for _, l := range wrapWords(words, 1, lim, 1e5) {
		lines = append(lines, strings.Join(l, " "))
	}
	return lines
}

// wrapWords is tablewriter's WrapWords: the breaks with the least sum of
// squared shortfalls from lim, a line past lim costing pen more.
func wrapWords(words []string, spc, lim, pen int) [][]string {
	n := len(words)
	length := make([][]int, n)
	for i := range n {
		length[i] = make([]int, n)
		length[i][i] = utf8.RuneCountInString(words[i])
		for j := i + 1; j < n; j++ {
			length[i][j] = length[i][j-1] + spc + utf8.RuneCountInString(words[j])
		}
	}
	nbrk := make([]int, n)
	cost := make([]int, n)
	for i := range cost {
		cost[i] = math.MaxInt32
	}
	for i := n - 1; i >= 0; i-- {
		if length[i][n-1] <= lim {
			cost[i], nbrk[i] = 0, n
			continue
		}
		for j := i + 1; j < n; j++ {
			d := lim - length[i][j-1]
			c := d*d + cost[j]
			if length[i][j-1] > lim {
				c += pen
			}
			if c < cost[i] {
				cost[i], nbrk[i] = c, j
			}
		}
	}
	var lines [][]string
	for i := 0; i < n; i = nbrk[i] {
		lines = append(lines, words[i:nbrk[i]])
	}
	return lines
}
