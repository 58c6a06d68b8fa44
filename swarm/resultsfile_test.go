package swarm

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// goodHeader is the header of a campaign of seeds 1-4 in 2 shards.
func goodHeader(k int) string {
	return fmt.Sprintf(`{"swarm_results":1,"options":"members 3","args":["--members","3"],"seeds":{"first":1,"last":4},"shard":{"k":%d,"of":2}}`, k)
}

// passLine is a passing result of seed.
func passLine(seed int) string {
	return fmt.Sprintf(`{"seed":%d,"verdict":"pass","end_ns":1,"steps":1,"events":1,"requests":0,"checked":0}`, seed)
}

// mergeFiles merges results files given as text, named f1, f2, ...
func mergeFiles(texts ...string) ([]Result, error) {
	var readers []*ResultsReader
	for i, text := range texts {
		rr, err := NewResultsReader(strings.NewReader(text), fmt.Sprintf("f%d", i+1))
		if err != nil {
			return nil, err
		}
		readers = append(readers, rr)
	}
	var out []Result
	_, err := Merge(readers, func(r Result) error { out = append(out, r); return nil })
	return out, err
}

// Results files are input like any other: every header and line is
// checked, with the file and line in the error (issue 24: "of":-5 and
// "of":0 panicked, k > of indexed out of range, and "of" or "last" near
// 10^12 ran out of memory).
func TestMergeRefusesBadFiles(t *testing.T) {
	shard2 := goodHeader(2) + "\n" + passLine(2) + "\n" + passLine(4) + "\n"
	header := func(shard string) string {
		return `{"swarm_results":1,"options":"members 3","args":["--members","3"],"seeds":{"first":1,"last":4},"shard":` + shard + `}`
	}
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"of below zero", []string{header(`{"k":1,"of":-5}`) + "\n"}, "f1:1: shard: 1/-5: a campaign is cut into 1 to 1000 shards, not -5"},
		{"of zero", []string{header(`{"k":1,"of":0}`) + "\n"}, "f1:1: shard: 1/0: a campaign is cut into 1 to 1000 shards, not 0"},
		{"k past of", []string{header(`{"k":3,"of":2}`) + "\n"}, "f1:1: shard: 3/2: want K/N with 1 <= K <= N"},
		{"k zero", []string{header(`{"k":0,"of":2}`) + "\n"}, "f1:1: shard: 0/2: want K/N with 1 <= K <= N"},
		{"of huge", []string{header(`{"k":1,"of":1000000000000}`) + "\n"}, "not 1000000000000"},
		{"last huge", []string{`{"swarm_results":1,"options":"o","args":[],"seeds":{"first":0,"last":18446744073709551615},"shard":{"k":1,"of":1}}` + "\n"},
			"f1:1: seeds: the range 0-18446744073709551615 holds more than 4611686018427387904 seeds"},
		{"seeds backwards", []string{`{"swarm_results":1,"options":"o","args":[],"seeds":{"first":9,"last":2},"shard":{"k":1,"of":1}}` + "\n"}, "f1:1: seeds: the range 9-2 ends before it starts"},
		{"last huge, merged", []string{`{"swarm_results":1,"options":"o","args":[],"seeds":{"first":1,"last":1000000000000},"shard":{"k":1,"of":1}}` + "\n" + passLine(1) + "\n"},
			"f1 ends after 1 of the 1000000000000 results of shard 1/1 (seed 2 is missing"},
		{"empty", []string{""}, "f1: empty: not a swarm results file"},
		{"not JSON", []string{"hello\n"}, "f1:1: not a swarm results file: column 1: invalid character 'h'"},
		{"another format", []string{`{"swarm_results":2,"options":"o","seeds":{"first":1,"last":1},"shard":{"k":1,"of":1}}`}, "f1:1: not a swarm results file of format 1"},
		{"a trace", []string{`{"schema":1,"seed":1,"members":["n1"]}`}, `f1:1: not a swarm results file: json: unknown field "schema"`},
		{"too few files", []string{goodHeader(1) + "\n"}, "f1 is shard 1/2 of a campaign in 2 shards, and 1 results files were given"},
		{"twice", []string{goodHeader(2) + "\n", shard2}, "shard 2/2 is there twice: f1 and f2"},
		{"other campaign", []string{goodHeader(1) + "\n", strings.Replace(shard2, "members 3", "members 5", 1)}, "f2 is from another campaign"},
		{"unknown verdict", []string{goodHeader(1) + "\n" + strings.Replace(passLine(1), "pass", "great", 1) + "\n", shard2},
			`f1:2: seed 1: unknown verdict "great"`},
		{"seed of another shard", []string{goodHeader(1) + "\n" + passLine(2) + "\n", shard2}, "f1:2: seed 2 is not in shard 1/2 of seeds 1-4"},
		{"seed outside", []string{goodHeader(1) + "\n" + passLine(7) + "\n", shard2}, "f1:2: seed 7 is not in the campaign's seeds 1-4"},
		{"seed missing", []string{goodHeader(1) + "\n" + passLine(3) + "\n", shard2}, "f1:2: seed 3, but shard 1/2 has no result for seed 1 before it"},
		{"cut short", []string{goodHeader(1) + "\n" + passLine(1) + "\n", shard2}, "f1 ends after 1 of the 2 results of shard 1/2 (seed 3 is missing"},
		{"one too many", []string{goodHeader(1) + "\n" + passLine(1) + "\n" + passLine(3) + "\n" + passLine(5) + "\n", shard2}, "f1:4: seed 5 is not in the campaign's seeds 1-4"},
		{"negative", []string{goodHeader(1) + "\n" + strings.Replace(passLine(1), `"events":1`, `"events":-1`, 1) + "\n", shard2}, "f1:2: seed 1: a count or a time below zero"},
		{"failure without reproducer", []string{goodHeader(1) + "\n" + strings.Replace(passLine(1), "pass", "safety", 1) + "\n", shard2}, "f1:2: seed 1: a failure (safety) without its reproducer"},
		{"reproducer not a scenario", []string{goodHeader(1) + "\n" + strings.Replace(passLine(1), `"pass"`, `"safety","repro":"steps: 3\n"`, 1) + "\n", shard2},
			"f1:2: seed 1: the reproducer is not a scenario: swarm-seed-1.yaml:"},
		{"pass with a reproducer", []string{goodHeader(1) + "\n" + strings.Replace(passLine(1), `"pass"`, `"pass","repro":"name: x\n"`, 1) + "\n", shard2},
			"f1:2: seed 1: a result that did not fail (pass) with a reproducer"},
		{"unknown field", []string{goodHeader(1) + "\n" + strings.Replace(passLine(1), `"pass"`, `"pass","colour":"red"`, 1) + "\n", shard2}, `f1:2: json: unknown field "colour"`},
		{"two values", []string{goodHeader(1) + "\n" + passLine(1) + " {}\n", shard2}, "f1:2: more than one JSON value on the line"},
		{"cut mid-line", []string{goodHeader(1) + "\n" + passLine(1)[:20], shard2}, "f1:2: unexpected EOF"},
	} {
		_, err := mergeFiles(tc.files...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	// A file read alone checks the order of its seeds.
	if _, _, err := ReadResults(strings.NewReader(goodHeader(1)+"\n"+passLine(3)+"\n"+passLine(1)+"\n"), "f1"); err == nil ||
		!strings.Contains(err.Error(), "f1:3: seed 1 comes after seed 3") {
		t.Errorf("seeds out of order: %v", err)
	}
	// And the good files merge.
	got, err := mergeFiles(goodHeader(1)+"\n"+passLine(1)+"\n"+passLine(3)+"\n", shard2)
	if err != nil || len(got) != 4 || got[0].Seed != 1 || got[3].Seed != 4 {
		t.Fatalf("good files: %v, %v", got, err)
	}
}

// A line longer than MaxResultLineBytes is refused after reading a little
// more than that, not after reading the whole of it.
func TestResultsLineBounded(t *testing.T) {
	r := io.MultiReader(strings.NewReader(goodHeader(1)+"\n"), endless{})
	rr, err := NewResultsReader(r, "f")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rr.Next(); err == nil || !strings.Contains(err.Error(), "f:2: a line longer than") {
		t.Fatalf("got %v", err)
	}
	if _, err := NewResultsReader(endless{}, "g"); err == nil || !strings.Contains(err.Error(), "g:1: a line longer than") {
		t.Fatalf("got %v", err)
	}
}

// endless reads as an endless line of spaces.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}
