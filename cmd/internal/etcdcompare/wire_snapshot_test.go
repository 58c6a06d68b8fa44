package etcdcompare

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWireSnapshotSave: etcdctl snapshot save against raftsim serve
// streams the member's backend (Maintenance.Snapshot); the file is, byte
// for byte, what raftsim's console saves after the same session, and the
// real etcdctl prints what it prints of the console's.
func TestWireSnapshotSave(t *testing.T) {
	bin := etcdBin(t)
	dir := t.TempDir()
	m1 := " --endpoints=" + strings.TrimPrefix(ClientURL("m1"), "http://")
	wired, shell := filepath.Join(dir, "wire.db"), filepath.Join(dir, "shell.db")

	c, err := StartWire(bin, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range snapshotSession {
		run(t, c, line)
	}
	saved := run(t, c, "snapshot save "+wired+m1)
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	s, err := StartSim()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range snapshotSession {
		run(t, s, line)
	}
	want := strings.ReplaceAll(run(t, s, "snapshot save "+shell+m1), shell, wired)
	if !strings.HasSuffix(saved, want) {
		t.Errorf("etcdctl snapshot save against raftsim serve printed %q; the console prints %q", saved, want)
	}
	a, err := os.ReadFile(wired)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(shell)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("the snapshot streamed over the wire (%d bytes) differs from the console's (%d bytes)", len(a), len(b))
	}
	if got, want := etcdutl(t, bin, "snapshot", "status", wired, "-w", "json"), etcdutl(t, bin, "snapshot", "status", shell, "-w", "json"); got != want {
		t.Errorf("etcdutl snapshot status: over the wire %s, the console's %s", got, want)
	}
}
