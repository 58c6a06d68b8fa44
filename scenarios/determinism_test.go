package scenarios

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/raftsim/raftsim/sim"
)

// traceOf runs a lesson and returns its trace and transcript.
func traceOf(t testing.TB, name string, seed uint64, seedSet bool) (trace, transcript []byte) {
	s, err := LoadLesson(name)
	if err != nil {
		t.Fatal(err)
	}
	var tr bytes.Buffer
	r, err := NewRunner(s, RunOptions{Seed: seed, SeedSet: seedSet, Transcript: &tr})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := r.Run(); st != Done || err != nil {
		t.Fatalf("%s: %v %v", name, st, err)
	}
	var b bytes.Buffer
	if err := r.World().WriteTrace(&b, name); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), tr.Bytes()
}

func hash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// TestLessonsDeterministic runs every lesson 20 times: the trace and the
// transcript are byte-identical every time, and another seed gives another
// trace.
func TestLessonsDeterministic(t *testing.T) {
	runs := 20
	if testing.Short() {
		runs = 3
	}
	for _, name := range lessonOrder() {
		t.Run(name, func(t *testing.T) {
			want, wantTr := traceOf(t, name, 0, false)
			for i := 1; i < runs; i++ {
				got, gotTr := traceOf(t, name, 0, false)
				if !bytes.Equal(got, want) || !bytes.Equal(gotTr, wantTr) {
					t.Fatalf("run %d differs: trace %s vs %s", i, hash(got), hash(want))
				}
			}
			other, _ := traceOf(t, name, 1000, true)
			if bytes.Equal(other, want) {
				t.Fatalf("seed 1000 gave the same trace as the file's seed")
			}
		})
	}
	if n := sim.UnroutedEntropyReads(); n != 0 {
		t.Fatalf("%d entropy reads escaped the seed", n)
	}
}

// TestLessonsSameUnderGOMAXPROCS runs the lessons in child processes with
// GOMAXPROCS=1 and 2 and compares their trace hashes with this process's.
func TestLessonsSameUnderGOMAXPROCS(t *testing.T) {
	if os.Getenv("RAFTSIM_TRACE_HASHES") == "1" {
		return // the child's part is in TestPrintTraceHashes
	}
	want := traceHashes(t)
	for _, procs := range []string{"1", "2"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPrintTraceHashes$", "-test.v")
		cmd.Env = append(os.Environ(), "RAFTSIM_TRACE_HASHES=1", "GOMAXPROCS="+procs)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("GOMAXPROCS=%s: %v\n%s", procs, err, out)
		}
		if !strings.Contains(string(out), want) {
			t.Fatalf("GOMAXPROCS=%s gave other traces:\n%s\nwant %s", procs, out, want)
		}
	}
}

func traceHashes(t testing.TB) string {
	var b strings.Builder
	for _, name := range lessonOrder() {
		tr, _ := traceOf(t, name, 0, false)
		fmt.Fprintf(&b, "%s=%s;", name, hash(tr))
	}
	return b.String()
}

// TestPrintTraceHashes prints the lessons' trace hashes, for the parent in
// TestLessonsSameUnderGOMAXPROCS.
func TestPrintTraceHashes(t *testing.T) {
	if os.Getenv("RAFTSIM_TRACE_HASHES") != "1" {
		t.Skip("run by TestLessonsSameUnderGOMAXPROCS")
	}
	fmt.Println("HASHES " + traceHashes(t))
}
