package experiment

import "testing"

// BenchmarkTrial measures one trial of each of the paper's ranges, from the
// settled cluster (what a worker does for each trial).
func BenchmarkTrial(b *testing.B) {
	s, err := Settle(PaperCluster(), 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range PaperRanges {
		b.Run(r.String(), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := s.Trial(r, TrialSeed(1, r.String(), i), TrialPatience); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFork measures what every trial pays before it simulates
// anything: copying the settled world.
func BenchmarkFork(b *testing.B) {
	s, err := Settle(PaperCluster(), 1)
	if err != nil {
		b.Fatal(err)
	}
	cfg := s.world.Config()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		cfg.Seed = uint64(i)
		if _, err := s.world.Fork(cfg, s.leader); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSettle measures what each worker pays once per cluster.
func BenchmarkSettle(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := Settle(PaperCluster(), 1); err != nil {
			b.Fatal(err)
		}
	}
}
