//go:build !js

package webserve

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// serve-web serves regular files inside its folder only (issue 29: a
// symlink in the folder served /etc/passwd), and a FIFO in the folder
// neither blocks its own request nor the others (the gzip cache's lock
// was held while a file was read).
func TestServesRegularFilesInsideOnly(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("secret"), 0o644)
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("<p>page</p>"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.js"), []byte("var a"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "out.txt"))
	os.Symlink("a.js", filepath.Join(dir, "in.js"))
	if err := syscall.Mkfifo(filepath.Join(dir, "slow.js"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(Handler(dir))
	defer srv.Close()
	client := &http.Client{Timeout: 10 * time.Second}
	get := func(path string, gzip bool) int {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		if gzip {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Errorf("GET %s: %v", path, err)
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, gz := range []bool{false, true} {
		for path, want := range map[string]int{"/out.txt": 404, "/slow.js": 404, "/a.js": 200, "/in.js": 200, "/": 200} {
			if got := get(path, gz); got != want {
				t.Errorf("GET %s (gzip %v): %d, want %d", path, gz, got, want)
			}
		}
	}
}
