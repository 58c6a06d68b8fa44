package console

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raftsim/raftsim/sim"
)

// TestRestoreRefusesBadFiles: a truncated snapshot, one whose sha256 is
// wrong, one corrupt under a right sha256, a file that is not bbolt, a
// directory, and a save to /dev/full each get a clear error, and change
// nothing: no command is logged, no data directory is written, and a
// good restore works afterwards.
func TestRestoreRefusesBadFiles(t *testing.T) {
	cfg := sim.SandboxConfig()
	cfg.Members, cfg.Clients = cfg.Members[:3], nil
	w, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var out bytes.Buffer
	c := New(w, Options{Out: &out, Dir: dir})
	if err := c.Start("sandbox"); err != nil {
		t.Fatal(err)
	}
	run := func(line string) error { return c.RunScript(strings.NewReader(line + "\n")) }
	for _, l := range []string{"put a 1", "put b 2", "snapshot save good.db --endpoints=etcd-1"} {
		if err := run(l); err != nil {
			t.Fatal(err)
		}
	}
	good, err := os.ReadFile(filepath.Join(dir, "good.db"))
	if err != nil {
		t.Fatal(err)
	}
	withSum := func(body []byte) []byte {
		sum := sha256.Sum256(body)
		return append(bytes.Clone(body), sum[:]...)
	}
	body := good[:len(good)-sha256.Size]
	corrupt := bytes.Clone(body)
	for pg := 2 * 4096; pg < len(corrupt); pg += 4096 { // each page's header past the meta pages
		for i := pg; i < pg+16; i++ {
			corrupt[i] ^= 0xff
		}
	}
	wrongHash := bytes.Clone(good)
	wrongHash[len(wrongHash)-1] ^= 1
	notBolt := withSum(bytes.Repeat([]byte("not a database "), 8192/15+1)[:8192])
	for _, tc := range []struct {
		name, file string
		data       []byte
		want       string
	}{
		{"truncated", "truncated.db", good[:len(good)/2], "truncated.db"},
		{"wrong-hash", "wronghash.db", wrongHash, "its sha256 is"},
		{"corrupt", "corrupt.db", withSum(corrupt), "corrupt"},
		{"not-bbolt", "notbolt.db", notBolt, "not an etcd snapshot"},
		{"directory", "adir", nil, "is a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.file)
			if tc.data == nil {
				os.Mkdir(p, 0o700)
			} else if err := os.WriteFile(p, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			before := w.CommandCount()
			out.Reset()
			run("etcdutl snapshot restore " + tc.file + " --name etcd-1 --data-dir /restored")
			if got := out.String(); !strings.Contains(got, "Error: ") || !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want an error saying %q", got, tc.want)
			}
			if strings.Contains(out.String(), dir) {
				t.Errorf("the error names the resolved path: %q", out.String())
			}
			if w.CommandCount() != before || len(w.DataDirs("etcd-1")) != 1 {
				t.Errorf("a refused restore changed the world: %d commands (was %d), data dirs %v", w.CommandCount(), before, w.DataDirs("etcd-1"))
			}
		})
	}
	t.Run("dev-full", func(t *testing.T) {
		if _, err := os.Stat("/dev/full"); err != nil {
			t.Skip(err)
		}
		before := w.CommandCount()
		out.Reset()
		run("snapshot save /dev/full --endpoints=etcd-1")
		if !strings.Contains(out.String(), "Error: ") || w.CommandCount() != before || w.SavedSnapshot("/dev/full") {
			t.Errorf("a save to /dev/full: %q, %d commands (was %d)", out.String(), w.CommandCount(), before)
		}
	})
	out.Reset()
	if err := run("etcdutl snapshot restore good.db --name etcd-1 --data-dir /restored"); err != nil || strings.Contains(out.String(), "Error") {
		t.Fatalf("the good file: %v %q", err, out.String())
	}
	if got := w.DataDirs("etcd-1"); len(got) != 2 || got[1] != "/restored" {
		t.Fatalf("data dirs after the restore: %v", got)
	}
}
