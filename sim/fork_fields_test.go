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
		"srv.LeaderMonitor", "srv.LeaseLoop", "srv.IDs", "commitSeen", "lastRole", "unsynced", "peers", "started", "leadElected", "srv.Backend",
		"group", "dataDir", "noData", "dirs"}
	resumed := []string{"up", "rn", "cluster", "srv.KV", "srv.Watches", "applied", "ready", "publishing", "wantVersion", "wantNoSpace", "advancePolls",
		"srv.Wait", "confOrigins", "soft", "timeoutTicks", "st", "statusValid", "snapHeld"}
	// Empty in a world Fork accepts (not stalled, no disk write in progress,
	// no request pending, no watch or lease keep-alive): empty in the copy.
	empty := []string{"stalled", "queue", "diskBusy", "pending", "checkLeader", "srv.Unready", "srv.Held", "srv.Reads", "srv.LeaseWaits", "confSnapDue"}
	known := map[string]bool{}
	for _, l := range [][]string{copied, resumed, empty} {
		for _, f := range l {
			known[f] = true
		}
	}
	// The server layer's fields (member.srv) are listed one by one, as
	// srv.Field.
	var fields []string
	typ := reflect.TypeFor[member]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		switch {
		case f.Anonymous:
			// A role (bugs.go, boot.go, ...): its fields are listed by
			// name, as the member's own; its pointer back to the member
			// is set by attachRoles.
			for j := range f.Type.NumField() {
				if name := f.Type.Field(j).Name; name != "m" {
					fields = append(fields, name)
				}
			}
		case f.Name != "srv":
			fields = append(fields, f.Name)
		}
	}
	srv := reflect.TypeFor[serverMember]()
	for i := range srv.NumField() {
		fields = append(fields, "srv."+srv.Field(i).Name)
	}
	for _, name := range fields {
		if !known[name] {
			t.Errorf("member.%s: does a fork copy it, reset it, or need it empty? (fork.go, and this test)", name)
		}
		delete(known, name)
	}
	for name := range known {
		t.Errorf("member.%s is listed here but is no longer a field", name)
	}
}
