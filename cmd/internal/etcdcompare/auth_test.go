package etcdcompare

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWireAuthMatchesRealEtcd runs the auth session (testdata/auth:
// users, roles, key-range permissions, auth enable and disable, --user,
// the permission-denied errors) with the real etcdctl v3.6.16 against
// raftsim serve, and checks that it prints what it prints against a real
// etcd (testdata/expected/auth.txt; with RAFTSIM_ETCD, the real etcd is
// run too, and with -update writes it).
func TestWireAuthMatchesRealEtcd(t *testing.T) {
	bin := os.Getenv("RAFTSIM_ETCD")
	if bin == "" {
		t.Skip("RAFTSIM_ETCD is not set; make etcd-compare builds etcdctl and runs this")
	}
	bin, err := filepath.Abs(bin)
	if err != nil {
		t.Fatal(err)
	}
	steps := sessions(t, "auth")["auth"]
	path := filepath.Join("testdata/expected", "auth.txt")
	if *update || os.Getenv("RAFTSIM_AUTH_REAL") != "" {
		c, err := StartReal(bin, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		got := transcript(t, c, steps)
		c.Stop()
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		} else if want := expected(t, "auth"); got != want {
			t.Errorf("etcd v3.6.16 no longer prints %s:\n%s", path, diff(want, got, "expected", "etcd"))
		}
	}
	c, err := StartWire(bin, "")
	if err != nil {
		t.Fatal(err)
	}
	got := transcript(t, c, steps)
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if want := expected(t, "auth"); got != want {
		t.Errorf("etcdctl against raftsim serve differs from etcd v3.6.16:\n%s", diff(want, got, "etcd", "raftsim serve"))
	}
}
