//go:build !js

package main

// The build constraint: these tests send signals to a serve process, which
// js/wasm has not.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// startServeProcess starts `raftsim serve` as a process of its own in dir,
// on a three-member cluster on free loopback ports, saving to session.yaml
// and tracing to trace.jsonl, and returns it once it serves, with the
// members' endpoints.
func startServeProcess(t *testing.T, dir string) (*started, []string) {
	t.Helper()
	_, eps := servedScenario(t, dir, "http")
	p := startRaftsim(t, dir, "", "serve", "served.yaml", "--save", "session.yaml", "--trace", "trace.jsonl")
	p.waitUntil(t, "serve serves", func() bool { return strings.Contains(p.read(t, p.stdout), "m3 serves etcd's API") })
	return p, eps
}

// putKeys writes n keys through m1, each answered before the next.
func putKeys(t *testing.T, ep string, n int) {
	t.Helper()
	c, _ := newClient(t, "http://"+ep)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := range n {
		if _, err := c.Put(ctx, fmt.Sprintf("key-%03d", i), "v"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Get(ctx, "key-", clientv3.WithPrefix()); err != nil {
		t.Fatal(err)
	}
	c.Close()
}

// TestServeKilledKeepsItsSession: a serve killed with SIGKILL leaves its
// session in session.yaml.part, every command up to the last answered,
// and raftsim run replays it. Before the session was written as it went,
// a killed serve left nothing.
func TestServeKilledKeepsItsSession(t *testing.T) {
	dir := t.TempDir()
	p, eps := startServeProcess(t, dir)
	if !strings.Contains(p.read(t, p.stdout), "written as it goes to "+filepath.Join(dir, "session.yaml.part")) &&
		!strings.Contains(p.read(t, p.stdout), "written as it goes to session.yaml.part") {
		t.Errorf("serve does not say where the session is written as it goes:\n%s", p.read(t, p.stdout))
	}
	const n = 20
	putKeys(t, eps[0], n)
	if code := p.interrupt(t, syscall.SIGKILL); code != -1 {
		t.Fatalf("exit %d after SIGKILL", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "session.yaml")); err == nil {
		t.Error("a killed serve wrote session.yaml")
	}
	part := filepath.Join(dir, "session.yaml.part")
	data, err := os.ReadFile(part)
	if err != nil {
		t.Fatalf("a killed serve left no session: %v", err)
	}
	for i := range n {
		if !bytes.Contains(data, fmt.Appendf(nil, "key: key-%03d", i)) {
			t.Errorf("the session of the killed serve has no put of key-%03d", i)
		}
	}
	if !bytes.Contains(data, []byte("get: {")) {
		t.Errorf("the session of the killed serve has not the last request, the get:\n%s", data)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"run", part}, nil, &out, &errOut); code != exitOK {
		t.Fatalf("raftsim run %s: exit %d\n%s%s", part, code, out.String(), errOut.String())
	}
	if got := strings.Count(out.String(), "put \"key-"); got < n {
		t.Errorf("the replay shows %d puts of key-..., want %d:\n%s", got, n, out.String())
	}
	// The next serve refuses to overwrite it.
	var so bytes.Buffer
	err = serveCmd([]string{"--save", filepath.Join(dir, "session.yaml"), "--port", "1"}, strings.NewReader(""), &so, &so)
	if err == nil || !strings.Contains(err.Error(), "session.yaml.part is there already") {
		t.Errorf("a second serve with the part file there: %v, want a refusal naming it", err)
	}
	if after, _ := os.ReadFile(part); !bytes.Equal(after, data) {
		t.Error("a second serve changed the part file")
	}
}

// TestServeInterruptedSavesItsSession: SIGINT and SIGTERM end serve with
// exit 130, the session in session.yaml (no part file left), and a replay
// of it gives serve's trace.
func TestServeInterruptedSavesItsSession(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		dir := t.TempDir()
		p, eps := startServeProcess(t, dir)
		putKeys(t, eps[1], 5)
		if code := p.interrupt(t, sig); code != exitInterrupted {
			t.Fatalf("%v: exit %d, want %d; stderr: %s", sig, code, exitInterrupted, p.read(t, p.stderr))
		}
		if !strings.Contains(p.read(t, p.stdout), "saved ") {
			t.Errorf("%v: serve did not say it saved the session:\n%s", sig, p.read(t, p.stdout))
		}
		if _, err := os.Stat(filepath.Join(dir, "session.yaml.part")); err == nil {
			t.Errorf("%v: the part file is left", sig)
		}
		replaysTo(t, filepath.Join(dir, "session.yaml"), filepath.Join(dir, "trace.jsonl"))
	}
}
