package etcdcompare

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmezard/go-difflib/difflib"
)

var update = flag.Bool("update", false, "TestRealEtcd: write the real etcd's transcripts to testdata/expected")

// sessions returns the session files in dirs, by name. testdata/sessions
// holds those raftsim reproduces; testdata/pending those it does not yet
// (docs/semantics.md says why), which only the real etcd runs.
func sessions(t *testing.T, dirs ...string) map[string][]Step {
	t.Helper()
	var paths []string
	for _, d := range dirs {
		p, err := filepath.Glob(filepath.Join("testdata", d, "*.txt"))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p...)
	}
	if len(paths) == 0 {
		t.Fatalf("no sessions in %v", dirs)
	}
	out := map[string][]Step{}
	for _, p := range paths {
		steps, err := ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(p), ".txt")] = steps
	}
	return out
}

type runner interface {
	Run(Step) (string, error)
}

func transcript(t *testing.T, r runner, steps []Step) string {
	t.Helper()
	n := NewNormalizer(KeptIDs()...)
	var outs []string
	for _, st := range steps {
		st.Command = n.Expand(st.Command)
		out, err := r.Run(st)
		if err != nil {
			t.Fatalf("line %d: %v", st.Line, err)
		}
		outs = append(outs, n.Normalize(st.Command, out))
	}
	return Transcript(steps, outs)
}

func expected(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/expected", name+".txt"))
	if err != nil {
		t.Fatalf("%v (make etcd-compare UPDATE=1 writes it from a real etcd)", err)
	}
	return string(b)
}

func diff(want, got, wantName, gotName string) string {
	d, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: difflib.SplitLines(want), B: difflib.SplitLines(got),
		FromFile: wantName, ToFile: gotName, Context: 2})
	return d
}

// TestSimMatchesRealEtcd runs every session in raftsim's console and
// compares its transcript with the real etcd's.
func TestSimMatchesRealEtcd(t *testing.T) {
	for name, steps := range sessions(t, "sessions") {
		t.Run(name, func(t *testing.T) {
			s, err := StartSim()
			if err != nil {
				t.Fatal(err)
			}
			got := transcript(t, s, steps)
			if want := expected(t, name); got != want {
				t.Errorf("raftsim differs from etcd v3.6.16:\n%s", diff(want, got, "etcd", "raftsim"))
			}
		})
	}
}

// TestRealEtcd runs every session against a real etcd v3.6.16 built by
// build-etcd.sh, whose directory RAFTSIM_ETCD names, and checks that it
// still prints the expected transcript (with -update: writes it).
func TestRealEtcd(t *testing.T) {
	bin := os.Getenv("RAFTSIM_ETCD")
	if bin == "" {
		t.Skip("RAFTSIM_ETCD is not set; make etcd-compare builds etcd and runs this")
	}
	bin, err := filepath.Abs(bin)
	if err != nil {
		t.Fatal(err)
	}
	for name, steps := range sessions(t, "sessions", "pending") {
		t.Run(name, func(t *testing.T) {
			c, err := StartReal(bin, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Stop()
			got := transcript(t, c, steps)
			path := filepath.Join("testdata/expected", name+".txt")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := expected(t, name); got != want {
				t.Errorf("etcd v3.6.16 no longer prints %s:\n%s", path, diff(want, got, "expected", "etcd"))
			}
		})
	}
}

// tlsSessions run with TLS on against raftsim serve: client certificates
// required, etcdctl given kubeadm's apiserver-etcd-client. (Sessions
// that print client URLs would print https:// where the plain real
// cluster prints http://, so these are ones that print none.)
var tlsSessions = map[string]bool{"kv": true, "txn": true, "lease": true}

// TestWireMatchesRealEtcd runs every session with the real etcdctl
// v3.6.16 against raftsim serve's endpoints, and checks that it prints
// what it prints against a real etcd, and what raftsim's own console
// (raftsim shell) prints for the same session. RAFTSIM_ETCD names the
// directory of build-etcd.sh's etcdctl (make etcd-compare sets it).
func TestWireMatchesRealEtcd(t *testing.T) {
	bin := os.Getenv("RAFTSIM_ETCD")
	if bin == "" {
		t.Skip("RAFTSIM_ETCD is not set; make etcd-compare builds etcdctl and runs this")
	}
	bin, err := filepath.Abs(bin)
	if err != nil {
		t.Fatal(err)
	}
	for name, steps := range sessions(t, "sessions") {
		t.Run(name, func(t *testing.T) {
			tlsDir := ""
			if tlsSessions[name] {
				tlsDir = t.TempDir()
			}
			c, err := StartWire(bin, tlsDir)
			if err != nil {
				t.Fatal(err)
			}
			got := transcript(t, c, steps)
			if err := c.Stop(); err != nil {
				t.Fatal(err)
			}
			if want := expected(t, name); got != want {
				t.Errorf("etcdctl against raftsim serve differs from etcd v3.6.16 (TLS %v):\n%s", tlsDir != "", diff(want, got, "etcd", "raftsim serve"))
			}
			s, err := StartSim()
			if err != nil {
				t.Fatal(err)
			}
			if shell := transcript(t, s, steps); shell != got {
				t.Errorf("raftsim shell and raftsim serve disagree:\n%s", diff(shell, got, "raftsim shell", "raftsim serve"))
			}
		})
	}
}
