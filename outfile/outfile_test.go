//go:build !js

package outfile

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// nodes makes, in a temporary directory, one of each thing an output path
// may name, and returns their paths by kind.
func nodes(t *testing.T) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	p := map[string]string{}
	mk := func(name string) string { p[name] = filepath.Join(dir, name); return p[name] }
	if err := syscall.Mknod(mk("full"), syscall.S_IFCHR|0o666, int(unixMkdev(1, 7))); err != nil {
		t.Skipf("mknod (needs root): %v", err)
	}
	if err := syscall.Mkfifo(mk("fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(mk("dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(mk("regular"), []byte("old\n"), 0o640)
	os.WriteFile(mk("readonly"), []byte("old\n"), 0o444)
	os.Symlink(p["full"], mk("link-to-device"))
	os.Symlink(p["fifo"], mk("link-to-fifo"))
	os.Symlink("regular", mk("link-to-regular"))
	os.Symlink("absent", mk("dangling"))
	return dir, p
}

func unixMkdev(major, minor uint32) uint64 {
	return uint64(major)<<8 | uint64(minor)
}

func TestWriteFileRefusesWhatIsNotARegularFile(t *testing.T) {
	dir, p := nodes(t)
	for _, name := range []string{"full", "fifo", "dir", "readonly", "link-to-device", "link-to-fifo"} {
		before := snapshot(t, dir)
		err := WriteFile(p[name], []byte("new\n"))
		if err == nil || !strings.Contains(err.Error(), p[name]) {
			t.Errorf("%s: err = %v, want a refusal naming the path", name, err)
		}
		if after := snapshot(t, dir); after != before {
			t.Errorf("%s: the directory changed:\n%s\nwas\n%s", name, after, before)
		}
	}
	for _, name := range []string{"regular", "link-to-regular", "dangling", "new"} {
		path := filepath.Join(dir, name)
		if err := WriteFile(path, []byte("new\n")); err != nil {
			t.Errorf("%s: %v", name, err)
		} else if b, _ := os.ReadFile(path); string(b) != "new\n" {
			t.Errorf("%s: reads %q", name, b)
		}
	}
	if fi, err := os.Lstat(p["link-to-regular"]); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink to a regular file was replaced: %v", err)
	}
	if fi, _ := os.Stat(p["regular"]); fi.Mode().Perm() != 0o640 {
		t.Errorf("a replaced file has mode %v, want its own 0640", fi.Mode().Perm())
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*raftsim*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

func TestAbortLeavesTheDestination(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	os.WriteFile(path, []byte("old"), 0o644)
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("partial")
	f.Abort()
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("destination reads %q after Abort", b)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) > 0 {
		t.Fatalf("left %v", m)
	}
}

func TestCommitChecksAgain(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err == nil {
		t.Fatal("Commit renamed over a FIFO made during the work")
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO is gone: %v", err)
	}
}

func TestDir(t *testing.T) {
	dir, p := nodes(t)
	for _, name := range []string{"full", "fifo", "regular", "link-to-device", "dangling"} {
		if _, err := Dir(p[name]); err == nil || !strings.Contains(err.Error(), p[name]) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	made, err := Dir(filepath.Join(dir, "a"))
	if err != nil || len(made) != 1 {
		t.Fatalf("made %v, %v", made, err)
	}
	RemoveEmpty(made)
	if _, err := os.Stat(filepath.Join(dir, "a")); err == nil {
		t.Fatal("an empty directory it made stayed")
	}
	if made, err := Dir(p["dir"]); err != nil || len(made) != 0 {
		t.Fatalf("an existing directory: %v %v", made, err)
	}
}

// A directory output is made if absent, but never its missing parents:
// refused with the path and the missing parent named, nothing made (issue
// 29: the limits swarm found `experiment --out no/such/dir/out` making
// no/, no/such/ and no/such/dir/). Seen to fail while Dir made parents
// (os.MkdirAll).
func TestDirRefusesMissingParents(t *testing.T) {
	dir, p := nodes(t)
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "no", "such", "dir", "out"), filepath.Join(dir, "no", "such", "dir") + " does not exist"},
		{filepath.Join(dir, "no", "out") + "/", filepath.Join(dir, "no") + " does not exist"},
		{filepath.Join(p["regular"], "out"), "not a directory"},
		{filepath.Join(p["dangling"], "out"), p["dangling"] + " does not exist"},
	} {
		before := snapshot(t, dir)
		made, err := Dir(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Dir(%s) = %v, %v; want a refusal naming it and %q", tc.path, made, err, tc.want)
		}
		if after := snapshot(t, dir); after != before {
			t.Errorf("Dir(%s) changed the directory:\n%s\nwas\n%s", tc.path, after, before)
		}
	}
	// Its parent there (through a symlink too): made, the one directory.
	os.Symlink("dir", filepath.Join(dir, "dirlink"))
	for _, path := range []string{filepath.Join(dir, "dir", "out"), filepath.Join(dir, "dirlink", "out2"), filepath.Join(dir, "new") + "/"} {
		made, err := Dir(path)
		if err != nil || len(made) != 1 || made[0] != filepath.Clean(path) {
			t.Errorf("Dir(%s) = %v, %v; want it made", path, made, err)
		} else if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
			t.Errorf("Dir(%s): not a directory after: %v", path, err)
		}
	}
}

// snapshot describes every entry of dir: name, mode, device, time, content.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		var st syscall.Stat_t
		path := filepath.Join(dir, e.Name())
		if err := syscall.Lstat(path, &st); err != nil {
			t.Fatal(err)
		}
		content := ""
		if st.Mode&syscall.S_IFMT == syscall.S_IFREG {
			c, _ := os.ReadFile(path)
			content = string(c)
		}
		b.WriteString(e.Name() + " " + strings.Join([]string{
			itoa(uint64(st.Mode)), itoa(st.Rdev), itoa(uint64(st.Mtim.Nano())), itoa(st.Ino)}, " ") + " " + content + "\n")
	}
	return b.String()
}

func itoa(u uint64) string { return strconv.FormatUint(u, 10) }
