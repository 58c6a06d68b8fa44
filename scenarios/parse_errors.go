package scenarios

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Error is one input error at a position.
type Error struct {
	Pos Pos
	Msg string
}

// Error formats the error as file:line:col: msg.
func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// ErrorList is every input error Parse found, sorted by position. Parse
// returns a non-empty ErrorList or nil, never an empty list.
type ErrorList []*Error

// Error formats the errors one a line.
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// sort orders the list by position, keeping the order errors were found in
// at one position, and drops exact duplicates.
func (l ErrorList) sort() ErrorList {
	slices.SortStableFunc(l, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Col, b.Pos.Col))
	})
	return slices.CompactFunc(l, func(a, b *Error) bool { return *a == *b })
}

// yamlLineRE matches the position yaml.v3 puts into its syntax errors.
var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxError turns a yaml.v3 error ("yaml: line 3: did not find expected
// key") into a positioned Error. yaml.v3 often names the line where the
// enclosing block starts rather than the line at fault, or no line at all,
// so the line is found again: it is the first line at which the file, cut
// there, fails with the same message. The column is that line's first
// non-blank character.
func syntaxError(file string, data []byte, err error) *Error {
	line, msg := splitYAMLError(err)
	if l := problemLine(data, msg); l >= 1 {
		line = l
	}
	return &Error{Pos: Pos{File: file, Line: line, Col: firstCol(data, line)}, Msg: "YAML syntax error: " + msg}
}

// splitYAMLError returns the line yaml.v3 named (1 if none) and the message.
func splitYAMLError(err error) (int, string) {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		if n, convErr := strconv.Atoi(m[1]); convErr == nil && n >= 1 {
			return n, m[2]
		}
		return 1, m[2]
	}
	return 1, strings.TrimPrefix(msg, "yaml: ")
}

// problemLine returns the smallest k such that the first k lines of data
// fail to parse with msg, or 0. It bisects, so it parses O(log lines) times.
func problemLine(data []byte, msg string) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	fails := func(k int) bool {
		err := yamlError(bytes.Join(lines[:k], nil))
		if err == nil {
			return false
		}
		_, m := splitYAMLError(err)
		return m == msg
	}
	if !fails(len(lines)) {
		return 0
	}
	lo, hi := 1, len(lines)
	for lo < hi {
		mid := lo + (hi-lo)/2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// yamlError returns the first error decoding every document of data gives.
func yamlError(data []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New("yaml: the YAML parser failed on this input")
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// firstCol returns the 1-based column of the first non-blank character of
// the 1-based line, or 1.
func firstCol(data []byte, line int) int {
	for l := 1; l < line; l++ {
		i := slices.Index(data, '\n')
		if i < 0 {
			return 1
		}
		data = data[i+1:]
	}
	for i, c := range data {
		if c != ' ' {
			if c == '\n' || c == '\r' {
				return 1
			}
			return i + 1
		}
	}
	return 1
}

func (p *parser) errorf(pos Pos, format string, args ...any) {
	if pos.Line < 1 && !pos.inFlag() {
		pos.Line, pos.Col = 1, 1
	}
	if pos.Col < 1 {
		pos.Col = 1
	}
	p.errs = append(p.errs, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}
