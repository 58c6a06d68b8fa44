package experiment

import (
	"math"
	"slices"
	"time"
)

// Summary is what a batch of trials comes to.
type Summary struct {
	Name   string
	Trials int
	Min    time.Duration
	Median time.Duration // the middle value, or the mean of the two middle values
	Mean   time.Duration
	P99    time.Duration // nearest rank: the smallest value at least 99% of the trials do not exceed
	Max    time.Duration
	// Elections is the mean number of elections (terms with a candidate)
	// a trial took; Failed is how many trials needed more than one.
	Elections float64
	Failed    int
	// NoLeader is how many trials gave up waiting for a leader, after
	// Patience (they count as the time they waited).
	NoLeader int
	Patience time.Duration
}

// Summarize summarizes the trials of one job.
func Summarize(name string, trials []Trial) Summary {
	s := Summary{Name: name, Trials: len(trials)}
	if len(trials) == 0 {
		return s
	}
	ds := make([]time.Duration, len(trials))
	var sum, elections float64
	for i, t := range trials {
		ds[i] = t.Downtime
		sum += float64(t.Downtime)
		elections += float64(t.Elections)
		if t.Elections > 1 || t.NoLeader {
			s.Failed++
		}
		if t.NoLeader {
			s.NoLeader++
		}
	}
	slices.Sort(ds)
	n := len(ds)
	s.Min, s.Max = ds[0], ds[n-1]
	s.Median = ds[n/2]
	if n%2 == 0 {
		s.Median = (ds[n/2-1] + ds[n/2]) / 2
	}
	s.Mean = time.Duration(math.Round(sum / float64(n)))
	s.P99 = Percentile(ds, 99)
	s.Elections = elections / float64(n)
	return s
}

// Percentile returns the nearest-rank p-th percentile of sorted values: the
// smallest value that at least p% of them do not exceed.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p*float64(len(sorted))/100 - 1e-9)) // 99.9% of 1000 is 999, not 999.0000000000001
	return sorted[min(max(rank, 1), len(sorted))-1]
}
