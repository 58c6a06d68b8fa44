package sim

import (
	"fmt"
	"math"
	"time"
)

// The costs of limits combined (issue 29). Each limit of docs/scenarios.md
// was measured alone; these rules bound what their combinations cost:
// members with a load, and snapshot frequency with the writes.
const (
	// loadMembers is the largest cluster the load limits (LoadRequestLimit)
	// hold for: 5 members with a load of 400,000 puts peaked at 869 MB.
	// Each member keeps its own key index, raft log and state machine,
	// and applies every request, about 500 bytes each in a large cluster,
	// so a larger one shares out what 3 members take at the limit:
	// members × requests is at most 3 × the limit. 99 members with a load
	// of 30,000 puts passed 1 GiB and 90 s; with 12,000, 636 MB and 41 s
	// of CPU time.
	loadMembers = 5
	// MaxSnapshotWork bounds members × writes × revisions kept /
	// snapshot_every: each member's raft snapshot, taken every
	// snapshot_every entries, encodes the whole store, every revision it
	// keeps. 3 members with snapshot_every: 1 and a load of 8,000 puts
	// (3 × 8,000 × 8,000 = 192 million) took 26.5 s of CPU time; the bound
	// lets 10,000 puts through with 3 members. NB: that was measured
	// before issue 30, when a snapshot encoded the store; one now refers
	// to a frozen store, and 10,000 puts take 1.1 s of CPU time (400,000,
	// past the bound: 218 s, 755 MB; docs/scenarios.md). Not raised yet.
	MaxSnapshotWork = 300_000_000
)

// compactorWrites returns how many writes a second a topology's
// kube-apiservers make when they compact (clientloops.go): each apiserver's
// transaction on compact_rev_key every compaction_interval, and the
// winner's compaction; 0 without compaction.
func compactorWrites(cfg *Config, n int) float64 {
	if cfg.Topology == "" || cfg.CompactionInterval <= 0 {
		return 0
	}
	apiservers := n
	if cfg.Apiservers > 0 {
		apiservers = min(cfg.Apiservers, n)
	}
	return float64(apiservers+1) / cfg.CompactionInterval.Seconds()
}

// CompactorRate returns how many writes a second the compactors of a run
// with cfg make at most (compactorWrites), 0 without compaction.
func CompactorRate(cfg *Config) float64 {
	return compactorWrites(cfg, max(len(cfg.Members), 1))
}

// CompactorWrites returns how many writes a topology's compactors make at
// most in d of virtual time, rounded up. They are requests as a load's
// are: every member applies them and the history keeps them, so that over
// a run, with the loads' requests, they are held to LoadLimit (issue 29:
// 99 stacked members compacting every 5s write 20 times a second, and a
// wait of 999h with them was let through, some 72 million writes; 546 s
// at the bound cost what docs/scenarios.md's combined limits say). A
// compactor waits for its transaction before the next, so a short
// compaction_interval writes less than this says.
func CompactorWrites(cfg *Config, d time.Duration) int {
	c := CompactorRate(cfg)
	if c == 0 || d <= 0 {
		return 0
	}
	return int(math.Min(math.Ceil(c*d.Seconds()), 1<<62))
}

// CheckCompactors refuses a run whose compactors' writes up to end
// (CompactorWrites), with the loads' requests (their rates adding up to
// rate, their keys to keys) and the writes of other steps, pass
// CompactorLimit; what names the step or command that would take the run
// that far. A scenario's validation and the console's wait and load say
// the same words.
func CheckCompactors(cfg *Config, what string, end time.Duration, requests, rate, keys, writes int) error {
	c := CompactorWrites(cfg, end)
	if c == 0 {
		return nil
	}
	most, why := CompactorLimit(cfg, rate, keys, writes)
	if c+requests <= most {
		return nil
	}
	if why == "" {
		why = "each is kept for the linearizability check"
	}
	loads := ""
	if requests > 0 {
		loads = fmt.Sprintf(", with the loads' %d requests", requests)
	}
	return fmt.Errorf("%s: by here the run may last %s, and the apiservers' compactors (compaction_interval: %s) write %.4g times a second, %d writes%s; a run may send at most %d requests and compactor writes (%s; every member applies the compactors' writes and the history keeps them, as a load's requests)",
		what, end, cfg.CompactionInterval, CompactorRate(cfg), c, loads, most, why)
}

// LoadLimit returns the most requests the loads of a run with cfg may
// send, when their rates add up to rate a second and their keys to keys,
// and writes other steps (puts, deletes, transactions) write too; and,
// when a rule less than MaxLoadRequests bounds it, why. It is
// LoadRequestLimit's, shared out among more than loadMembers members,
// shared with the writes of a topology's compactors for as long as the
// loads last (their requests over rate seconds), and no more than lets
// the members' snapshots encode at most MaxSnapshotWork revisions in
// all. It can be negative: writes alone pass the snapshots' bound.
func LoadLimit(cfg *Config, rate, keys, writes int) (int, string) {
	return loadLimit(cfg, rate, keys, writes, true)
}

