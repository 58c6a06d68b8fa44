package sim

import (
	"fmt"
	"math"
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
	// lets 10,000 puts through with 3 members.
	MaxSnapshotWork = 300_000_000
)

// LoadLimit returns the most requests the loads of a run with cfg may
// send, when their rates add up to rate a second and their keys to keys,
// and writes other steps (puts, deletes, transactions) write too; and,
// when a rule less than MaxLoadRequests bounds it, why. It is
// LoadRequestLimit's, shared out among more than loadMembers members, and
// no more than lets the members' snapshots encode at most MaxSnapshotWork
// revisions in all. It can be negative: writes alone pass the snapshots'
// bound.
func LoadLimit(cfg *Config, rate, keys, writes int) (int, string) {
	most, why := LoadRequestLimit(cfg, rate)
	compacted := why == ""
	n := max(len(cfg.Members), 1)
	if n > loadMembers {
		why = fmt.Sprintf("with %d members: each keeps and applies every request, so past %d members, members × requests is at most 3 × %d", n, loadMembers, most)
		most = most * 3 / n
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
