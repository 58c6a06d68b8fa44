package swarm

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/etcdctl"
	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// The shape of every seed's run: requests and faults from the start up to
// Options.Duration, then the final heal and the liveness checks.
const (
	firstFault = time.Second // the first leader is elected in about a second
	// leaderWithin is how long after the final heal a leader must be known.
	// NB: without PreVote a member whose log fell behind keeps starting
	// elections it cannot win, and each one resets the others' timers:
	// raft elects a leader only when an up-to-date member times out
	// first, which took more than 10s in one seed of 10,000 (seed 8407).
	// Within 30s it needs three times as many unlucky rounds in a row.
	leaderWithin = 30 * time.Second
	// settle is how long the run goes on once there is a leader, so that
	// every request still pending ends (a client gives up after 7s at
	// most): one that does not is a liveness failure.
	settle = sim.DefaultClientTimeout + time.Second
)

// maxScheduledMembers bounds the cluster as a seed's schedule knows it:
// a membership fault adds a member only while fewer are there. Without
// it a long seed added one at most membership faults: seed 1 at
// --duration 1h --rate 10 added 1,409, and its run peaked at 1.41 GiB
// (issue 29). Three times MaxMembers: in seeds 1 to 20,000 of the default
// options (members 1 to 9, 20s) the most a schedule reached was 26, so
// those seeds are as they were.
const maxScheduledMembers = 3 * MaxMembers

// failoverClient is the client with every bootstrap member as an endpoint,
// like etcdctl or an apiserver of an external etcd; the others are the
// kube-apiservers of a stacked control plane, one bound to each member.
const failoverClient = "etcdctl"

// Profile is what a seed drew: its faults and the rates of its schedule, in
// words, for a failure's report and a reproducer's summary.
type Profile struct {
	Members  int
	Faults   []Fault
	Requests []Request
	FaultGap time.Duration // mean time between faults
	Rate     float64       // mean requests per virtual second
}

func (p Profile) String() string {
	return fmt.Sprintf("%d members; faults %s every %s on average; %s at %.1f requests/s",
		p.Members, kindList(p.Faults, AllFaults), p.FaultGap, kindList(p.Requests, AllRequests), p.Rate)
}

// Generate turns a seed into a scenario: a cluster, a fault profile and
// schedule, a workload, the final heal and the liveness checks, all drawn
// from the seed. The same seed and options always give the same scenario.
func Generate(seed uint64, o Options) (*scenarios.Scenario, Profile) {
	g := &gen{
		rng:  rand.New(rand.NewPCG(seed, 0x5a4d)), // "swarm"
		opts: o,
	}
	return g.scenario(seed), g.profile
}

type gen struct {
	rng     *rand.Rand
	opts    Options
	profile Profile
	s       *scenarios.Scenario

	members  []string // bootstrap members
	current  []string // members now, as far as the schedule knows
	added    int      // members added so far
	removed  int      // members removed so far
	vars     int      // let variables bound so far
	requests int      // requests so far, for labels and values

	// What the final heal has to undo.
	crashed  []scenarios.NodeRef // crashed and not restarted
	skewed   []string            // clocks not back to 1
	linkBase netmodel.LinkProps  // the network's default, which link faults change
	links    bool                // a link's properties changed

	steps []timedStep
}

// timedStep is a group of steps that run at one time: a fault and the
// let that names its target stay together, so that shrinking keeps or
// drops them as one.
type timedStep struct {
	at    time.Duration
	steps []scenarios.Step
}

