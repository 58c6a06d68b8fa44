//go:build !js

package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

// realSnapshot is `etcdctl snapshot save` from a real three-member etcd
// v3.6.16 after `put foo bar` and `put k2 v2`; realStatus is what the real
// `etcdutl snapshot status -w json` printed for it.
const (
	realSnapshot = "testdata/real-3keys.db"
	realStatus   = "testdata/real-3keys.status.json"
)

func readAll(t *testing.T, path string, opt Options) (*Snapshot, []Record) {
	t.Helper()
	s, err := Open(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	var recs []Record
	if err := s.Records(func(r *Record) error { recs = append(recs, *r); return nil }); err != nil {
		t.Fatal(err)
	}
	return s, recs
}

func wantStatus(t *testing.T) Status {
	t.Helper()
	b, err := os.ReadFile(realStatus)
	if err != nil {
		t.Fatal(err)
	}
	var st Status
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

func yieldAll(recs []Record) func(func(*Record) error) error {
	return func(yield func(*Record) error) error {
		for i := range recs {
			if err := yield(&recs[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

// TestReadsARealSnapshot reads a real etcd's snapshot and reports what the
// real etcdutl reports of it.
func TestReadsARealSnapshot(t *testing.T) {
	s, recs := readAll(t, realSnapshot, Options{})
	got, err := s.Status()
	if err != nil {
		t.Fatal(err)
	}
	if want := wantStatus(t); got != want {
		t.Errorf("status %+v, etcdutl says %+v", got, want)
	}
	if len(recs) != 2 || string(recs[0].KV.Key) != "foo" || string(recs[1].KV.Value) != "v2" || recs[1].Rev.Main != 3 {
		t.Errorf("records %+v", recs)
	}
	if len(s.Members) != 3 || s.Members[0].Name == "" || s.ConsistentIndex != 10 || s.Term != 2 ||
		len(s.ConfState.Voters) != 3 || s.ClusterVersion != "3.6.0" || s.AuthRevision != 1 {
		t.Errorf("state %+v", s.State)
	}
}

// TestRewriteIsTheSameSnapshot writes what it read from a real snapshot:
// etcdutl's hash, revision, key count and size come out the same (the real
// file was not fragmented yet, so it is as compact as a defragmented one).
func TestRewriteIsTheSameSnapshot(t *testing.T) {
	s, recs := readAll(t, realSnapshot, Options{})
	out := filepath.Join(t.TempDir(), "copy.db")
	w, err := Write(out, &s.State, yieldAll(recs))
	if err != nil {
		t.Fatal(err)
	}
	if w.Revision != 3 || w.DBSize != 20480 || w.Size != 20480+32 {
		t.Errorf("written %+v", w)
	}
	s2, recs2 := readAll(t, out, Options{})
	st, _ := s.Status()
	st2, _ := s2.Status()
	if st != st2 {
		t.Errorf("status %+v, then %+v", st, st2)
	}
	if !reflect.DeepEqual(s.State, s2.State) || !reflect.DeepEqual(recs, recs2) {
		t.Errorf("state or records changed:\n%+v\n%+v", s.State, s2.State)
	}
	if _, err := os.Stat(out + ".part"); !os.IsNotExist(err) {
		t.Errorf("the .part file is left: %v", err)
	}
}

// TestWriteSplitsCommitsAsDefragDoes writes more than defragLimit records,
// with tombstones, and reads them back.
func TestWriteSplitsCommitsAsDefragDoes(t *testing.T) {
	var recs []Record
	for i := int64(0); i < 25000; i++ {
		r := Record{Rev: Revision{Main: 2 + i/2, Sub: i % 2}}
		r.KV.Key = []byte("/registry/events/e" + strings.Repeat("x", int(i%7)))
		if i%10 == 9 {
			r.Tombstone = true
		} else {
			r.KV.Value = bytes.Repeat([]byte{'v'}, int(i%300+1))
			r.KV.ModRevision = r.Rev.Main
			r.KV.CreateRevision = r.Rev.Main
			r.KV.Version = 1
		}
		recs = append(recs, r)
	}
	st := &State{ConsistentIndex: 99, Term: 3, StorageVersion: "3.6.0", AuthRevision: 1,
		Leases: []Lease{{ID: 7, TTL: 60}, {ID: 3, TTL: 5}}, ScheduledCompact: 4, FinishedCompact: 4}
	out := filepath.Join(t.TempDir(), "big.db")
	if _, err := Write(out, st, yieldAll(recs)); err != nil {
		t.Fatal(err)
	}
	s, got := readAll(t, out, Options{})
	if !reflect.DeepEqual(got, recs) {
		t.Fatalf("%d records back of %d", len(got), len(recs))
	}
	if s.Revision != recs[len(recs)-1].Rev.Main || s.ScheduledCompact != 4 || len(s.Leases) != 2 || s.Leases[0].ID != 3 {
		t.Errorf("state %+v, revision %d", s.State, s.Revision)
	}
}

// corrupt writes a copy of the real snapshot, changed by f.
func corrupt(t *testing.T, f func(b []byte) []byte) string {
	t.Helper()
	b, err := os.ReadFile(realSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "bad.db")
	if err := os.WriteFile(p, f(b), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// resum replaces the trailer with the sha256 of the rest, so that a
// damaged database passes the hash check and must be caught by the next.
func resum(b []byte) []byte {
	db := b[:len(b)-sha256.Size]
	sum := sha256.Sum256(db)
	return append(db, sum[:]...)
}

// TestHostileSnapshots: each damaged file is refused with an error that
// names it and says what is wrong, and nothing panics.
func TestHostileSnapshots(t *testing.T) {
	for _, tc := range []struct {
		name string
		file func(t *testing.T) string
		opt  Options
		want string
	}{
		{"truncated", func(t *testing.T) string { return corrupt(t, func(b []byte) []byte { return b[:len(b)-100] }) },
			Options{}, "no sha256 at its end"},
		{"hash-missing", func(t *testing.T) string { return corrupt(t, func(b []byte) []byte { return b[:len(b)-32] }) },
			Options{}, "no sha256 at its end"},
		{"wrong-hash", func(t *testing.T) string {
			return corrupt(t, func(b []byte) []byte { b[len(b)-1] ^= 1; return b })
		}, Options{}, "is corrupt: its sha256 is"},
		{"flipped-byte", func(t *testing.T) string {
			return corrupt(t, func(b []byte) []byte { b[4*4096+200] ^= 0x40; return b })
		}, Options{}, "is corrupt: its sha256 is"},
		{"damaged-page-rehashed", func(t *testing.T) string {
			// the root leaf's element count, with the trailer recomputed
			return corrupt(t, func(b []byte) []byte { b[4*4096+10] = 0xff; return resum(b) })
		}, Options{}, "is corrupt"},
		{"damaged-meta-rehashed", func(t *testing.T) string {
			return corrupt(t, func(b []byte) []byte { copy(b[16:], "garbage!"); copy(b[4096+16:], "garbage!"); return resum(b) })
		}, Options{}, "not an etcd snapshot"},
		{"not-bbolt", func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "notes.txt")
			os.WriteFile(p, bytes.Repeat([]byte("hello etcd\n"), 2000), 0o600)
			return p
		}, Options{SkipHashCheck: true}, "not an etcd snapshot"},
		{"empty", func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "empty.db")
			os.WriteFile(p, nil, 0o600)
			return p
		}, Options{}, "too short"},
		{"directory", func(t *testing.T) string { return t.TempDir() }, Options{}, "is a directory, not a snapshot file"},
		{"device", func(t *testing.T) string { return "/dev/zero" }, Options{}, "not a regular file"},
		{"missing", func(t *testing.T) string { return filepath.Join(t.TempDir(), "nope.db") }, Options{}, "no such file"},
		{"over-the-limit", func(t *testing.T) string { return realSnapshot }, Options{MaxBytes: 8192}, "over the 8192 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.file(t)
			s, err := Open(p, tc.opt)
			if err == nil {
				var n int
				err = s.Records(func(*Record) error { n++; return nil })
				s.Close()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
			t.Log(err)
		})
	}
}

// TestWriteFailsCleanly: a destination that cannot take the snapshot gets
// a clear error, and what was there before is left alone.
func TestWriteFailsCleanly(t *testing.T) {
	s, recs := readAll(t, realSnapshot, Options{})
	t.Run("dev-full", func(t *testing.T) {
		f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			t.Skip(err)
		}
		defer f.Close()
		_, err = WriteTo(f, t.TempDir(), &s.State, yieldAll(recs))
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("got %v, want no space left on device", err)
		}
		_, err = Write("/dev/full", &s.State, yieldAll(recs))
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("got %v", err)
		}
		if fi, err := os.Stat("/dev/full"); err != nil || fi.Mode().IsRegular() {
			t.Fatalf("/dev/full was replaced: %v", err)
		}
	})
	t.Run("failing-records", func(t *testing.T) {
		dir := t.TempDir()
		out := filepath.Join(dir, "keep.db")
		os.WriteFile(out, []byte("yesterday's snapshot"), 0o600)
		boom := errors.New("boom")
		_, err := Write(out, &s.State, func(func(*Record) error) error { return boom })
		if !errors.Is(err, boom) {
			t.Fatalf("got %v", err)
		}
		if b, _ := os.ReadFile(out); string(b) != "yesterday's snapshot" {
			t.Errorf("the old file was changed: %q", b)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("left behind: %v", ents)
		}
	})
	t.Run("no-such-directory", func(t *testing.T) {
		_, err := Write(filepath.Join(t.TempDir(), "no", "such.db"), &s.State, yieldAll(recs))
		if !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("got %v", err)
		}
	})
}

// FuzzOpen damages the real snapshot at a place and reads it: an error or
// a snapshot, never a crash or a hang.
func FuzzOpen(f *testing.F) {
	real, err := os.ReadFile(realSnapshot)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint32(4*4096+10), []byte{0xff})
	f.Add(uint32(16), []byte("garbage!"))
	f.Add(uint32(4*4096+300), []byte{0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, at uint32, patch []byte) {
		b := bytes.Clone(real[:len(real)-sha256.Size])
		copy(b[int(at)%len(b):], patch)
		p := filepath.Join(t.TempDir(), "fuzz.db")
		if err := os.WriteFile(p, resum(append(b, make([]byte, sha256.Size)...)), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(p, Options{})
		if err != nil {
			return
		}
		defer s.Close()
		_ = s.Records(func(*Record) error { return nil })
		_, _ = s.Status()
	})
}
