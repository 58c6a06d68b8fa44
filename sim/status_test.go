package sim

import (
	"testing"
	"time"

	"github.com/raftsim/raftsim/server"
)

// TestCachedStatusIsCurrent reads every member's cached status at every
// instant of a run with crashes, partitions, stalls, writes and a leader
// transfer, and compares it with raft's own BasicStatus and a fresh read of
// its election timer. A call into raft that did not drop the cache would
// show here as a stale role, term, commit or timer.
func TestCachedStatusIsCurrent(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed = 4
	cfg.DiskLatency = 3 * time.Millisecond
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	script := map[int]Command{
		20:  {Kind: CmdPut, Via: "n1", Req: server.Put("a", "1")},
		40:  {Kind: CmdCrash, Node: "n2"},
		60:  {Kind: CmdPartition, Groups: [][]string{{"n1", "n3"}, {"n2", "n4", "n5"}}},
		90:  {Kind: CmdPut, Via: "n4", Req: server.Put("b", "2")},
		120: {Kind: CmdStall, Node: "n3", For: 300 * time.Millisecond},
		150: {Kind: CmdHeal},
		160: {Kind: CmdRestart, Node: "n2"},
		200: {Kind: CmdTransferLeader, Node: "n5"},
		240: {Kind: CmdGet, Via: "n3", Req: server.Get("a", false)},
	}
	compared := 0
	for step := 0; step < 400; step++ {
		if c, ok := script[step]; ok {
			_, _ = w.Do(c) // a command refused (no leader to transfer from) changes nothing
		}
		if err := w.Advance(10 * time.Millisecond); err != nil {
			t.Fatal(err)
		}
		for _, m := range w.members {
			if m.rn == nil {
				continue
			}
			got := *m.status()
			st := m.rn.BasicStatus()
			want := raftStatus{state: st.RaftState, lead: st.Lead, term: st.GetTerm(), vote: st.GetVote(),
				commit: st.GetCommit(), applied: st.Applied, leadTransferee: st.LeadTransferee,
				electionElapsed: raftField(t, m.rn, "electionElapsed")}
			if got != want {
				t.Fatalf("%s at %s: cached status %+v, raft has %+v", m.name, w.Now(), got, want)
			}
			compared++
		}
	}
	if lead, _ := w.Leader(); lead == "" || compared < 1000 {
		t.Fatalf("the run ended with leader %q after %d comparisons: it did not exercise the cache", lead, compared)
	}
}
