package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Hostile files (issue 13): each is refused with a clear error, reading at
// most a little more than MaxFileBytes. /dev/zero grew past 7 GB before.
func TestLoadHostileFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	huge := write("huge.yaml", "name: huge\nsteps:\n"+strings.Repeat("  - wait: 1s\n", MaxFileBytes/13+1))
	nested := write("nested.yaml", "name: x\nsteps: "+strings.Repeat("[", 400_000)+strings.Repeat("]", 400_000)+"\n")
	binary := write("binary.yaml", string([]byte{0, 1, 2, 0xff, 0xfe, '\n', 0x7f}))
	for _, tc := range []struct {
		path, want string
	}{
		{"/dev/zero", "/dev/zero holds more than 1 MiB; a scenario file may be at most 1 MiB"},
		{dir, dir + " is a directory, not a scenario file"},
		{huge, huge + " is 1048598 bytes; a scenario file may be at most 1 MiB"},
		{nested, "nested.yaml:2:1: YAML syntax error: exceeded max depth of 10000"},
		{binary, "binary.yaml:1:1: YAML syntax error: control characters are not allowed"},
		{filepath.Join(dir, "missing.yaml"), "open " + filepath.Join(dir, "missing.yaml") + ": no such file or directory"},
	} {
		_, err := Load(tc.path)
		if err == nil || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("Load(%s) = %v, want an error ending %q", tc.path, err, tc.want)
		}
	}
}

// A bare name that is a directory in the working directory is still the
// lesson of that name (raftsim's source tree has a membership/ package),
// and a directory no lesson is named after is refused as before.
func TestLessonNameBeatsDirectory(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, d := range []string{"membership", "not-a-lesson"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Load("membership")
	if err != nil || s.Name != "membership" {
		t.Fatalf("Load(membership) with a membership/ directory here = %v, %v; want the lesson", s, err)
	}
	if _, err := Load("not-a-lesson"); err == nil || err.Error() != "not-a-lesson is a directory, not a scenario file" {
		t.Errorf("Load(not-a-lesson), a directory = %v; want it refused as a directory", err)
	}
}

// More steps than MaxSteps are refused at the first one too many.
func TestTooManySteps(t *testing.T) {
	src := "name: many\nsteps:\n" + strings.Repeat("  - say: hi\n", MaxSteps+5)
	_, err := Parse("many.yaml", []byte(src))
	want := "many.yaml:10003:5: steps: more than 10000 steps; a scenario may have at most 10000"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}

// validate refuses everything run refuses: an at: that only a run can find
// already passed fails its step, as an expectation does (exit 1), rather
// than being bad input that validate let through.
func TestLateAtFailsTheStep(t *testing.T) {
	s, err := Parse("at.yaml", []byte("name: at-late\ncluster: {members: 3}\nsteps:\n  - expect: {leader: any, within: 3s}\n  - at: 1ms\n    say: too late\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRunner(s, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Run()
	var ee *ExpectError
	if !errors.As(err, &ee) || !ee.Step || ee.Pos.Line != 5 {
		t.Fatalf("got %T %v, want the step at line 5 failed", err, err)
	}
}
