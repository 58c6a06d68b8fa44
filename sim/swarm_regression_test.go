package sim

import (
	"testing"
	"time"

	"github.com/raftsim/raftsim/netmodel"
)

// Found by raftsim swarm (seed 6835 of 10,000): a leader asked to remove
// itself, and stalled before the removal committed, queued its followers'
// acknowledgements. On resuming it worked through its queue, committed and
// applied its own removal and shut down, and the rest of the queue was
// stepped into a RawNode that was gone: a nil pointer panic. What is left
// of the queue must die with the member, as at a crash.
func TestStalledLeaderRemovedWhileCatchingUp(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		w := reviewWorld(t, 3, func(c *Config) { c.Seed = seed })
		lead := reviewLeader(t, w)
		if _, err := w.Do(Command{Kind: CmdRemoveMember, Node: lead.name}); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if _, err := w.Do(Command{Kind: CmdStall, Node: lead.name, For: time.Second}); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if err := w.Advance(3 * time.Second); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !lead.removed || lead.up {
			t.Fatalf("seed %d: %s did not apply its removal and shut down (removed %v, up %v)", seed, lead.name, lead.removed, lead.up)
		}
		dropped := 0
		for i := range w.HistoryLen() {
			if e := w.EventAt(i); e.Kind == EvDrop && e.Reason == netmodel.DropDown {
				dropped++
			}
		}
		if seed == 1 && dropped == 0 {
			t.Errorf("seed %d: no message queued at %s was dropped when it shut down; the test no longer covers the case", seed, lead.name)
		}
	}
}
