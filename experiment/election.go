package experiment

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// Tick is the tick of every experiment, but for timeout ranges with less
// than 10ms of randomness (see Range.Tick). With 1ms ticks an election
// timeout of ET ticks is ET milliseconds, and raft draws each randomized
// timeout uniformly from [ET, 2·ET) ticks: the ranges of the bottom graph
// of the paper's Figure 16.
const Tick = time.Millisecond

// FineTick is the tick of ranges with less than 10ms of randomness: the
// top graph of Figure 16 (150-150 to 150-155).
const FineTick = 100 * time.Microsecond

// Cluster is the cluster an election experiment runs on: what the Raft
// paper held fixed, and a user may vary.
type Cluster struct {
	Members     int
	Latency     netmodel.Latency // one way, between members
	DiskLatency time.Duration    // how long a write takes to become durable
	PreVote     bool
	CheckQuorum bool
	// Behind is how many of the survivors have a shorter log than the
	// others, so that they cannot win an election (-1: as many as can be
	// while the others still hold a majority with the leader).
	Behind int
	// TimerRule is etcd's raft's (sim.TimerRuleRaft, the default) or
	// LogCabin's, in which a vote request of a higher term that a member
	// rejects does not restart its election timer.
	TimerRule sim.TimerRule
}

// PaperCluster is the setup of the paper's Figure 16: five servers on a
// gigabit LAN with SSDs, here a 0.1ms one-way latency and a 3.5ms disk
// write (docs/experiments.md says where each figure comes from), two of
// the four survivors not eligible to win, and etcd's raft's timer rule.
// LogCabin had neither pre-vote nor check quorum.
func PaperCluster() Cluster {
	return Cluster{Members: 5, Latency: netmodel.Fixed(100 * time.Microsecond), DiskLatency: 3500 * time.Microsecond, Behind: -1}
}

// behind returns how many survivors are behind: c.Behind, or the most that
// leave the leader and the others a majority to commit the entry they lack.
func (c Cluster) behind() int {
	if c.Behind >= 0 {
		return c.Behind
	}
	return c.Members - 1 - c.Members/2
}

func (c Cluster) check() error {
	if c.Members < 3 || c.Members > 101 {
		// Two members less the crashed leader can never elect another.
		return fmt.Errorf("members must be between 3 and 101, not %d", c.Members)
	}
	if b, most := c.behind(), c.Members-1-c.Members/2; b > most {
		return fmt.Errorf("at most %d of %d members can be behind (the leader and the others must still commit without them), not %d", most, c.Members, b)
	}
	if c.Latency.Min < 0 || c.Latency.Max < c.Latency.Min || c.Latency.Max > time.Minute {
		return fmt.Errorf("latency must be between 0 and 1m, not %s", c.Latency)
	}
	if c.DiskLatency < 0 || c.DiskLatency > time.Minute {
		return fmt.Errorf("disk latency must be between 0 and 1m, not %s", c.DiskLatency)
	}
	return nil
}

// Range is an election-timeout range in milliseconds: each timeout is
// drawn uniformly from [Min, Max), or is Min exactly when Max equals Min.
// Max is at most 2·Min, since raft's timeout is ET ticks plus a draw below
// ET; at 2·Min it is raft's own draw, otherwise the simulator's entropy
// router shapes it (sim.Config.MaxElectionTicks). The leader's heartbeat
// interval is half the minimum, as in the paper.
type Range struct{ Min, Max int }

// PaperRanges are the ranges of the bottom graph of Figure 16, which
// scales the minimum; PaperTopRanges those of the top graph, which varies
// the randomness.
var (
	PaperRanges    = []Range{{12, 24}, {25, 50}, {50, 100}, {100, 200}, {150, 300}}
	PaperTopRanges = []Range{{150, 150}, {150, 151}, {150, 155}, {150, 175}, {150, 200}, {150, 300}}
)

// String returns the range as the paper writes it, e.g. "150-300".
func (r Range) String() string { return strconv.Itoa(r.Min) + "-" + strconv.Itoa(r.Max) }

// Tick is the tick the range's trials run on: 1ms, or 0.1ms when the
// range has less than 10ms of randomness, so that its randomness spans at
// least ten ticks. (A member's ticks run at a phase of their own, drawn for
// each trial, which blurs each timeout by up to a tick: at 1ms, 150-150
// and 150-151 would be the same range.)
func (r Range) Tick() time.Duration {
	if r.Max-r.Min < 10 {
		return FineTick
	}
	return Tick
}

// ticks converts milliseconds into the range's ticks.
func (r Range) ticks(ms int) int { return int(time.Duration(ms) * time.Millisecond / r.Tick()) }

