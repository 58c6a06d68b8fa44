package sim

import (
	"math/rand/v2"
	"testing"
)

// The mirror log behaves as the slice it replaced: appends, truncations by
// raft, compactions by snapshots and resets by installed snapshots, across
// chunk boundaries.
func TestEntryLogActsAsASlice(t *testing.T) {
	defer func(b int) { chunkBytes = b }(chunkBytes)
	chunkBytes = 8 << 10
	rng := rand.New(rand.NewPCG(3, 4))
	var l entryLog
	l.reset(2)
	var want []logEntry
	first := uint64(2)
	for step := range 200_000 {
		switch r := rng.IntN(100); {
		case r < 80:
			e := logEntry{Term: rng.Uint64(), Chain: rng.Uint64()}
			l.append(e)
			want = append(want, e)
		case r < 90 && len(want) > 0:
			k := rng.IntN(len(want))
			l.truncate(first + uint64(k))
			want = want[:k]
		case r < 99 && len(want) > 0:
			k := rng.IntN(len(want) + 1)
			l.compact(first + uint64(k))
			want, first = want[k:], first+uint64(k)
		default:
			first += uint64(len(want)) + uint64(rng.IntN(10))
			l.reset(first)
			want = nil
		}
		if l.first != first || l.last() != first+uint64(len(want))-1 {
			t.Fatalf("step %d: log holds %d..%d, want %d..%d", step, l.first, l.last(), first, first+uint64(len(want))-1)
		}
		if len(want) > 0 {
			i := rng.IntN(len(want))
			if got := *l.at(first + uint64(i)); got != want[i] {
				t.Fatalf("step %d: entry %d = %+v, want %+v", step, first+uint64(i), got, want[i])
			}
		}
	}
}
