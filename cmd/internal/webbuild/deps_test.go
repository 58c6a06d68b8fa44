package webbuild

import (
	"os"
	"os/exec"
	"testing"
)

// needFonttools skips a test without pyftsubset, or fails it where CI
// must have it (RAFTSIM_REQUIRE_GUI=1: .ci/deps.sh installs fonttools).
func needFonttools(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("pyftsubset"); err != nil {
		if os.Getenv("RAFTSIM_REQUIRE_GUI") == "1" {
			t.Fatal("pyftsubset is not installed (make deps installs fonttools)")
		}
		t.Skip("pyftsubset is not installed")
	}
}