func (g *gen) scenario(seed uint64) *scenarios.Scenario {
	g.profile.Members = g.opts.Members[g.rng.IntN(len(g.opts.Members))]
	for _, f := range g.opts.Faults {
		if g.rng.IntN(2) == 0 {
			g.profile.Faults = append(g.profile.Faults, f)
		}
	}
	for _, r := range g.opts.Requests {
		if g.rng.IntN(3) > 0 { // requests are cheap: most kinds are on
			g.profile.Requests = append(g.profile.Requests, r)
		}
	}
	g.profile.FaultGap = g.millis(300, 3000)
	g.profile.Rate = float64(g.opts.RequestsPerSecond) * (0.1 + 0.9*g.rng.Float64())

	file := "swarm-seed-" + strconv.FormatUint(seed, 10)
	g.s = &scenarios.Scenario{
		Name: file, Seed: seed, SeedSet: true,
		Title:  scenarios.Text{En: fmt.Sprintf("Swarm seed %d", seed)},
		Config: g.config(seed),
	}
	g.faults()
	g.workload()
	slices.SortStableFunc(g.steps, func(a, b timedStep) int { return cmp.Compare(a.at, b.at) })
	finale := g.finale()
	n := len(finale)
	for _, ts := range g.steps {
		n += len(ts.steps)
	}
	// A Step is large: growing the list by appending was a quarter of
	// what a swarm seed allocated.
	g.s.Steps = make([]scenarios.Step, 0, n)
	for _, ts := range g.steps {
		for _, st := range ts.steps {
			at := ts.at
			st.At = &at
			g.s.Steps = append(g.s.Steps, st)
		}
	}
	g.s.Steps = append(g.s.Steps, finale...)
	for i := range g.s.Steps {
		g.s.Steps[i].Pos = scenarios.Pos{File: file, Line: i + 1, Col: 1}
	}
	return g.s
}

func (g *gen) config(seed uint64) sim.Config {
	c := sim.DefaultConfig()
	c.Seed = seed
	c.Members = nil
	for i := range g.profile.Members {
		c.Members = append(c.Members, "etcd-"+strconv.Itoa(i+1))
	}
	g.members = slices.Clone(c.Members)
	g.current = slices.Clone(c.Members)
	// A stacked control plane (apiserver-K bound to etcd-K) and one client
	// that fails over across every member.
	c.Topology = "stacked"
	c.Clients = []sim.ClientConfig{{Name: failoverClient, Endpoints: slices.Clone(c.Members), Timeout: sim.DefaultClientTimeout}}
	// PreVote and CheckQuorum are etcd's defaults; without them raft is
	// still safe, and the swarm checks that too.
	c.PreVote = g.rng.IntN(5) > 0
	c.CheckQuorum = g.rng.IntN(5) > 0
	lo := g.millis(1, 10)
	c.Network = netmodel.LinkProps{Latency: netmodel.Latency{Min: lo, Max: lo + g.millis(0, 20)}}
	if g.rng.IntN(2) == 0 {
		// Half the seeds give each link a fixed latency of its own, and so
		// draw no randomness for delays: deleting a message then moves
		// nothing else, and failures shrink much further.
		c.Network.Latency = netmodel.Fixed(lo)
		for _, from := range c.Members {
			for _, to := range c.Members {
				if from != to {
					l := netmodel.Fixed(g.millis(1, 20))
					c.Links = append(c.Links, sim.LinkOverride{From: from, To: to, Latency: &l, OneWay: true})
				}
			}
		}
	}
	if g.has(FaultLoss) && g.rng.IntN(2) == 0 {
		c.Network.Loss = netmodel.Ratio{Num: uint64(g.rng.IntN(50) + 1), Den: 1000}
	}
	if g.has(FaultDuplicate) && g.rng.IntN(2) == 0 {
		c.Network.Duplicate = netmodel.Ratio{Num: uint64(g.rng.IntN(50) + 1), Den: 1000}
	}
	if g.has(FaultDisk) {
		c.DiskLatency = g.millis(1, 30)
	}
	if g.has(FaultSnapshot) && g.rng.IntN(2) == 0 {
		c.SnapshotEvery = uint64(5 + g.rng.IntN(60))
	}
	c.Bugs = slices.Clone(g.opts.Bugs)
	g.linkBase = c.Network
	return c
}

func (g *gen) has(f Fault) bool { return slices.Contains(g.profile.Faults, f) }

// millis draws a duration from lo to hi milliseconds.
func (g *gen) millis(lo, hi int) time.Duration {
	return time.Duration(lo+g.rng.IntN(hi-lo+1)) * time.Millisecond
}

// gap draws the time to the next event of a process with mean gap mean,
// to the millisecond.
func (g *gen) gap(mean time.Duration) time.Duration {
	d := time.Duration(g.rng.ExpFloat64() * float64(mean))
	return max(d.Round(time.Millisecond), time.Millisecond)
}

