package sim

import (
	"fmt"
	"testing"

	"go.etcd.io/raft/v3"
)

// raftRefuses builds a RawNode with the raft.Config a member of c would
// have, and returns what raft says of it: its own validation panics (in
// newRaft) on a configuration it refuses.
func raftRefuses(c Config) (err error) {
	w := &World{cfg: c}
	m := &member{w: w, id: 1, disk: raft.NewMemoryStorage(), electionRand: stream(1, "election/x")}
	m.enter()
	defer m.leave()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	_, err = raft.NewRawNode(m.raftConfig())
	return err
}

// Config.check refuses every configuration raft's own validation refuses
// (so that a bad one is an error, not a panic inside raft), and those it
// lets through but trips over later: a run of every configuration check
// accepts goes on without a raft assertion (issue 24: max_size_per_msg: 0
// passed and then panicked in raft at the first apply).
func TestConfigCheckHasRaftsRules(t *testing.T) {
	type change struct {
		name string
		f    func(*Config)
	}
	var changes []change
	for _, v := range []int{-1, 0, 1, 2, 9, 10, 11, 1_000_000} {
		changes = append(changes, change{fmt.Sprintf("heartbeat %d", v), func(c *Config) { c.HeartbeatTicks = v }})
		changes = append(changes, change{fmt.Sprintf("election %d", v), func(c *Config) { c.ElectionTicks = v }})
		changes = append(changes, change{fmt.Sprintf("inflight %d", v), func(c *Config) { c.MaxInflightMsgs = v }})
	}
	for _, v := range []uint64{0, 1, 100, 1 << 20, 1<<64 - 1} {
		changes = append(changes, change{fmt.Sprintf("size %d", v), func(c *Config) { c.MaxSizePerMsg = v }})
	}
	for _, lease := range []bool{false, true} {
		for _, cq := range []bool{false, true} {
			changes = append(changes, change{fmt.Sprintf("lease %v check quorum %v", lease, cq), func(c *Config) { c.ReadOnlyLease, c.CheckQuorum = lease, cq }})
		}
	}
	for _, ch := range changes {
		c := DefaultConfig()
		c.Members = c.Members[:3]
		ch.f(&c)
		checkErr := c.check()
		raftErr := raftRefuses(c)
		if raftErr != nil && checkErr == nil {
			t.Errorf("%s: raft refuses it (%v), and Config.check accepts it", ch.name, raftErr)
			continue
		}
		if checkErr != nil {
			continue
		}
		// Accepted: a short run with writes, applied everywhere, trips no
		// raft assertion.
		w, err := New(c)
		if err != nil {
			t.Errorf("%s: check accepts it, New refuses it: %v", ch.name, err)
			continue
		}
		w.Advance(3 * c.Tick * 50)
		load := &LoadSpec{For: c.Tick * 20, Rate: 10, Via: []string{"n1"}, Keys: 1, Mix: LoadMix{Put: 1}}
		if _, err := w.Do(Command{Kind: CmdLoad, Load: load}); err != nil {
			if v := w.Violation(); v != nil {
				t.Errorf("%s: %v", ch.name, v)
			}
			continue
		}
		w.Advance(3 * c.Tick * 50)
		if v := w.Violation(); v != nil {
			t.Errorf("%s: accepted, and then: %v", ch.name, v)
		}
	}
}
