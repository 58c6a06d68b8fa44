package sim

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestLoadMemoryPerRequest holds what a headless run keeps for each
// request of a load of puts on a million keys, with no compaction, on
// three members: every revision of every key stays, so the run's memory
// grows by this much a request (the load of docs/scenarios.md's limits
// table). It is the live heap after a collection, before and after 20,000
// puts at 10,000 a second, with the history given back as it goes.
//
// It keeps about 1,590 bytes a request. Seen to fail with the code before
// issue 24's memory work (3,012 bytes a request: each member kept its own
// copy of every record, the model of bbolt's file kept each leaf's tail
// many times over, the check kept room for an operation on every key, and
// the client timeouts kept the finished requests), and with the members'
// records no longer shared alone (1,791).
func TestLoadMemoryPerRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("a load of 20,000 requests")
	}
	c := DefaultConfig()
	c.Members = []string{"n1", "n2", "n3"}
	w, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Advance(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	w.ForgetHistory(w.HistoryLen())
	before := liveHeap()
	const requests = 20_000
	load := &LoadSpec{For: requests * time.Second / MaxLoadRate, Rate: MaxLoadRate, Via: []string{"n1"}, Keys: MaxLoadKeys, Mix: LoadMix{Put: 1}}
	if _, err := w.Do(Command{Kind: CmdLoad, Load: load}); err != nil {
		t.Fatal(err)
	}
	for range 100 { // 10s: the load, every request answered, and their 7s timeouts come
		if err := w.Advance(100 * time.Millisecond); err != nil {
			t.Fatal(err)
		}
		w.ForgetHistory(w.HistoryLen())
	}
	if s := w.LoadStatsOf(0); s.OK != requests {
		t.Fatalf("%+v", s)
	}
	perRequest := float64(liveHeap()-before) / requests
	runtime.KeepAlive(w)
	t.Logf("%.0f bytes a request", perRequest)
	if perRequest > maxBytesPerRequest {
		t.Errorf("the run keeps %.0f bytes a request, want at most %d", perRequest, maxBytesPerRequest)
	}
}

// maxBytesPerRequest bounds TestLoadMemoryPerRequest.
const maxBytesPerRequest = 1700

// liveHeap returns the bytes of the heap still in use after a collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestLoadRequestLimit: a run keeps to 400,000 load requests unless its
// store is compacted before the loads send 100,000 requests and its raft
// log snapshotted every 100,000 entries at most; the shell's loads (World.Do)
// are refused as the scenario's are.
func TestLoadRequestLimit(t *testing.T) {
	compacted := func(every time.Duration, snap uint64) Config {
		c := DefaultConfig()
		c.Topology, c.CompactionInterval, c.SnapshotEvery = "stacked", every, snap
		return c
	}
	for _, tc := range []struct {
		name string
		cfg  Config
		rate int
		want int
	}{
		{"no compaction", DefaultConfig(), 100, MaxLoadRequestsUncompacted},
		{"compaction without a topology", func() Config { c := compacted(5*time.Second, 10000); c.Topology = ""; return c }(), 100, MaxLoadRequestsUncompacted},
		{"compaction every 5s at 10,000 a second", compacted(5*time.Second, 10000), 10000, MaxLoadRequests},
		{"every 10s at 10,000 a second", compacted(10*time.Second, 10000), 10000, MaxLoadRequests},
		{"every 11s at 10,000 a second", compacted(11*time.Second, 10000), 10000, MaxLoadRequestsUncompacted},
		{"every 5m at 200 a second", compacted(5*time.Minute, 10000), 200, MaxLoadRequests},
		{"no snapshots", compacted(5*time.Second, 0), 100, MaxLoadRequestsUncompacted},
		{"snapshots every 100,001 entries", compacted(5*time.Second, 100_001), 100, MaxLoadRequestsUncompacted},
		{"the longest interval", compacted(1000*time.Hour, 10000), 10000, MaxLoadRequestsUncompacted},
	} {
		if got, _ := LoadRequestLimit(&tc.cfg, tc.rate); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	c := DefaultConfig()
	c.Members = []string{"n1", "n2", "n3"}
	w, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	load := &LoadSpec{For: 40*time.Second + 100*time.Microsecond, Rate: MaxLoadRate, Via: []string{"n1"}, Keys: 10, Mix: LoadMix{Put: 1}}
	if _, err := w.Do(Command{Kind: CmdLoad, Load: load}); err == nil || !strings.Contains(err.Error(), "400001 requests, 400001 with the loads before it: more than 400000") {
		t.Errorf("a load of 400,001 requests without compaction: %v", err)
	}
}