func (g *gen) add(at time.Duration, steps ...scenarios.Step) {
	for i := range steps {
		steps[i].Both = true // what the parser gives every step
	}
	g.steps = append(g.steps, timedStep{at: at, steps: steps})
}

func name(n string) scenarios.NodeRef { return scenarios.NodeRef{Kind: scenarios.RefName, Name: n} }

func names(ns []string) []scenarios.NodeRef {
	out := make([]scenarios.NodeRef, len(ns))
	for i, n := range ns {
		out[i] = name(n)
	}
	return out
}

// member draws a member of the current cluster.
func (g *gen) member() string { return g.current[g.rng.IntN(len(g.current))] }

// target draws the member a fault acts on: the leader half the time (the
// leader is where most of raft's work, and of its bugs, is), bound with let
// so that the fault's recovery finds the same member.
func (g *gen) target() (scenarios.NodeRef, []scenarios.Step) {
	if g.rng.IntN(2) == 0 {
		return name(g.member()), nil
	}
	g.vars++
	v := "leader" + strconv.Itoa(g.vars)
	let := scenarios.Step{Kind: scenarios.StepLet, Bindings: []scenarios.Binding{
		{Name: v, Refs: []scenarios.NodeRef{{Kind: scenarios.RefLeader}}}}}
	return scenarios.NodeRef{Kind: scenarios.RefVar, Name: v}, []scenarios.Step{let}
}

// split draws two non-empty groups of the current members, in member order.
func (g *gen) split(of []string) (a, b []string) {
	for {
		a, b = nil, nil
		for _, m := range of {
			if g.rng.IntN(2) == 0 {
				a = append(a, m)
			} else {
				b = append(b, m)
			}
		}
		if len(a) > 0 && len(b) > 0 {
			return a, b
		}
	}
}

func (g *gen) faults() {
	if len(g.profile.Faults) == 0 {
		return
	}
	for t := firstFault + g.gap(g.profile.FaultGap); t < g.opts.Duration; t += g.gap(g.profile.FaultGap) {
		g.fault(t, g.profile.Faults[g.rng.IntN(len(g.profile.Faults))])
	}
}

