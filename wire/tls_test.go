package wire

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteCertsReusesRefusesNeverOverwrites: --tls DIR writes a PKI into
// an empty directory and reuses a complete one as it is; half a pair
// (ca.crt without ca.key, a key without its certificate), certificates
// without their CA, a key that is not the certificate's and a certificate
// another CA signed are refused, and no file is ever overwritten. (Seen to
// fail before: a ca.crt without its key was replaced by a new CA.)
func TestWriteCertsReusesRefusesNeverOverwrites(t *testing.T) {
	members := []string{"m1", "m2"}
	full := t.TempDir()
	if _, err := WriteCerts(full, members); err != nil {
		t.Fatal(err)
	}
	snapshot := func(dir string) map[string][]byte {
		out := map[string][]byte{}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			out[e.Name()] = b
		}
		return out
	}
	before := snapshot(full)
	if len(before) != 8 {
		t.Fatalf("wrote %d files, want 8 (a CA, a client and two members, each .crt and .key)", len(before))
	}
	if _, err := WriteCerts(full, members); err != nil {
		t.Fatalf("a complete PKI is not reused: %v", err)
	}
	// A member more is signed by the CA there.
	if _, err := WriteCerts(full, append(members, "m3")); err != nil {
		t.Fatal(err)
	}
	after := snapshot(full)
	for name, b := range before {
		if !bytes.Equal(after[name], b) {
			t.Errorf("%s was rewritten", name)
		}
	}
	if _, ok := after["m3.crt"]; !ok {
		t.Error("m3.crt was not written")
	}

	other := t.TempDir()
	if _, err := WriteCerts(other, members); err != nil {
		t.Fatal(err)
	}
	copyFile := func(from, to string) {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		files map[string]string // name in the directory: the file copied there
		want  string
	}{
		{"a CA without its key", map[string]string{"ca.crt": filepath.Join(full, "ca.crt")}, "ca.crt is there without "},
		{"a key without its certificate", map[string]string{"ca.crt": filepath.Join(full, "ca.crt"), "ca.key": filepath.Join(full, "ca.key"),
			"m1.key": filepath.Join(full, "m1.key")}, "m1.key is there without "},
		{"certificates without their CA", map[string]string{"m1.crt": filepath.Join(full, "m1.crt"), "m1.key": filepath.Join(full, "m1.key")},
			"without the CA that signed it"},
		{"a key that is not the certificate's", map[string]string{"ca.crt": filepath.Join(full, "ca.crt"), "ca.key": filepath.Join(other, "ca.key")},
			"ca.key is not the key of "},
		{"a certificate another CA signed", map[string]string{"ca.crt": filepath.Join(full, "ca.crt"), "ca.key": filepath.Join(full, "ca.key"),
			"m1.crt": filepath.Join(other, "m1.crt"), "m1.key": filepath.Join(other, "m1.key")}, "m1.crt is not signed by "},
	} {
		dir := t.TempDir()
		for name, from := range tc.files {
			copyFile(from, filepath.Join(dir, name))
		}
		was := snapshot(dir)
		_, err := WriteCerts(dir, members)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
		if got := snapshot(dir); len(got) != len(was) {
			t.Errorf("%s: the directory went from %d files to %d", tc.name, len(was), len(got))
		} else {
			for name, b := range was {
				if !bytes.Equal(got[name], b) {
					t.Errorf("%s: %s was overwritten", tc.name, name)
				}
			}
		}
	}
}
