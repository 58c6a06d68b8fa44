package webbuild

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuiltFilesAreIgnored checks that git keeps the page's own files and
// ignores every file `make web` writes beside them, so that a clean clone
// stays clean after it (web/raftsim.wasm.xz was once both committed and
// ignored: every make web left the clone modified).
func TestBuiltFilesAreIgnored(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := filepath.Join("..", "..", "..")
	if out, err := exec.Command("git", "-C", root, "rev-parse", "--show-toplevel").Output(); err != nil {
		t.Skipf("not in a git clone: %v", err)
	} else if strings.TrimSpace(string(out)) == "" {
		t.Skip("not in a git clone")
	}
	tracked := func(f string) bool {
		out, err := exec.Command("git", "-C", root, "ls-files", "--", "web/"+f).Output()
		if err != nil {
			t.Fatalf("git ls-files web/%s: %v", f, err)
		}
		return strings.TrimSpace(string(out)) != ""
	}
	// git check-ignore exits 0 when the path is ignored, 1 when not;
	// --no-index asks .gitignore even about a tracked file.
	ignored := func(f string) bool {
		err := exec.Command("git", "-C", root, "check-ignore", "-q", "--no-index", "web/"+f).Run()
		if err == nil {
			return true
		}
		if e, ok := err.(*exec.ExitError); ok && e.ExitCode() == 1 {
			return false
		}
		t.Fatalf("git check-ignore web/%s: %v", f, err)
		return false
	}
	for _, f := range StaticFiles {
		if !tracked(f) || ignored(f) {
			t.Errorf("web/%s is the page's own: it must be tracked (%v) and not ignored (%v)", f, tracked(f), ignored(f))
		}
	}
	for _, f := range BuiltFiles {
		if tracked(f) || !ignored(f) {
			t.Errorf("web/%s is written by make web: it must be ignored (%v) and not tracked (%v)", f, ignored(f), tracked(f))
		}
	}
}