// fault schedules one fault at t, and its recovery if it has one and it
// comes before the final heal.
func (g *gen) fault(t time.Duration, f Fault) {
	lasts := g.millis(200, 5000)
	later := func(steps ...scenarios.Step) {
		if t+lasts < g.opts.Duration {
			g.add(t+lasts, steps...)
		}
	}
	heal := scenarios.Step{Kind: scenarios.StepHeal}
	switch f {
	case FaultPartition:
		if len(g.current) < 2 {
			return
		}
		a, b := g.split(g.current)
		g.add(t, scenarios.Step{Kind: scenarios.StepPartition, Groups: [][]scenarios.NodeRef{names(a), names(b)}})
		later(heal)
	case FaultIsolate:
		ref, let := g.target()
		g.add(t, append(let, scenarios.Step{Kind: scenarios.StepIsolate, Nodes: []scenarios.NodeRef{ref}})...)
		later(heal)
	case FaultPartial:
		// Bootstrap members only: a step acts on each pair in turn, and a
		// member whose add was refused would fail it half done, which a
		// reproducer could not leave out (a partition is checked whole
		// first, so it may name every member).
		if len(g.members) < 3 {
			return
		}
		bridge := g.members[g.rng.IntN(len(g.members))]
		a, b := g.split(slices.DeleteFunc(slices.Clone(g.members), func(m string) bool { return m == bridge }))
		g.add(t, scenarios.Step{Kind: scenarios.StepCut, From: names(a), To: names(b)})
		later(heal)
	case FaultOneWay:
		if len(g.current) < 2 {
			return
		}
		from := g.member()
		to := from
		for to == from {
			to = g.member()
		}
		g.add(t, scenarios.Step{Kind: scenarios.StepCut, From: []scenarios.NodeRef{name(from)}, To: []scenarios.NodeRef{name(to)}})
		g.steps[len(g.steps)-1].steps[0].Both = false
		st := scenarios.Step{Kind: scenarios.StepRestore, From: []scenarios.NodeRef{name(from)}, To: []scenarios.NodeRef{name(to)}}
		if t+lasts < g.opts.Duration {
			g.add(t+lasts, st)
			g.steps[len(g.steps)-1].steps[0].Both = false
		}
	case FaultCrash:
		ref, let := g.target()
		g.add(t, append(let, scenarios.Step{Kind: scenarios.StepCrash, Nodes: []scenarios.NodeRef{ref}})...)
		if g.rng.IntN(7) > 0 && t+lasts < g.opts.Duration {
			g.add(t+lasts, scenarios.Step{Kind: scenarios.StepRestart, Nodes: []scenarios.NodeRef{ref}})
		} else if !slices.Contains(g.crashed, ref) {
			g.crashed = append(g.crashed, ref)
		}
	case FaultStall:
		ref := name(g.member())
		if g.rng.IntN(2) == 0 {
			ref = scenarios.NodeRef{Kind: scenarios.RefLeader}
		}
		g.add(t, scenarios.Step{Kind: scenarios.StepStall, Nodes: []scenarios.NodeRef{ref}, For: g.millis(100, 3000)})
	case FaultClock:
		m := g.member()
		rate := float64(25+g.rng.IntN(376)) / 100 // 0.25 to 4
		g.add(t, scenarios.Step{Kind: scenarios.StepClock, Nodes: []scenarios.NodeRef{name(m)}, Rate: rate})
		if t+lasts < g.opts.Duration {
			g.add(t+lasts, scenarios.Step{Kind: scenarios.StepClock, Nodes: []scenarios.NodeRef{name(m)}, Rate: 1})
		} else if !slices.Contains(g.skewed, m) {
			g.skewed = append(g.skewed, m)
		}
	case FaultLoss, FaultDuplicate, FaultLatency:
		g.linkFault(t, f, lasts)
	case FaultMembership:
		g.membership(t, lasts)
	case FaultTransfer:
		g.add(t, scenarios.Step{Kind: scenarios.StepTransferLeader, To: []scenarios.NodeRef{name(g.member())}})
	case FaultCampaign:
		g.add(t, scenarios.Step{Kind: scenarios.StepCampaign, Nodes: []scenarios.NodeRef{name(g.member())}})
	case FaultSnapshot:
		g.add(t, scenarios.Step{Kind: scenarios.StepSnapshot, Nodes: []scenarios.NodeRef{name(g.member())}})
	case FaultDisk:
		// Disk latency is drawn with the cluster; crashes then lose what
		// was still being written.
	}
}

// linkFault makes the links of one bootstrap member to the others (or one
// of them) lossy, duplicating or slow, and later puts them back.
func (g *gen) linkFault(t time.Duration, f Fault, lasts time.Duration) {
	from := g.members[g.rng.IntN(len(g.members))]
	others := slices.DeleteFunc(slices.Clone(g.members), func(m string) bool { return m == from })
	if len(others) == 0 {
		return
	}
	to := others
	if g.rng.IntN(2) == 0 {
		to = []string{others[g.rng.IntN(len(others))]}
	}
	st := scenarios.Step{Kind: scenarios.StepLink, From: []scenarios.NodeRef{name(from)}, To: names(to)}
	back := st
	switch f {
	case FaultLoss:
		st.Loss = &netmodel.Ratio{Num: uint64(10 + g.rng.IntN(71)), Den: 100}
		back.Loss = &g.linkBase.Loss
	case FaultDuplicate:
		st.Duplicate = &netmodel.Ratio{Num: uint64(10 + g.rng.IntN(71)), Den: 100}
		back.Duplicate = &g.linkBase.Duplicate
	case FaultLatency:
		lo := g.millis(50, 500)
		st.Latency = &netmodel.Latency{Min: lo, Max: lo + g.millis(0, 300)}
		back.Latency = &g.linkBase.Latency
	}
	g.links = true
	g.add(t, st)
	if t+lasts < g.opts.Duration {
		g.add(t+lasts, back)
	}
}