// CompactorLimit returns the most requests and compactor writes
// (CompactorWrites over the run's virtual time) a run with cfg may make
// in all, and when a rule less than MaxLoadRequests bounds it, why: it is
// LoadLimit, but for the share of the compactors' writes while the loads
// last, which the writes it counts include.
func CompactorLimit(cfg *Config, rate, keys, writes int) (int, string) {
	return loadLimit(cfg, rate, keys, writes, false)
}

func loadLimit(cfg *Config, rate, keys, writes int, compactors bool) (int, string) {
	most, why := LoadRequestLimit(cfg, rate)
	compacted := why == ""
	n := max(len(cfg.Members), 1)
	if n > loadMembers {
		why = fmt.Sprintf("with %d members: each keeps and applies every request, so past %d members, members × requests is at most 3 × %d", n, loadMembers, most)
		most = most * 3 / n
	}
	if c := compactorWrites(cfg, n); compactors && c > 0 && rate > 0 && n > loadMembers {
		// A load of r requests at rate lasts r / rate seconds, and every
		// member applies the compactors' writes all that time too: the
		// requests and those writes share the limit. 99 stacked
		// apiservers compacting every 5s write 20 times a second, and a
		// load of 8,080 requests at 1 a second took minutes of CPU time
		// (docs/testing.md); up to loadMembers members the compactors
		// write at most 6 times an interval, which the load limits'
		// measurements (compacted every 5s) include.
		if s := int(float64(most) * float64(rate) / (float64(rate) + c)); s < most {
			most = s
			if why != "" {
				why += "; and "
			}
			why += fmt.Sprintf("with %d members and compaction_interval: %s: while the loads (%d a second) run, the apiservers' compactors write %.4g times a second, and every member applies both, so the requests and those writes share the limit", n, cfg.CompactionInterval, rate, c)
		}
	}
	if every := cfg.SnapshotEvery; every > 0 {
		// Writes w, each member's snapshot every `every` of them keeping
		// k revisions: n × w × k / every at most MaxSnapshotWork. k is w,
		// or, when the store is compacted, what compaction leaves: the
		// latest revision of each key and two intervals' requests.
		budget := float64(MaxSnapshotWork) * float64(every) / float64(n)
		w := math.Sqrt(budget) // k = w
		if kept := float64(2*maxKeptForLoad + keys + writes); compacted && w > kept {
			w = budget / kept
		}
		if s := int(math.Min(w, float64(MaxLoadRequests+1))) - writes; s < most {
			most = s
			why = fmt.Sprintf("snapshot_every: %d with %d members: each member's snapshot encodes every revision it keeps, so members × writes × revisions kept / snapshot_every is at most %d", every, n, MaxSnapshotWork)
		}
	}
	return most, why
}

// MaxHeartbeats bounds the heartbeats a run's leader may send, (members -
// 1) × its virtual time / the heartbeat interval (tick × heartbeat_ticks):
// each is a message and a response every step of the network carries,
// whatever else the run does. It is what the sandbox's 5 members send in
// 1000h, the longest run (scenarios.MaxRunTime), at etcd's default
// heartbeat of 100ms: 4 × 36 million; the sandbox's --start-at 1000h took
// 232 s of CPU time (docs/scenarios.md). 99 idle members waiting 999h
// were let through (issue 29), some 3.5 billion heartbeats, hours of CPU
// time.
const MaxHeartbeats = 4 * 1000 * 3600 * 10

// HeartbeatInterval returns how often a leader of a run with cfg sends
// its heartbeats: tick × heartbeat_ticks.
func HeartbeatInterval(cfg *Config) time.Duration {
	return cfg.Tick * time.Duration(max(cfg.HeartbeatTicks, 1))
}

// Heartbeats returns how many heartbeats a leader of a run with cfg and
// at most members members (those it starts with and those added since)
// sends at most in d of virtual time, one to each other member every
// HeartbeatInterval, rounded up.
func Heartbeats(cfg *Config, members int, d time.Duration) int {
	n := members
	hb := HeartbeatInterval(cfg)
	if n <= 1 || d <= 0 || hb <= 0 {
		return 0
	}
	return int(math.Min(math.Ceil(float64(n-1)*float64(d)/float64(hb)), 1<<62))
}

// CheckHeartbeats refuses a run that would last until end when its
// leader's heartbeats by then (Heartbeats) pass MaxHeartbeats; what names
// the step or command that would take the run that far, members how many
// members the run has had by then (a member added at the console or by a
// step counts as if it had been there from the start: a bound, not a
// count). A scenario's validation and the console's wait and load say the
// same words.
func CheckHeartbeats(cfg *Config, members int, what string, end time.Duration) error {
	h := Heartbeats(cfg, members, end)
	if h <= MaxHeartbeats {
		return nil
	}
	n := members
	hb := HeartbeatInterval(cfg)
	most := time.Duration(float64(MaxHeartbeats) / float64(n-1) * float64(hb)).Truncate(time.Second)
	return fmt.Errorf("%s: by here the run may last %s, and its leader sends a heartbeat to each of the other %d members every %s (tick: %s × heartbeat_ticks: %d), %d heartbeats; a run may send at most %d, what 5 members send in 1000h at etcd's default 100ms, so with %d members and this interval it may last %s (every heartbeat is a message and a response, whatever else the run does)",
		what, end, n-1, hb, cfg.Tick, max(cfg.HeartbeatTicks, 1), h, MaxHeartbeats, n, most)
}
