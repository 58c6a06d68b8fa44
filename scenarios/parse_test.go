package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestParse runs the golden files in testdata/parse. Refresh them with
// go test ./scenarios/ -run TestParse -rewrite, and read the diff.
//
// Example:
//
//	parse [file=lesson.yaml]
//	name: x
//	----
//	scenario x
//	...
func TestParse(t *testing.T) {
	datadriven.Walk(t, "testdata/parse", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "parse":
				file := "test.yaml"
				if d.HasArg("file") {
					d.ScanArgs(t, "file", &file)
				}
				return parseOutput(t, file, d.Input)
			}
			d.Fatalf(t, "unknown command %q", d.Cmd)
			return ""
		})
	})
}

// parseOutput parses input and formats the scenario or its errors, checking
// the promises every result keeps.
func parseOutput(t *testing.T, file, input string) string {
	t.Helper()
	s, err := Parse(file, []byte(input))
	if err != nil {
		var list ErrorList
		if !errors.As(err, &list) || len(list) == 0 {
			t.Fatalf("Parse returned %T %v, want a non-empty ErrorList", err, err)
		}
		if s != nil {
			t.Fatalf("Parse returned a scenario and an error")
		}
		return err.Error() + "\n"
	}
	return dump(s)
}

// docBlock is one fenced yaml block of docs/scenarios.md.
type docBlock struct {
	line int    // of the opening fence
	info string // "", "steps" or "error"
	text string
	want string // for "error": the text block that follows
}

var fenceRE = regexp.MustCompile("^```(\\w*) *(\\w*)$")

func docBlocks(t *testing.T) []docBlock {
	data, err := os.ReadFile(filepath.Join("..", "docs", "scenarios.md"))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []docBlock
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		m := fenceRE.FindStringSubmatch(lines[i])
		if m == nil || m[1] == "" {
			continue
		}
		start := i
		var body []string
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			body = append(body, lines[i])
		}
		text := strings.Join(body, "\n") + "\n"
		switch {
		case m[1] == "yaml":
			blocks = append(blocks, docBlock{line: start + 1, info: m[2], text: text})
		case len(blocks) > 0 && blocks[len(blocks)-1].info == "error" && blocks[len(blocks)-1].want == "":
			blocks[len(blocks)-1].want = text
		}
	}
	return blocks
}

// TestDocExamples parses every ```yaml block of docs/scenarios.md. A block
// fenced ```yaml steps is a list of steps and is parsed inside a scenario
// with the default cluster; a block fenced ```yaml error must fail with the
// errors in the fenced block right after it (parsed as lesson.yaml).
func TestDocExamples(t *testing.T) {
	blocks := docBlocks(t)
	if len(blocks) < 10 {
		t.Fatalf("found %d yaml blocks in docs/scenarios.md, want the documentation's examples", len(blocks))
	}
	for _, b := range blocks {
		src := b.text
		if b.info == "steps" {
			src = "name: doc-example\nsteps:\n" + src
		}
		_, err := Parse("lesson.yaml", []byte(src))
		switch b.info {
		case "", "steps":
			if err != nil {
				t.Errorf("docs/scenarios.md:%d: example does not parse:\n%v", b.line, err)
			}
		case "error":
			if err == nil {
				t.Errorf("docs/scenarios.md:%d: example marked error parses", b.line)
			} else if got := err.Error() + "\n"; got != b.want {
				t.Errorf("docs/scenarios.md:%d: the errors shown are\n%s\nbut Parse says\n%s", b.line, b.want, got)
			}
		default:
			t.Errorf("docs/scenarios.md:%d: unknown fence ```yaml %s (want none, steps or error)", b.line, b.info)
		}
	}
}

// FuzzParse checks that Parse never panics, that every error it returns
// has a position, and that whatever it accepts, the runner accepts too:
// validate refuses everything run refuses (issue 13 found `tick: 1ns`
// passing validate and failing run at 1:1).
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/parse/*")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		// Each datadriven input is a seed.
		for _, chunk := range strings.Split(string(data), "\n----\n") {
			if i := strings.Index(chunk, "parse"); i >= 0 {
				if j := strings.Index(chunk[i:], "\n"); j >= 0 {
					f.Add([]byte(chunk[i+j+1:]))
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > MaxFileBytes {
			return // Load refuses it unread
		}
		s, err := Parse("fuzz.yaml", data)
		if err == nil {
			if s == nil {
				t.Fatal("nil scenario and nil error")
			}
			if _, err := NewRunner(s, RunOptions{}); err != nil {
				t.Fatalf("Parse accepted a scenario the runner refuses: %v", err)
			}
			return
		}
		var list ErrorList
		if !errors.As(err, &list) || len(list) == 0 {
			t.Fatalf("error %T %v is not a non-empty ErrorList", err, err)
		}
		for _, e := range list {
			if e.Pos.Line < 1 || e.Pos.Col < 1 || e.Pos.File != "fuzz.yaml" {
				t.Fatalf("error without a position: %q", e.Error())
			}
		}
		if _, err2 := Parse("fuzz.yaml", data); err2 == nil || err2.Error() != err.Error() {
			t.Fatalf("Parse is not deterministic:\n%v\nthen\n%v", err, err2)
		}
	})
}