// HeartbeatTicks is the leader's heartbeat interval in ticks.
func (r Range) HeartbeatTicks() int { return max(r.ticks(r.Min)/2, 1) }

// Heartbeat is the leader's heartbeat interval.
func (r Range) Heartbeat() time.Duration { return time.Duration(r.HeartbeatTicks()) * r.Tick() }

// ParseRange reads "12-24", "150-155" (the maximum between the minimum and
// twice the minimum) or "12" (12-24, raft's own range).
func ParseRange(s string) (Range, error) {
	lo, hi, two := strings.Cut(s, "-")
	min, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(lo), "ms"))
	if err != nil || min < 2 || min > 100000 {
		return Range{}, fmt.Errorf("bad election-timeout range %q: want MIN-MAX in milliseconds, e.g. 150-300", s)
	}
	r := Range{Min: min, Max: 2 * min}
	if two {
		max, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(hi), "ms"))
		if err != nil || max < min || max > 2*min {
			return Range{}, fmt.Errorf("bad election-timeout range %q: raft's timeout is ET plus a draw below ET, so the maximum must be between the minimum and twice the minimum (%d-%d to %d-%d)", s, min, min, min, 2*min)
		}
		r.Max = max
	}
	return r, nil
}

// Settled is a cluster with a leader whose synchronized heartbeat round has
// just gone out: the moment from which every trial forks.
type Settled struct {
	cluster Cluster
	world   *sim.World
	leader  string
	behind  []string // survivors whose logs lack the last entry
	round   sim.Time // when the heartbeat round went out
	term    uint64   // the leader's term
	// broadcast is how long the leader waited for a follower's answer to
	// the entry it replicated: a round trip and the follower's disk write.
	broadcast time.Duration
}

// BroadcastTime is the paper's broadcast time as measured while the
// cluster settled: from the leader sending its last entry to a follower
// until the follower's answer arrived (a round trip and a disk write).
func (s *Settled) BroadcastTime() time.Duration { return s.broadcast }

// Round returns when the heartbeat round the trials start from went out.
func (s *Settled) Round() sim.Time { return s.round }

// Behind returns the survivors whose logs lack the last entry.
func (s *Settled) Behind() []string { return s.behind }

// settleTicks is the election timeout while the cluster settles: long
// enough that nobody times out while the logs are being set up, whatever
// the latencies. Each trial restarts the survivors with its own.
func settleTicks(c Cluster) int {
	return max(100, int(20*(c.Latency.Max+c.DiskLatency)/Tick))
}

// Settle builds the cluster every trial starts from, deterministically from
// seed. The first member leads. The last Behind members miss the last
// entry: the leader's links to them are cut while it replicates the entry
// (the entry commits without them), and their answers to the leader stay
// cut, so the leader never learns that they are behind and never catches
// them up. Then it waits for the leader's next heartbeat round.
func Settle(c Cluster, seed uint64) (*Settled, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	cfg := settleConfig(c, seed)
	w, err := sim.New(cfg)
	if err != nil {
		return nil, err
	}
	s := &Settled{cluster: c, world: w, leader: cfg.Members[0]}
	s.behind = cfg.Members[c.Members-c.behind():]
	st := &settler{w: w, s: s, seed: seed, patience: sim.Time(100 * cfg.ElectionTicks * int(Tick))}

	st.do(sim.Command{Kind: sim.CmdCampaign, Node: s.leader})
	st.runUntil("leader known to all", st.settled(cfg.Members))
	if err := st.replicateWithoutBehind(); err != nil {
		return nil, err
	}
	st.runUntil("commit at every member that is not behind", st.settled(cfg.Members[:c.Members-len(s.behind)]))
	for _, name := range cfg.Members {
		st.do(sim.Command{Kind: sim.CmdSnapshot, Node: name}) // so that a restart has nothing to apply again
	}
	lead, _ := w.Info(s.leader)
	s.term = lead.Term
	// The next heartbeat round at which no member is writing to its disk:
	// the leader sends a MsgHeartbeat to every other member at one instant.
	// A write still in progress (the commit index the last append carried,
	// when the disk is slower than the gap from the append to the round)
	// cannot be forked: the write is raft's Ready, which a RawNode rebuilt
	// from the disk does not have. Writes end within a disk latency, and
	// rounds come every settleTicks/10 ticks, at least twice that.
	st.runUntil("heartbeat round with every disk quiet", st.quietRound(w.HistoryLen(), lead.ID))
	if st.err != nil {
		return nil, st.err
	}
	s.round = w.Now()
	// The cut links have done their work: the leader is about to crash.
	// (Healed here, once, rather than in every trial.)
	st.do(sim.Command{Kind: sim.CmdHeal})
	if st.err != nil {
		return nil, st.err
	}
	for _, b := range s.behind {
		in, _ := w.Info(b)
		if in.LastIndex >= lead.LastIndex {
			return nil, fmt.Errorf("settle: %s is not behind (last index %d, the leader's %d)", b, in.LastIndex, lead.LastIndex)
		}
	}
	return s, nil
}