// membership adds a member (a learner, promoted later, or a voter), or
// removes one, keeping at least two members as far as the schedule knows.
func (g *gen) membership(t, lasts time.Duration) {
	// NB: removing a member from two voters can wedge a cluster for good,
	// in etcd as here: if the leader is the one removed, it shuts down once
	// it applies the change, and the other may never learn that the change
	// committed, so it still needs the removed member's vote (found by the
	// swarm, seeds 3640 and 5832). A schedule cannot count the voters (an
	// add may be refused when it runs), so it removes at most all but two
	// of the bootstrap members: at least two voters stay, whatever else
	// happens.
	if g.removed < len(g.members)-2 && g.rng.IntN(3) == 0 {
		g.removed++
		ref, let := g.target()
		if ref.Kind == scenarios.RefName {
			g.current = slices.DeleteFunc(g.current, func(m string) bool { return m == ref.Name })
		}
		g.add(t, append(let, scenarios.Step{Kind: scenarios.StepRemoveMember, Nodes: []scenarios.NodeRef{ref}})...)
		return
	}
	if len(g.current) >= maxScheduledMembers {
		return // before any draw, so that a seed below the bound is as it was
	}
	g.added++
	m := "etcd-" + strconv.Itoa(len(g.members)+g.added)
	learner := g.rng.IntN(3) > 0
	g.add(t, scenarios.Step{Kind: scenarios.StepAddMember, Name: m, Learner: learner, Start: true})
	g.current = append(g.current, m)
	if learner && t+lasts < g.opts.Duration {
		g.add(t+lasts, scenarios.Step{Kind: scenarios.StepPromote, Nodes: []scenarios.NodeRef{name(m)}})
	}
}

// workload draws the client requests: a Poisson process of the seed's
// rate, each request of a kind, through a client, on a key drawn from a
// few, so that requests on one key overlap. Every value written is unique,
// which keeps the linearizability check fast and its verdict readable.
func (g *gen) workload() {
	if len(g.profile.Requests) == 0 || g.profile.Rate <= 0 {
		return
	}
	keys := 2 + g.rng.IntN(7)
	mean := time.Duration(float64(time.Second) / g.profile.Rate)
	via := append(slices.Clone(g.members), failoverClient)
	written := map[string][]string{} // the values put to each key so far
	for t := 500*time.Millisecond + g.gap(mean); t < g.opts.Duration; t += g.gap(mean) {
		g.requests++
		kind := g.profile.Requests[g.rng.IntN(len(g.profile.Requests))]
		key := "/k" + strconv.Itoa(g.rng.IntN(keys))
		st := scenarios.Step{Via: name(via[g.rng.IntN(len(via))])}
		if st.Via.Name == failoverClient {
			st.Via.Kind = scenarios.RefClient
		}
		n := strconv.Itoa(g.requests)
		switch kind {
		case RequestPut:
			st.Kind, st.Req, st.Label = scenarios.StepPut, server.Put(key, "v"+n), "put"+n
			written[key] = append(written[key], "v"+n)
		case RequestGet:
			st.Kind, st.Req, st.Label = scenarios.StepGet, server.Get(key, false), "get"+n
		case RequestSerializableGet:
			st.Kind, st.Req, st.Label = scenarios.StepGet, server.Get(key, true), "sget"+n
		case RequestDelete:
			st.Kind, st.Req, st.Label = scenarios.StepDelete, server.Delete(key), "del"+n
		case RequestWatch:
			st.Kind, st.Label = scenarios.StepWatch, "watch"+n
			st.Req = server.Watch(key)
			if g.rng.IntN(2) == 0 {
				st.Req = server.WatchPrefix("/k")
			}
			st.RequireLeader = g.rng.IntN(2) == 0
		case RequestTxn:
			// On keys of their own: a transaction that times out leaves
			// its keys out of the linearizability check.
			key := "/txn" + key
			st.Kind, st.Label = scenarios.StepTxn, "txn"+n
			st.Req.Txn = g.casTxn(key, "v"+n, written[key])
			written[key] = append(written[key], "v"+n)
		case RequestLease:
			g.lease(t, st.Via, n)
			continue
		case RequestRange:
			st.Kind, st.Req, st.Label = scenarios.StepGet, server.GetPrefix("/k", false), "range"+n
		}
		g.add(t, st)
	}
}

