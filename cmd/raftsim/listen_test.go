package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNothingListensBeyondLoopback: raftsim serve listens on loopback
// only (wire.listenLoopback checks it). Should another server come (a web
// page, a metrics endpoint), it must listen on loopback by default: this
// test finds every listening call in the module's code and asks for a
// loopback address beside it.
func TestNothingListensBeyondLoopback(t *testing.T) {
	listen := regexp.MustCompile(`\b(net\.Listen|net\.ListenPacket|net\.ListenTCP|net\.ListenUDP|http\.ListenAndServe|http\.ListenAndServeTLS|tls\.Listen)\(`)
	loopback := regexp.MustCompile(`127\.0\.0\.1|\[::1\]|localhost|Loopback`)
	root := filepath.Join("..", "..")
	files := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if listen.MatchString(line) && !loopback.MatchString(line) {
				t.Errorf("%s:%d listens without a loopback address: %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil || files < 50 {
		t.Fatalf("walked %d files: %v", files, err)
	}
}
