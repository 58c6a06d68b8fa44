package sim

import (
	"reflect"
	"testing"
)

// TestForkCopiesEveryField: a fork must decide, for every field of a
// member, whether the process going on keeps it (forkMember copies it) or
// a rebuilt RawNode resets it (resume sets it, or it starts empty). A new
// field fails this test until it is added to one of the lists, and to
// fork.go.
func TestForkCopiesEveryField(t *testing.T) {
	copied := []string{"w", "id", "memberID", "name", "peerURL", "clientURL", "inc", "removed", "tickEvery", "rate", "clockBase", "clockSince",
		"ticks", "electionRand", "clockRand", "disk", "conf", "hard", "log", "snap", "leaderTerm", "leaderHigh",
		"leaderMonitor", "leaseLoop", "ids", "commitSeen", "lastRole", "unsynced", "peers", "started", "leadElected", "backend",
		"group", "dataDir", "noData", "dirs"}
	resumed := []string{"up", "rn", "cluster", "kv", "watches", "applied", "ready", "publishing", "wantVersion", "wantNoSpace", "advancePolls",
		"writes", "confOrigins", "soft", "timeoutTicks", "st", "statusValid", "snapHeld"}
	// Empty in a world Fork accepts (not stalled, no disk write in progress,
	// no request pending, no watch or lease keep-alive): empty in the copy.
	empty := []string{"stalled", "queue", "diskBusy", "pending", "checkLeader", "unready", "held", "reads", "leaseWaits", "confSnapDue"}
	known := map[string]bool{}
	for _, l := range [][]string{copied, resumed, empty} {
		for _, f := range l {
			known[f] = true
		}
	}
	typ := reflect.TypeFor[member]()
	for i := range typ.NumField() {
		if name := typ.Field(i).Name; !known[name] {
			t.Errorf("member.%s: does a fork copy it, reset it, or need it empty? (fork.go, and this test)", name)
		}
		delete(known, typ.Field(i).Name)
	}
	for name := range known {
		t.Errorf("member.%s is listed here but is no longer a field", name)
	}
}
