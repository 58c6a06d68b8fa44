package scenarios

import (
	"fmt"
	"strings"
	"testing"
)

// TestCombinedLimitsAreRefused: the inputs of issue 29 that each limit let
// through alone, but whose combination did not finish (snapshot_every: 1
// with a load: 8,000 puts took 29.6 s and 400,000 would take a day; 99
// members with 30,000 puts passed 1 GiB and 90 s), are refused before the
// run, with their position and the rule named; the same at the bound is
// accepted.
func TestCombinedLimitsAreRefused(t *testing.T) {
	load := func(cluster string, requests int) string {
		return fmt.Sprintf("name: c\ncluster: {%s}\nsteps:\n  - expect: {leader: any, within: 30s}\n  - load: {for: %dms, rate: 1000, keys: 1000000, mix: {put: 1}}\n",
			cluster, requests)
	}
	puts := func(cluster string, n int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "name: c\ncluster: {%s}\nsteps:\n", cluster)
		for i := range n {
			fmt.Fprintf(&b, "  - put: {via: n1, key: k%d, value: v}\n", i)
		}
		return b.String()
	}
	for _, tc := range []struct {
		name, file string
		err        string // "" if it is accepted
	}{
		{"snapshot_every 1, 400,000 puts", load("members: 3, snapshot_every: 1", 400_000), "c.yaml:5:5: load: its loads would send 400000 requests by here; a run may send at most 10000 (snapshot_every: 1 with 3 members"},
		{"snapshot_every 1, 8,000 puts", load("members: 3, snapshot_every: 1", 8_000), ""},
		{"snapshot_every 1, 10,000 puts", load("members: 3, snapshot_every: 1", 10_000), ""},
		{"snapshot_every 1, 10,001 puts", load("members: 3, snapshot_every: 1", 10_001), "a run may send at most 10000 (snapshot_every: 1"},
		{"snapshot_every 1, 5 members, 10,000 puts", load("members: 5, snapshot_every: 1", 10_000), "a run may send at most 7745 (snapshot_every: 1 with 5 members"},
		{"snapshot_every 100, 99 members, 30,000 puts", load("members: 99, snapshot_every: 100", 30_000), "a run may send at most 12121 (with 99 members"},
		{"99 members, 30,000 puts", load("members: 99", 30_000), "c.yaml:5:5: load: its loads would send 30000 requests by here; a run may send at most 12121 (with 99 members"},
		{"99 members, 12,121 puts", load("members: 99", 12_121), ""},
		{"3 members, 400,000 puts", load("members: 3", 400_000), ""},
		{"5 members, 400,000 puts", load("members: 5", 400_000), ""},
		{"6 members, 200,001 puts", load("members: 6", 200_001), "a run may send at most 200000 (with 6 members"},
		{"snapshot_every 1, 99 members, 2,000 put steps", puts("members: 99, snapshot_every: 1", 2_000), "c.yaml:2:40: snapshot_every: 1: the 2000 steps that write are too many (snapshot_every: 1 with 99 members"},
		{"snapshot_every 1, 99 members, 1,700 put steps", puts("members: 99, snapshot_every: 1", 1_700), ""},
	} {
		_, err := Parse("c.yaml", []byte(tc.file))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v, want it accepted", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
		}
	}
}

