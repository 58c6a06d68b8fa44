package experiment

import (
	"slices"
	"testing"
	"time"

	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/sim"
)

// TestSetupIsThePapers checks the paper's setup: five members; the trials
// start from a heartbeat round the leader sent to every follower at one
// instant; two of the four survivors lack the last entry and so never win;
// the leader crashes within its heartbeat interval, before any survivor's
// timer can fire; and the time runs until every survivor follows the new
// leader.
func TestSetupIsThePapers(t *testing.T) {
	c := PaperCluster()
	s, err := Settle(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	w := s.world
	if len(w.Infos()) != 5 {
		t.Fatalf("%d members, want 5", len(w.Infos()))
	}
	// The heartbeat round: a MsgHeartbeat to every other member, at once.
	got := map[uint64]bool{}
	for i := w.HistoryLen() - 1; i >= 0; i-- {
		e := w.EventAt(i)
		if e.At < s.round {
			break
		}
		if e.Kind == sim.EvSend && e.Msg.Type == pb.MsgHeartbeat && e.Node == 1 && e.At == s.round {
			got[e.Peer] = true
		}
	}
	if len(got) != 4 {
		t.Fatalf("the leader sent a heartbeat to %d members at %s, want 4", len(got), s.round)
	}
	if b := s.Behind(); !slices.Equal(b, []string{"n4", "n5"}) {
		t.Fatalf("behind: %v, want two of the four survivors", b)
	}
	lead, _ := w.Info("n1")
	for _, name := range []string{"n2", "n3", "n4", "n5"} {
		in, _ := w.Info(name)
		behind := slices.Contains(s.Behind(), name)
		if behind != (in.LastIndex < lead.LastIndex) {
			t.Errorf("%s: last index %d, the leader's %d (behind: %v)", name, in.LastIndex, lead.LastIndex, behind)
		}
	}
	if bt := s.BroadcastTime(); bt != 3700*time.Microsecond {
		t.Errorf("broadcast time %s, want 3.7ms (a 0.2ms round trip and a 3.5ms disk write)", bt)
	}

	for _, r := range []Range{{12, 24}, {150, 300}} {
		hb := r.Heartbeat()
		for i := range 30 {
			tr, err := s.Trial(r, TrialSeed(1, r.String(), i), TrialPatience)
			if err != nil {
				t.Fatal(err) // includes "a leader was known before the crash"
			}
			if tr.CrashAfter < 0 || tr.CrashAfter >= hb {
				t.Errorf("%s trial %d: crash %s after the heartbeat round, outside its interval %s", r, i, tr.CrashAfter, hb)
			}
			if slices.Contains(s.Behind(), tr.Leader) || tr.Leader == "n1" {
				t.Errorf("%s trial %d: %s won, but it is behind or crashed", r, i, tr.Leader)
			}
			// The earliest a survivor can time out: its timer starts when
			// the heartbeat arrives and needs at least r.Min ticks.
			if least := time.Duration(r.Min)*Tick + c.Latency.Min - hb; tr.Downtime < least-Tick {
				t.Errorf("%s trial %d: downtime %s, less than a timeout allows (%s)", r, i, tr.Downtime, least)
			}
		}
	}
}

// TestTrialsAreIndependentOfOrder: a trial's result depends only on its
// seed, not on the trials run before it from the same settled cluster.
func TestTrialsAreIndependentOfOrder(t *testing.T) {
	s, err := Settle(PaperCluster(), 3)
	if err != nil {
		t.Fatal(err)
	}
	r := Range{25, 50}
	first, err := s.Trial(r, 42, TrialPatience)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := s.Trial(r, uint64(i), TrialPatience); err != nil {
			t.Fatal(err)
		}
	}
	again, err := s.Trial(r, 42, TrialPatience)
	if err != nil {
		t.Fatal(err)
	}
	if first != again {
		t.Errorf("the same trial gave %+v, then %+v", first, again)
	}
}

