package sim

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestLayout keeps issue 35's bounds on sim's shape: member's own method
// set stays small (what else a member does is a role, a type in the file
// of its name: doc.go), and World's methods live in a few files, each of
// one role.
func TestLayout(t *testing.T) {
	const maxMemberMethods, maxWorldFiles = 60, 20
	ents, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	memberMethods := 0
	var worldFiles []string
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil {
				continue
			}
			switch receiverType(fd.Recv.List[0].Type) {
			case "member":
				memberMethods++
			case "World":
				if !slices.Contains(worldFiles, name) {
					worldFiles = append(worldFiles, name)
				}
			}
		}
	}
	if memberMethods > maxMemberMethods {
		t.Errorf("member has %d methods of its own, more than %d: give a role its type (doc.go)", memberMethods, maxMemberMethods)
	}
	if len(worldFiles) > maxWorldFiles {
		t.Errorf("World's methods are in %d files, more than %d: %s", len(worldFiles), maxWorldFiles, strings.Join(worldFiles, " "))
	}
	t.Logf("member: %d methods; World: methods in %d files", memberMethods, len(worldFiles))
}

// receiverType is the name of a method's receiver type, pointer or not.
func receiverType(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