// settleConfig is the configuration Settle builds the cluster with.
func settleConfig(c Cluster, seed uint64) sim.Config {
	cfg := sim.DefaultConfig()
	cfg.Seed = seed
	cfg.Members = nil
	for i := 1; i <= c.Members; i++ {
		cfg.Members = append(cfg.Members, "n"+strconv.Itoa(i))
	}
	cfg.Tick = Tick
	cfg.ElectionTicks = settleTicks(c)
	cfg.HeartbeatTicks = cfg.ElectionTicks / 10
	cfg.PreVote, cfg.CheckQuorum = true, true
	// The first member campaigns at once: no member fast-forwards its
	// timer at boot (etcd's --initial-election-tick-advance) to race it.
	cfg.InitialElectionTickAdvance = false
	cfg.Network = netmodel.LinkProps{Latency: c.Latency}
	cfg.DiskLatency = c.DiskLatency
	return cfg
}

// settler is Settle's run of the world: err keeps the first error, after
// which its waits do nothing (its commands are still carried out).
type settler struct {
	w        *sim.World
	s        *Settled
	seed     uint64
	patience sim.Time // how long a wait may take
	err      error
}

// do carries out cmd, keeping its error if it is the first.
func (st *settler) do(cmd sim.Command) *sim.Op {
	op, e := st.w.Do(cmd)
	if e != nil && st.err == nil {
		st.err = fmt.Errorf("settle: %s: %w", cmd.Kind, e)
	}
	return op
}

// runUntil steps the world until cond holds; not within patience is an
// error that names what did not come.
func (st *settler) runUntil(what string, cond func() bool) {
	w := st.w
	deadline := w.Now() + st.patience
	for st.err == nil && !cond() {
		if w.Now() > deadline {
			st.err = fmt.Errorf("settle: no %s after %s (seed=%d)", what, time.Duration(st.patience), st.seed)
			return
		}
		if e := w.StepInstant(); e != nil {
			st.err = e
		}
	}
}

// settled holds when the leader leads and each of members follows it in
// its term, with its commit index, applied.
func (st *settler) settled(members []string) func() bool {
	w := st.w
	return func() bool {
		lead, _ := w.Info(st.s.leader)
		for _, name := range members {
			in, _ := w.Info(name)
			if in.Lead != lead.ID || in.Term != lead.Term || in.Commit != lead.Commit || in.Applied != lead.Commit {
				return false
			}
		}
		return lead.Raft == raft.StateLeader
	}
}

// replicateWithoutBehind cuts the leader's links to and from the members
// that are to be behind, has the entry they lack committed without them,
// measures the broadcast time on it, and restores the leader's links to
// them (their answers stay cut).
func (st *settler) replicateWithoutBehind() error {
	s, w := st.s, st.w
	for _, b := range s.behind {
		st.do(sim.Command{Kind: sim.CmdCut, From: s.leader, To: b, OneWay: true})
		st.do(sim.Command{Kind: sim.CmdCut, From: b, To: s.leader, OneWay: true})
	}
	putAt := w.HistoryLen()
	op := st.do(sim.Command{Kind: sim.CmdPut, Via: s.leader, Req: server.Put("figure-16", "the entry two survivors lack")})
	if st.err != nil {
		return st.err
	}
	st.runUntil("commit of the entry", func() bool { return op.Status != sim.OpPending })
	if st.err == nil && op.Status != sim.OpOK {
		st.err = fmt.Errorf("settle: the entry did not commit: %s", op.Err)
	}
	s.broadcast = broadcastTime(w, putAt)
	for _, b := range s.behind {
		st.do(sim.Command{Kind: sim.CmdRestore, From: s.leader, To: b, OneWay: true})
	}
	return nil
}

// quietRound holds at an instant, after event from, when no member's
// disk is busy and the leader sent a MsgHeartbeat to every other member.
func (st *settler) quietRound(from int, leader uint64) func() bool {
	w, members := st.w, st.s.cluster.Members
	return func() bool {
		for _, in := range w.Infos() {
			if in.DiskBusy {
				return false
			}
		}
		n := 0
		for i := w.HistoryLen() - 1; i >= from; i-- {
			e := w.EventAt(i)
			if e.At != w.Now() {
				break
			}
			if e.Kind == sim.EvSend && e.Node == leader && e.Msg.Type == pb.MsgHeartbeat {
				n++
			}
		}
		return n == members-1
	}
}

