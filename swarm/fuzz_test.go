package swarm

import (
	"bytes"
	"testing"
)

// FuzzMerge feeds `raftsim swarm merge`'s reader and merge with anything:
// up to four results files, split at NUL bytes. Whatever they hold, the
// answer is an error or the campaign's results in seed order, one for each
// seed, and never a panic, a hang or memory out of proportion.
func FuzzMerge(f *testing.F) {
	f.Add([]byte(goodHeader(1) + "\n" + passLine(1) + "\n" + passLine(3) + "\n\x00" + goodHeader(2) + "\n" + passLine(2) + "\n" + passLine(4) + "\n"))
	f.Add([]byte(`{"swarm_results":1,"options":"o","args":[],"seeds":{"first":5,"last":5},"shard":{"k":1,"of":1}}` + "\n" +
		`{"seed":5,"verdict":"safety","check":"Election Safety","detail":"two leaders","end_ns":9,"steps":3,"events":20,"requests":1,"checked":0,"profile":"p","repro":"name: r\nsteps:\n  - wait: 1s\n","repro_steps":1}` + "\n"))
	f.Add([]byte(`{"swarm_results":1,"options":"o","args":[],"seeds":{"first":1,"last":1000000000000},"shard":{"k":1,"of":-5}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		parts := bytes.SplitN(data, []byte{0}, 5)
		if len(parts) > 4 {
			return
		}
		var texts []string
		for _, p := range parts {
			texts = append(texts, string(p))
		}
		got, err := mergeFiles(texts...)
		if err != nil {
			return
		}
		if len(got) == 0 {
			t.Fatal("a merge with no results")
		}
		for i := 1; i < len(got); i++ {
			if got[i].Seed != got[i-1].Seed+1 {
				t.Fatalf("merged seeds %d then %d", got[i-1].Seed, got[i].Seed)
			}
		}
	})
}
