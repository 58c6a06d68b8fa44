//go:build !js

package archdoc

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "write the graph into docs/architecture.md")

const (
	module = "github.com/raftsim/raftsim/"
	begin  = "<!-- import graph: begin (make architecture writes it; TestArchitectureGraph checks it) -->\n"
	end    = "<!-- import graph: end -->\n"
)

// graph lists each package of the module with the module's packages it
// imports (test files left out), one package a line.
func graph(t *testing.T, root string) string {
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var lines []string
	width := 0
	type row struct{ pkg, deps string }
	var rows []row
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		pkg := strings.TrimPrefix(f[0], module)
		if pkg == "cmd/internal/archdoc" {
			continue
		}
		var deps []string
		for _, imp := range f[1:] {
			if d, ok := strings.CutPrefix(imp, module); ok {
				deps = append(deps, d)
			}
		}
		sort.Strings(deps)
		rows = append(rows, row{pkg, strings.Join(deps, ", ")})
		width = max(width, len(pkg))
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].pkg < rows[j].pkg })
	for _, r := range rows {
		deps := r.deps
		if deps == "" {
			deps = "(none of the module's)"
		}
		lines = append(lines, r.pkg+strings.Repeat(" ", width-len(r.pkg))+"  → "+deps)
	}
	return "```text\n" + strings.Join(lines, "\n") + "\n```\n"
}

// TestArchitectureGraph checks the import graph in docs/architecture.md
// against the packages as they are.
func TestArchitectureGraph(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "docs", "architecture.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i, j := bytes.Index(doc, []byte(begin)), bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("%s: no import graph between %q and %q", path, strings.TrimSpace(begin), strings.TrimSpace(end))
	}
	want := graph(t, root)
	got := string(doc[i+len(begin) : j])
	if got == want {
		return
	}
	if *update {
		out := append(append(append([]byte{}, doc[:i+len(begin)]...), want...), doc[j:]...)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/architecture.md's import graph is not the packages' (make architecture writes it):\n got:\n%s\nwant:\n%s", got, want)
}
