package webbuild

import (
	"encoding/json"
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/raftsim/raftsim/raftsrc"
)

// modulePath is raftsim's module: the packages whose text the window draws.
const modulePath = "github.com/raftsim/raftsim"

// Glyphs returns every rune the page draws without the whole font,
// sorted: printable ASCII and Latin-1, every rune of the string and rune
// literals in the Go files of raftsim's packages that the page is built
// from (the catalog of translations, the window's own symbols, etcd's and
// raft's messages as raftsim writes them), every rune of the built-in
// lessons, and every rune of raft's embedded source (the why card). It is computed from the sources at each build, so that a new
// caption or translation cannot go without its glyphs. root is the
// module's root.
func Glyphs(root string) ([]rune, error) {
	set := map[rune]bool{}
	for r := rune(0x20); r < 0x7f; r++ {
		set[r] = true
	}
	for r := rune(0xa0); r <= 0xff; r++ {
		set[r] = true
	}
	files, err := goFiles(root)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if err := literalRunes(f, set); err != nil {
			return nil, err
		}
	}
	lessons, err := filepath.Glob(filepath.Join(root, "scenarios", "library", "*.yaml"))
	if err != nil || len(lessons) == 0 {
		return nil, fmt.Errorf("no lessons in %s/scenarios/library", root)
	}
	// raft's source, which the why card shows (package raftsrc).
	src, err := raftsrc.Embedded()
	if err != nil {
		return nil, err
	}
	for _, f := range src.Files() {
		lines, _ := src.Lines(f)
		for _, l := range lines {
			for _, r := range l {
				set[r] = true
			}
		}
	}
	for _, l := range lessons {
		data, err := os.ReadFile(l)
		if err != nil {
			return nil, err
		}
		for _, r := range string(data) {
			set[r] = true
		}
	}
	var out []rune
	for r := range set {
		if r >= 0x20 && r != 0x7f && !(r >= 0x80 && r < 0xa0) {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out, nil
}

// goFiles lists the Go files of raftsim's packages in the web build.
func goFiles(root string) ([]string, error) {
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Dir,GoFiles,EmbedFiles", "./cmd/raftsim-gui")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v%s", err, stderrOf(err))
	}
	var files []string
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath, Dir     string
			GoFiles, EmbedFiles []string
		}
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		if p.ImportPath != modulePath && !strings.HasPrefix(p.ImportPath, modulePath+"/") {
			continue
		}
		for _, f := range p.GoFiles {
			files = append(files, filepath.Join(p.Dir, f))
		}
		for _, f := range p.EmbedFiles {
			if p.ImportPath == modulePath+"/raftsrc" && f == "raft.tar.gz" {
				continue // raft's source: Glyphs reads it through raftsrc
			}
			if !strings.HasSuffix(f, ".yaml") {
				return nil, fmt.Errorf("%s embeds %s: Glyphs reads only the lessons' YAML; teach it this kind of file", p.ImportPath, f)
			}
		}
	}
	return files, nil
}

// literalRunes adds the runes of every string and rune literal in a Go
// file to set.
func literalRunes(path string, set map[rune]bool) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	var s scanner.Scanner
	var bad error
	s.Init(fset.AddFile(path, -1, len(src)), src, func(pos token.Position, msg string) {
		bad = fmt.Errorf("%s: %s", pos, msg)
	}, 0)
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok != token.STRING && tok != token.CHAR {
			continue
		}
		text := lit
		if tok == token.STRING {
			text, err = strconv.Unquote(lit)
		} else {
			var r rune
			r, _, _, err = strconv.UnquoteChar(lit[1:len(lit)-1], '\'')
			text = string(r)
		}
		if err != nil {
			return fmt.Errorf("%s: %s: %v", path, lit, err)
		}
		for _, r := range text {
			set[r] = true
		}
	}
	return bad
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
		return "\n" + string(ee.Stderr)
	}
	return ""
}