func TestParseRange(t *testing.T) {
	for in, want := range map[string]Range{"12-24": {12, 24}, "150-300": {150, 300}, "150": {150, 300}, "25ms-50ms": {25, 50},
		"150-150": {150, 150}, "150-155": {150, 155}} {
		if got, err := ParseRange(in); err != nil || got != want {
			t.Errorf("ParseRange(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"150-149", "150-301", "x", "0-0", "1-2", ""} {
		if _, err := ParseRange(in); err == nil {
			t.Errorf("ParseRange(%q) took it", in)
		}
	}
	if got := (Range{25, 50}).String(); got != "25-50" {
		t.Errorf("Range{25, 50} = %q", got)
	}
}

// TestSettleForksOnAnyLatencyAndDisk: for a grid of one-way latencies and
// disk writes (the pairs that once aborted with "fork: n2 has a disk write
// in progress" among them), the cluster settles at a heartbeat round that
// can be forked, and a trial elects a leader that is not behind. (150-300
// only: an election of three one-way trips and two writes cannot finish
// within a 12ms timeout at 15ms one way, and such a trial waits 60s.)
func TestSettleForksOnAnyLatencyAndDisk(t *testing.T) {
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	latencies := []time.Duration{ms(0.1), ms(0.2), ms(0.5), ms(1), ms(2), ms(5), ms(7), ms(15)}
	disks := []time.Duration{0, ms(0.1), ms(0.5), ms(1), ms(2), ms(5), ms(8), ms(20)}
	for _, lat := range latencies {
		for _, disk := range disks {
			c := PaperCluster()
			c.Latency, c.DiskLatency = netmodel.Fixed(lat), disk
			s, err := Settle(c, 1)
			if err != nil {
				t.Errorf("latency %s, disk %s: %v", lat, disk, err)
				continue
			}
			for _, in := range s.world.Infos() {
				if in.DiskBusy {
					t.Errorf("latency %s, disk %s: %s is writing at the heartbeat round", lat, disk, in.Name)
				}
			}
			tr, err := s.Trial(Range{150, 300}, TrialSeed(1, "150-300", 0), TrialPatience)
			if err != nil {
				t.Errorf("latency %s, disk %s: %v", lat, disk, err)
				continue
			}
			if tr.NoLeader || tr.Leader == "n1" || slices.Contains(s.Behind(), tr.Leader) {
				t.Errorf("latency %s, disk %s: %+v", lat, disk, tr)
			}
		}
	}
}

// TestTimerRuleChangesOnlyFailedElections: LogCabin's timer rule differs
// from etcd's raft's only when a member rejects a vote request of a higher
// term, which in these trials happens only when an election fails. So a
// trial that took one election under raft's rule runs exactly the same
// under LogCabin's (the same seed), and trials with failed elections end
// sooner on the whole.
func TestTimerRuleChangesOnlyFailedElections(t *testing.T) {
	raftRule, logCabin := PaperCluster(), PaperCluster()
	logCabin.TimerRule = sim.TimerRuleLogCabin
	a, err := Settle(raftRule, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Settle(logCabin, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Range{{12, 24}, {150, 300}, {150, 175}} {
		var single, failed int
		var sumA, sumB time.Duration
		for i := range 60 {
			seed := TrialSeed(1, r.String(), i)
			ta, err := a.Trial(r, seed, TrialPatience)
			if err != nil {
				t.Fatal(err)
			}
			tb, err := b.Trial(r, seed, TrialPatience)
			if err != nil {
				t.Fatal(err)
			}
			if ta.Elections == 1 {
				single++
				if ta != tb {
					t.Errorf("%s trial %d took one election, yet differs: raft's rule %+v, LogCabin's %+v", r, i, ta, tb)
				}
				continue
			}
			failed++
			sumA, sumB = sumA+ta.Downtime, sumB+tb.Downtime
		}
		if single == 0 || failed == 0 {
			t.Fatalf("%s: %d trials with one election, %d with more", r, single, failed)
		}
		if sumB >= sumA {
			t.Errorf("%s: trials with failed elections took %s under LogCabin's rule, %s under raft's", r, sumB/time.Duration(failed), sumA/time.Duration(failed))
		}
	}
}

// TestShapedRanges: a range of the top graph runs on the ticks its
// randomness needs, with the heartbeat at half its minimum, and elects a
// leader that is not behind; its crash falls within the heartbeat.
func TestShapedRanges(t *testing.T) {
	for r, tick := range map[Range]time.Duration{{150, 150}: FineTick, {150, 155}: FineTick, {150, 175}: Tick, {12, 24}: Tick} {
		if r.Tick() != tick || r.Heartbeat() != time.Duration(r.Min)*time.Millisecond/2 {
			t.Errorf("%s: tick %s, heartbeat %s", r, r.Tick(), r.Heartbeat())
		}
	}
	s, err := Settle(PaperCluster(), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Range{{150, 155}, {150, 175}} {
		for i := range 5 {
			tr, err := s.Trial(r, TrialSeed(1, r.String(), i), TrialPatience)
			if err != nil {
				t.Fatal(err)
			}
			if tr.NoLeader || slices.Contains(s.Behind(), tr.Leader) || tr.CrashAfter >= r.Heartbeat() {
				t.Errorf("%s trial %d: %+v", r, i, tr)
			}
			// No timeout is shorter than the minimum: the earliest leader
			// comes after it, less the heartbeat the crash may follow.
			if least := 150*time.Millisecond - r.Heartbeat(); tr.Downtime < least {
				t.Errorf("%s trial %d: downtime %s, below %s", r, i, tr.Downtime, least)
			}
		}
	}
}
