//go:build !js

package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeRefusesClientURLsItCannotListenOn: a scenario's client_urls
// on 0.0.0.0 or on another host is refused (one without a port the
// scenario parser refuses) with its
// position, before anything listens. (Seen to fail before: serve ignored
// such a URL without a word and listened on 127.0.0.1:2379+i.)
func TestServeRefusesClientURLsItCannotListenOn(t *testing.T) {
	for _, tc := range []struct{ url, pos string }{
		{"http://0.0.0.0:23791", "c.yaml:4:21"},
		{"http://10.1.2.3:2379", "c.yaml:4:21"},
		{"http://etcd-1.example:2379", "c.yaml:4:21"},
	} {
		file := filepath.Join(t.TempDir(), "c.yaml")
		src := "name: c\ncluster:\n  members: [m1, m2, m3]\n  client_urls: {m2: '" + tc.url + "'}\nsteps: []\n"
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		err := serveCmd([]string{"--port", "1", file}, strings.NewReader(""), io.Discard, io.Discard)
		var ee *exitError
		want := file[:len(file)-len("c.yaml")] + tc.pos + ": client_urls: m2's " + tc.url + " is not a loopback address with a port"
		if !errors.As(err, &ee) || ee.code != exitBadInput || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want bad input: %s", tc.url, err, want)
		}
	}
}