// TestSlowLoadWithCompactorsIsRefused: the limits swarm's input that ran
// past its 20-minute hang detector (docs/testing.md): 99 stacked members
// compacting every 5s, a load of 8,080 requests at 1 a second. Its
// requests were within the 99 members' 12,121, but every member applies
// the 99 compactors' writes, 20 a second, for the load's 8,080 s. It is
// refused before the run, with its position and the rule named. 577
// requests, the bound of the load alone, are refused now too: the
// compactors write through the run's first minute as well (the expect's
// within: 60s), and their writes over the whole run share the limit
// (TestCompactorsOverTheRunAreBounded); 520 are accepted.
func TestSlowLoadWithCompactorsIsRefused(t *testing.T) {
	load := func(cluster string, seconds int) string {
		return fmt.Sprintf("name: c\ncluster: {%s}\nsteps:\n  - expect: {leader: any, within: 60s}\n  - load: {for: %ds, rate: 1, keys: 1000, mix: {put: 3, get: 1, delete: 1}}\n",
			cluster, seconds)
	}
	const stacked = "members: 99, snapshot_every: 100001, topology: stacked, compaction_interval: 5s"
	for _, tc := range []struct {
		name, file string
		err        string // "" if it is accepted
	}{
		{"8,080 requests at 1 a second", load(stacked, 8080), "c.yaml:5:5: load: its loads would send 8080 requests by here; a run may send at most 577 (with 99 members: each keeps and applies every request, so past 5 members, members × requests is at most 3 × 400000; and with 99 members and compaction_interval: 5s: while the loads (1 a second) run, the apiservers' compactors write 20 times a second"},
		{"578 requests at 1 a second", load(stacked, 578), "a run may send at most 577 ("},
		{"577 requests at 1 a second", load(stacked, 577), "c.yaml:5:5: load: by here the run may last 10m37s, and the apiservers' compactors (compaction_interval: 5s) write 20 times a second, 12740 writes, with the loads' 577 requests; a run may send at most 12121 requests and compactor writes"},
		{"520 requests at 1 a second", load(stacked, 520), ""},
		{"521 requests at 1 a second", load(stacked, 521), "c.yaml:5:5: load: by here the run may last 9m41s"},
		{"8,080 requests at 1 a second, no topology", load("members: 99, snapshot_every: 100001", 8080), ""},
	} {
		_, err := Parse("c.yaml", []byte(tc.file))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v, want it accepted", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
		}
	}
}

// TestCompactorsOverTheRunAreBounded: a topology's compactors write all
// through the run, not only while a load lasts: 99 stacked members
// compacting every 5s write 20 times a second, each write a request every
// member applies and the history keeps, and a wait of 999h with them was
// let through (about 72 million writes). Their writes over the run's
// virtual time, with the loads' requests, are held to the load limit, and
// refused before the run at the step that passes it, the rule named.
func TestCompactorsOverTheRunAreBounded(t *testing.T) {
	wait := func(cluster, d string) string {
		return fmt.Sprintf("name: c\ncluster: {%s}\nsteps:\n  - expect: {leader: any, within: 60s}\n  - wait: %s\n", cluster, d)
	}
	load := func(cluster string, seconds int) string {
		return fmt.Sprintf("name: c\ncluster: {%s}\nsteps:\n  - expect: {leader: any, within: 60s}\n  - load: {for: %ds, rate: 1, keys: 1000, mix: {put: 3, get: 1, delete: 1}}\n",
			cluster, seconds)
	}
	const stacked = "members: 99, topology: stacked, compaction_interval: 5s"
	for _, tc := range []struct {
		name, file string
		err        string // "" if it is accepted
	}{
		{"99 members, 999h", wait(stacked, "999h"), "c.yaml:5:5: wait: by here the run may last 999h1m0s, and the apiservers' compactors (compaction_interval: 5s) write 20 times a second, 71929200 writes; a run may send at most 12121 requests and compactor writes (with 99 members"},
		{"99 members, 547s", wait(stacked, "547s"), "c.yaml:5:5: wait: by here the run may last 10m7s"},
		{"99 members, 546s", wait(stacked, "546s"), ""},
		{"99 members, 6 apiservers, 1h", wait(stacked+", apiservers: 6", "1h"), ""},
		{"99 members, default interval, 10h", wait("members: 99, topology: stacked, compaction_interval: 5m", "10h"), ""},
		{"99 members, default interval, 11h", wait("members: 99, topology: stacked, compaction_interval: 5m", "11h"), "c.yaml:5:5: wait: by here the run may last 11h1m0s"},
		{"3 members, 999h", wait("members: 3, topology: stacked, compaction_interval: 5s", "999h"), "a run may send at most 400000 requests and compactor writes (every revision stays in memory"},
		{"3 members, 138h", wait("members: 3, topology: stacked, compaction_interval: 5s", "138h"), ""},
		{"3 members, 999h, default interval", wait("members: 3, topology: stacked, compaction_interval: 5m", "999h"), ""},
		{"99 members, a load of 577 at 1 a second", load(stacked, 577), "c.yaml:5:5: load: by here the run may last 10m37s"},
		{"99 members, a load of 520 at 1 a second", load(stacked, 520), ""},
		{"99 members, no topology, 40h", wait("members: 99", "40h"), ""},
	} {
		_, err := Parse("c.yaml", []byte(tc.file))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v, want it accepted", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
		}
	}
}

