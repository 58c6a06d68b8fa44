package ui

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
	"github.com/raftsim/raftsim/swarm"
)

// errorText is a line of testdata/errortexts.txt: a text, and where it is
// taken from.
type errorText struct {
	text string
	re   *regexp.Regexp
	from [][2]string // file, fragment
	line int
}

func loadErrorTexts(t *testing.T) []*errorText {
	t.Helper()
	f, err := os.Open("testdata/errortexts.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []*errorText
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "text: "):
			text := strings.TrimPrefix(line, "text: ")
			parts := strings.Split(text, "*")
			for i := range parts {
				parts[i] = regexp.QuoteMeta(parts[i])
			}
			out = append(out, &errorText{text: text, re: regexp.MustCompile("^" + strings.Join(parts, `[^ ]+`) + "$"), line: n})
		case strings.HasPrefix(line, "from: "):
			if len(out) == 0 {
				t.Fatalf("testdata/errortexts.txt:%d: a from: before any text:", n)
			}
			file, frag, _ := strings.Cut(strings.TrimPrefix(line, "from: "), " | ")
			last := out[len(out)-1]
			last.from = append(last.from, [2]string{file, frag})
		}
	}
	return out
}

// sourceRoots are where the roots the list names are.
func sourceRoots(t *testing.T) map[string]string {
	env := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Skipf("go env %s: %v", name, err)
		}
		return strings.TrimSpace(string(out))
	}
	mod, root := env("GOMODCACHE"), env("GOROOT")
	return map[string]string{
		"etcd-api":    filepath.Join(mod, "go.etcd.io/etcd/api/v3@v3.6.16"),
		"etcd-server": filepath.Join(mod, "go.etcd.io/etcd/server/v3@v3.6.16"),
		"clientv3":    filepath.Join(mod, "go.etcd.io/etcd/client/v3@v3.6.16"),
		"raft":        filepath.Join(mod, "go.etcd.io/raft/v3@v3.7.0"),
		"grpc":        filepath.Join(mod, "google.golang.org/grpc@v1.83.2"),
		"go":          filepath.Join(root, "src"),
	}
}

// TestErrorTextsAreEtcds: every error text a request's row and the
// transcript show (an operation's Err, over every lesson and 200 swarm
// seeds, and the refusals of a client on a dead host and of a member that
// is down) is on the list, and every text on the list is one etcd's,
// gRPC's, clientv3's, raft's or Go's sources hold (each fragment it cites
// is in the file it names), or is marked as raftsim's own note (issue 36).
func TestErrorTextsAreEtcds(t *testing.T) {
	list := loadErrorTexts(t)
	roots := sourceRoots(t)
	for _, e := range list {
		if len(e.from) == 0 {
			t.Errorf("errortexts.txt:%d: %q has no from:", e.line, e.text)
		}
		for _, f := range e.from {
			if f[0] == "raftsim" {
				if !strings.HasSuffix(e.text, "(raftsim's note)") {
					t.Errorf("errortexts.txt:%d: %q is raftsim's own and does not say so", e.line, e.text)
				}
				continue
			}
			root, file, _ := strings.Cut(f[0], "/")
			dir, ok := roots[root]
			if !ok {
				t.Errorf("errortexts.txt:%d: no source root %q", e.line, root)
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Errorf("errortexts.txt:%d: %v", e.line, err)
				continue
			}
			if !strings.Contains(string(data), f[1]) {
				t.Errorf("errortexts.txt:%d: %s does not hold %s", e.line, f[0], f[1])
			}
		}
	}

	seen := map[string]string{} // text -> where first seen
	note := func(text, where string) {
		if _, ok := seen[text]; !ok {
			seen[text] = where
		}
	}
	collect := func(where string, w *sim.World) {
		for _, op := range w.Ops() {
			if op != nil && op.Err != "" {
				note(op.Err, where)
			}
			if op != nil {
				for _, r := range op.Retries() {
					note(r.Err, where)
				}
			}
		}
	}
	ls, err := scenarios.Lessons()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		s, err := scenarios.LoadLesson(l.Name)
		if err != nil {
			t.Fatal(err)
		}
		collect(l.Name, runScenario(t, s))
	}
	seeds := 200
	if testing.Short() {
		seeds = 20
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		s, _ := swarm.Generate(seed, swarm.DefaultOptions())
		collect(fmt.Sprintf("swarm seed %d", seed), runScenario(t, s))
	}
	// A stacked apiserver on a dead host, and the operator's etcdctl to a
	// member that is down.
	s, err := NewSession(sim.SandboxConfig())
	if err != nil {
		t.Fatal(err)
	}
	must(t, s.Seek(sec(3)))
	mustDo(t, s, sim.Command{Kind: sim.CmdCrash, Node: "etcd-1"})
	if _, err := s.Do(sim.Command{Kind: sim.CmdPut, Via: "apiserver-1", Req: server.Put("k", "v")}); err == nil {
		t.Errorf("apiserver-1 on etcd-1's dead host sent a put")
	} else {
		note(err.Error(), "sandbox: apiserver-1 on a dead host")
	}
	if _, err := s.Do(sim.Command{Kind: sim.CmdPut, Via: "etcd-1", By: "etcdctl", Req: server.Put("k", "v")}); err != nil {
		t.Fatal(err)
	}
	must(t, s.Seek(sec(4)))
	collect("sandbox: etcdctl to a member that is down", s.World())

	for text, where := range seen {
		ok := false
		for _, e := range list {
			ok = ok || e.re.MatchString(text)
		}
		if !ok {
			t.Errorf("%s: %q is on no line of testdata/errortexts.txt: is it etcd's, gRPC's or clientv3's? If not, mark it as raftsim's note", where, text)
		}
	}
	if len(seen) < 10 {
		t.Errorf("only %d texts seen: the test looks at little", len(seen))
	}
}