// casTxn is a compare-and-swap: if key holds one of the values written to
// it before (or, with none, was never created), put value; else read it.
func (g *gen) casTxn(key, value string, before []string) *etcdserverpb.TxnRequest {
	cmp := fmt.Sprintf("create(%q) = \"0\"", key)
	if len(before) > 0 {
		cmp = fmt.Sprintf("val(%q) = %q", key, before[g.rng.IntN(len(before))])
	}
	c, err1 := etcdctl.ParseCompare(cmp)
	put, err2 := etcdctl.ParseRequest(fmt.Sprintf("put %s %s", key, value))
	get, err3 := etcdctl.ParseRequest("get " + key)
	if err := errors.Join(err1, err2, err3); err != nil {
		panic("swarm: a transaction etcdctl does not read: " + err.Error())
	}
	return &etcdserverpb.TxnRequest{Compare: []*etcdserverpb.Compare{c}, Success: []*etcdserverpb.RequestOp{put},
		Failure: []*etcdserverpb.RequestOp{get}}
}

// lease grants a lease of 2-10s through via, puts a key with it, and a
// little later keeps it alive or revokes it.
func (g *gen) lease(t time.Duration, via scenarios.NodeRef, n string) {
	label := "lease" + n
	ttl := int64(2 + g.rng.IntN(9))
	put, later := t+g.millis(100, 1000), t+g.millis(1000, 6000)
	g.add(t, scenarios.Step{Kind: scenarios.StepLeaseGrant, Via: via, Label: label,
		Req: server.Request{LeaseGrant: &etcdserverpb.LeaseGrantRequest{TTL: ttl}}})
	if put >= g.opts.Duration {
		return
	}
	g.add(put, scenarios.Step{Kind: scenarios.StepPut, Via: via, Req: server.Put("/lease/k"+n, "v"+n),
		LeaseLabel: label, Label: "lput" + n})
	if later >= g.opts.Duration {
		return
	}
	if g.rng.IntN(2) == 0 {
		g.add(later, scenarios.Step{Kind: scenarios.StepLeaseKeepAlive, Via: via, LeaseLabel: label, Label: "keep" + n,
			Req: server.Request{LeaseKeepAlive: &etcdserverpb.LeaseKeepAliveRequest{}}})
	} else {
		g.add(later, scenarios.Step{Kind: scenarios.StepLeaseRevoke, Via: via, LeaseLabel: label, Label: "revoke" + n,
			Req: server.Request{LeaseRevoke: &etcdserverpb.LeaseRevokeRequest{}}})
	}
}

// finale heals everything at Options.Duration (links and their loss,
// duplication and latency, clocks, crashed members) and checks liveness: a
// leader within leaderWithin, and then time for every pending request to
// end (Check looks for one that did not).
//
// NB: a write can be lost for good in a healthy cluster, as in etcd: a
// proposal forwarded to a member that has just lost its leader is dropped,
// and its client times out. So liveness is "no request waits for ever",
// not "every write succeeds".
func (g *gen) finale() []scenarios.Step {
	end := g.opts.Duration
	at := func(st scenarios.Step) scenarios.Step {
		st.At, st.Both = &end, true
		return st
	}
	out := []scenarios.Step{at(scenarios.Step{Kind: scenarios.StepHeal})}
	if g.links || !g.linkBase.Loss.IsZero() || !g.linkBase.Duplicate.IsZero() {
		clean := netmodel.Ratio{}
		out = append(out, at(scenarios.Step{Kind: scenarios.StepLink, From: names(g.members), To: names(g.members),
			Latency: &g.linkBase.Latency, Loss: &clean, Duplicate: &clean}))
	}
	for _, m := range g.skewed {
		out = append(out, at(scenarios.Step{Kind: scenarios.StepClock, Nodes: []scenarios.NodeRef{name(m)}, Rate: 1}))
	}
	for _, ref := range g.crashed {
		out = append(out, at(scenarios.Step{Kind: scenarios.StepRestart, Nodes: []scenarios.NodeRef{ref}}))
	}
	return append(out,
		scenarios.Step{Kind: scenarios.StepExpect, Both: true, Within: leaderWithin,
			Conds: []scenarios.Condition{{Kind: scenarios.CondLeader, AnyLeader: true}}},
		scenarios.Step{Kind: scenarios.StepWait, Both: true, Wait: settle},
	)
}
