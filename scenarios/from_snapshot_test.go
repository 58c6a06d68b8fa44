//go:build !js

package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFromSnapshot: cluster: {from_snapshot: FILE} restores the cluster
// from a real etcd's snapshot found beside the scenario, and the file is
// named again when the scenario is written; a file that is not a snapshot
// is an error at the key's position.
func TestFromSnapshot(t *testing.T) {
	dir := t.TempDir()
	real, err := os.ReadFile("../snapshot/testdata/real-3keys.db")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "backup.db"), real, 0o600)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a snapshot"), 0o600)
	src := "name: restored\ncluster:\n  members: 3\n  from_snapshot: %s\nsteps:\n  - at: 1s\n    get: {via: n1, key: foo}\n"
	s, err := Parse(filepath.Join(dir, "s.yaml"), []byte(strings.Replace(src, "%s", "backup.db", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if s.Config.InitialStore == nil || s.Config.InitialClusterVersion != "3.6.0" || s.Config.FromSnapshot != "backup.db" {
		t.Errorf("config: store %v, version %q, file %q", s.Config.InitialStore != nil, s.Config.InitialClusterVersion, s.Config.FromSnapshot)
	}
	out, err := MarshalScenario(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "from_snapshot: backup.db") {
		t.Errorf("written without its snapshot:\n%s", out)
	}
	_, err = Parse(filepath.Join(dir, "s.yaml"), []byte(strings.Replace(src, "%s", "notes.txt", 1)))
	if err == nil || !strings.Contains(err.Error(), "s.yaml:4:18: from_snapshot:") || !strings.Contains(err.Error(), "too short for a bbolt database") {
		t.Errorf("got %v", err)
	}
}