// broadcastTime finds, in the history from event from on, the leader's
// first MsgApp with entries and the answer to it from the same follower.
func broadcastTime(w *sim.World, from int) time.Duration {
	var app sim.Event
	for i := from; i < w.HistoryLen(); i++ {
		e := w.EventAt(i)
		switch {
		case app.At == 0 && e.Kind == sim.EvSend && e.Msg.Type == pb.MsgApp && e.Msg.Entries > 0:
			app = e
		case app.At != 0 && e.Kind == sim.EvDeliver && e.Msg.Type == pb.MsgAppResp && e.Node == app.Node && e.Peer == app.Peer && !e.Msg.Reject:
			return time.Duration(e.At - app.At)
		}
	}
	return 0
}

// Trial is one leader crash and the election after it.
type Trial struct {
	Job   int    // the plan's job it belongs to
	Index int    // its number in the job
	Seed  uint64 // every random choice of the trial comes from it
	// CrashAfter is when the leader crashed, after its heartbeat round:
	// uniform in [0, heartbeat interval).
	CrashAfter time.Duration
	// Downtime is from the crash until every survivor has heard from the
	// new leader (the paper: "until the other servers received the new
	// leader's first heartbeat").
	Downtime time.Duration
	Leader   string
	Term     uint64
	// Elections is how many terms had a candidate; all but the last failed
	// (a split vote, or a candidate that could not win).
	Elections int
	// NoLeader says the trial gave up: no leader was known to all within
	// the trial's patience. Its Downtime is the time it waited.
	NoLeader bool `json:",omitempty"`
}

// TrialPatience is how long a trial waits for a leader before it gives
// up, unless its job says otherwise. (The paper's bottom graph ends at
// 0.6s; its top graph at 528s, for 150-150, which raftsim never elects.)
const TrialPatience = 60 * time.Second

// Trial runs one trial with election-timeout range r and the given seed:
// a copy of the settled cluster in which the survivors restart with r's
// election timeout, the leader crashes at a uniformly random moment of its
// heartbeat interval, and the survivors elect a new one.
//
// NB: the copy is taken at the heartbeat round, with the leader already
// down, and the crash time is drawn on top. Between its heartbeat round and
// its crash the leader would only hear heartbeat answers from followers
// that are up to date, to which raft sends nothing, and the answers of the
// members behind are cut: nothing it would do could reach a survivor, so
// the survivors' run is the same for every crash time in the interval.
func (s *Settled) Trial(r Range, seed uint64, patience time.Duration) (Trial, error) {
	t := Trial{Seed: seed}
	cfg := s.world.Config()
	cfg.Seed = t.Seed
	cfg.Tick = r.Tick()
	cfg.ElectionTicks, cfg.HeartbeatTicks = r.ticks(r.Min), r.HeartbeatTicks()
	cfg.MaxElectionTicks = 0 // raft's own draw
	if r.Max != 2*r.Min {
		cfg.MaxElectionTicks = r.ticks(r.Max)
	}
	cfg.PreVote, cfg.CheckQuorum = s.cluster.PreVote, s.cluster.CheckQuorum
	cfg.TimerRule = s.cluster.TimerRule
	w, err := s.world.Fork(cfg, s.leader)
	if err != nil {
		return t, err
	}
	hb := r.Heartbeat()
	crash := rand.New(rand.NewPCG(t.Seed, 0x63726173682d6174)) // "crash-at"
	t.CrashAfter = time.Duration(crash.Int64N(int64(hb)))
	crashAt := s.round.Add(t.CrashAfter)

	deadline := s.round + sim.Time(patience)
	seen := w.HistoryLen()
	for {
		if err := w.StepInstant(); err != nil {
			return t, err
		}
		// Whom a member follows changes only with a role event: an instant
		// that recorded nothing (most are ticks) changes nothing.
		if n := w.HistoryLen(); n != seen {
			seen = n
			if name, term, ok := w.FollowedLeader(); ok && term > s.term {
				t.Leader, t.Term = name, term
				break
			}
		}
		if w.Now() >= deadline {
			// Given up: counted as the time waited, and marked.
			t.NoLeader = true
			break
		}
	}
	if w.Now() < crashAt {
		return t, fmt.Errorf("trial of %s: a leader was known before the crash (trial seed=%d)", r, t.Seed)
	}
	t.Downtime = time.Duration(w.Now() - crashAt)
	t.Elections = int(t.Term - s.term) // each term after the crash began with a candidate
	if t.NoLeader {
		var term uint64
		for _, in := range w.Infos() {
			term = max(term, in.Term)
		}
		t.Elections = int(term - s.term)
	}
	return t, nil
}
