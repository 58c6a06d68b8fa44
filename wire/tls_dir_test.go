package wire

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// serve --tls DIR follows the rule of every directory output (package
// outfile): DIR is made if absent, but not its missing parents (issue 29).
// Seen to fail while WriteCerts made them (os.MkdirAll).
func TestWriteCertsRefusesMissingParents(t *testing.T) {
	dir := t.TempDir()
	pki := filepath.Join(dir, "no", "such", "pki")
	if _, err := WriteCerts(pki, []string{"m1"}); err == nil || !strings.Contains(err.Error(), pki) || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("WriteCerts(%s) = %v, want a refusal naming it", pki, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("made %s", ents[0].Name())
	}
}
