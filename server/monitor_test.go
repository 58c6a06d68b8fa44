package server

import "testing"

// Require-leader watches are cancelled at the third poll in a row without
// a leader (etcd's maxNoLeaderCnt), not before; a leader found starts the
// count again.
func TestLeaderMonitor(t *testing.T) {
	var lm LeaderMonitor
	polls := []struct {
		leader, cancel bool
	}{{false, false}, {false, false}, {true, false}, {false, false}, {false, false}, {false, true}, {false, true}}
	for i, p := range polls {
		if got := lm.Poll(p.leader); got != p.cancel {
			t.Fatalf("poll %d (leader %v): cancel = %v, want %v", i+1, p.leader, got, p.cancel)
		}
	}
}