// TestHeartbeatsOverTheRunAreBounded: a leader sends a heartbeat to each
// other member every tick × heartbeat_ticks however idle the run is, and
// 99 idle members waiting 999h were let through (issue 29: some 3.5
// billion heartbeats and their responses, hours of CPU time); so were 3
// members with a short tick at 1000h. The heartbeats over the run's
// virtual time are held to what the sandbox's 5 members send in 1000h at etcd's
// default 100ms (sim.MaxHeartbeats), refused before the run at the step that
// passes it, the rule named.
func TestHeartbeatsOverTheRunAreBounded(t *testing.T) {
	wait := func(cluster, d string) string {
		return fmt.Sprintf("name: c\ncluster: {%s}\nsteps:\n  - expect: {leader: any, within: 60s}\n  - wait: %s\n", cluster, d)
	}
	added := func(n int, d string) string {
		f := "name: c\ncluster: {members: 3}\nsteps:\n  - expect: {leader: any, within: 60s}\n"
		for i := range n {
			f += fmt.Sprintf("  - add_member: {name: x%d, start: false}\n", i)
		}
		return f + "  - wait: " + d + "\n"
	}
	for _, tc := range []struct {
		name, file string
		err        string // "" if it is accepted
	}{
		{"99 members, 999h", wait("members: 99", "999h"), "c.yaml:5:5: wait: by here the run may last 999h1m0s, and its leader sends a heartbeat to each of the other 98 members every 100ms (tick: 100ms × heartbeat_ticks: 1), 3524530800 heartbeats; a run may send at most 144000000, what 5 members send in 1000h at etcd's default 100ms, so with 99 members and this interval it may last 40h48m58s"},
		{"99 members, 41h", wait("members: 99", "41h"), "c.yaml:5:5: wait: by here the run may last 41h1m0s"},
		{"99 members, 40h", wait("members: 99", "40h"), ""},
		{"99 members, heartbeat_ticks: 10, 200h", wait("members: 99, election_ticks: 100, heartbeat_ticks: 10", "200h"), ""},
		{"3 members, tick: 10ms, 201h", wait("members: 3, tick: 10ms", "201h"), "c.yaml:5:5: wait: by here the run may last 201h1m0s, and its leader sends a heartbeat to each of the other 2 members every 10ms (tick: 10ms × heartbeat_ticks: 1)"},
		{"3 members, tick: 10ms, 199h", wait("members: 3, tick: 10ms", "199h"), ""},
		{"3 members, 999h", wait("members: 3", "999h"), ""},
		{"1 member, tick: 1ms, 999h", wait("members: 1, tick: 1ms", "999h"), ""},
		// Members added by steps count: 3 members grown to 50 send as
		// many heartbeats as 50 would.
		{"3 members and 47 added, 999h", added(47, "999h"), "c.yaml:52:5: wait: by here the run may last 999h1m0s, and its leader sends a heartbeat to each of the other 49 members"},
		{"3 members and 1 added, 999h", added(1, "600h"), ""},
	} {
		_, err := Parse("c.yaml", []byte(tc.file))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v, want it accepted", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
		}
	}
}
