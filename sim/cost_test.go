package sim

import (
	"testing"
	"time"
)

// TestLoadLimitCombines: LoadLimit is LoadRequestLimit's for up to 5
// members without snapshots, shares it out among more members, and bounds
// the snapshots' work; at runtime (the console's load) as in a file.
func TestLoadLimitCombines(t *testing.T) {
	cfg := func(members int, every uint64) Config {
		c := DefaultConfig()
		c.Members = nil
		for i := range members {
			c.Members = append(c.Members, string(rune('a'+i%26))+string(rune('a'+i/26)))
		}
		c.SnapshotEvery = every
		return c
	}
	compacted := cfg(3, 10_000)
	compacted.Topology, compacted.CompactionInterval = "stacked", 5*time.Second
	for _, tc := range []struct {
		name        string
		cfg         Config
		keys, wants int
		want        int
	}{
		{"3 members", cfg(3, 0), 1000, 0, MaxLoadRequestsUncompacted},
		{"5 members", cfg(5, 0), 1000, 0, MaxLoadRequestsUncompacted},
		{"6 members", cfg(6, 0), 1000, 0, MaxLoadRequestsUncompacted / 2},
		{"99 members", cfg(99, 0), 1000, 0, 12_121},
		{"snapshot_every 1", cfg(3, 1), 1000, 0, 10_000},
		{"snapshot_every 1 and 2,000 puts", cfg(3, 1), 1000, 2000, 8_000},
		{"snapshot_every 10,000", cfg(3, 10_000), 1000, 0, MaxLoadRequestsUncompacted},
		{"compacted, snapshot_every 10,000", compacted, 1000, 0, MaxLoadRequests},
		{"compacted, snapshot_every 100, 1000 keys", func() Config { c := compacted; c.SnapshotEvery = 100; return c }(), 1000, 0, 100_000},
		{"compacted, snapshot_every 10, a million keys", func() Config { c := compacted; c.SnapshotEvery = 10; return c }(), MaxLoadKeys, 0, 31_622},
	} {
		if got, _ := LoadLimit(&tc.cfg, 10_000, tc.keys, tc.wants); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	// A slow load lasts long, and every member applies the compactors'
	// writes all that while: 99 stacked apiservers compacting every 5s
	// write 20 times a second, so at 1 a second the requests get 1/21 of
	// the 99 members' 12,121 (snapshot_every 100,001 keeps every revision).
	slow := cfg(99, 100_001)
	slow.Topology, slow.CompactionInterval = "stacked", 5*time.Second
	for _, tc := range []struct {
		name       string
		cfg        Config
		rate, want int
	}{
		{"99 members compacted, 1 a second", slow, 1, 577},
		{"99 members compacted, 10,000 a second", slow, 10_000, 12_096},
		{"99 members, 3 apiservers, 1 a second", func() Config { c := slow; c.Apiservers = 3; return c }(), 1, 6_733},
		{"5 members compacted, 1 a second", func() Config { c := compacted; c.Members = cfg(5, 0).Members; return c }(), 1, MaxLoadRequests},
	} {
		if got, why := LoadLimit(&tc.cfg, tc.rate, 1000, 0); got != tc.want {
			t.Errorf("%s: %d, want %d (%s)", tc.name, got, tc.want, why)
		}
	}
	if w, err := New(slow); err != nil {
		t.Fatal(err)
	} else if err := w.checkLoad(&LoadSpec{For: 8080 * time.Second, Rate: 1, Keys: 1000, Via: []string{"aa"}, Mix: LoadMix{Put: 1}}); err == nil {
		t.Errorf("99 members compacted, a load of 8,080 requests at 1 a second: accepted at runtime")
	}
	w, err := New(cfg(99, 0))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.checkLoad(&LoadSpec{For: 30 * time.Second, Rate: 1000, Keys: 1000, Via: []string{"aa"}, Mix: LoadMix{Put: 1}}); err == nil {
		t.Errorf("99 members, a load of 30,000 requests: accepted at runtime")
	}
}
