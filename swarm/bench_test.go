package swarm

import "testing"

// BenchmarkRunSeed measures what `raftsim swarm` does for each seed with
// its default options (generate, run, check), over the seeds 1, 2, 3...
func BenchmarkRunSeed(b *testing.B) {
	o := DefaultOptions()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		RunSeed(uint64(i%200)+1, o)
	}
}
