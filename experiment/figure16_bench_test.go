package experiment

import (
	"runtime/debug"
	"testing"
)

// BenchmarkFigure16 runs one process's whole share of `raftsim experiment
// election-time` at its defaults (the paper's five ranges, 1,000 trials
// each, seed 1), as one worker of one, with the command's GC target.
func BenchmarkFigure16(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	p := ElectionTime(PaperCluster(), PaperRanges, 1000, 1)
	for i := 0; i < b.N; i++ {
		n := 0
		if err := RunShare(p, 0, 1, func(Trial) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
