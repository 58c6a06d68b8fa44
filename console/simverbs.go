package console

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

// tick [N]: let N ticks (heartbeat intervals) of virtual time pass.
func (c *Console) tick(args []string, _ bool) error {
	f := newFlags("tick")
	rest, err := f.parse(args, 0, 1, "tick [N]")
	if err != nil {
		return err
	}
	n := 1
	if len(rest) == 1 {
		if n, err = strconv.Atoi(rest[0]); err != nil || n < 1 || n > 100000 {
			return fmt.Errorf("tick: want a count of ticks from 1 to 100000, not %q", rest[0])
		}
	}
	tick := c.w.Config().Tick
	if tick > scenarios.MaxDuration/time.Duration(n) {
		return fmt.Errorf("tick: %d ticks of %s are more than 1000h, the longest duration raftsim accepts", n, tick)
	}
	return c.letPass("tick", time.Duration(n)*tick)
}

// wait DUR: let virtual time pass.
func (c *Console) waitVerb(args []string, _ bool) error {
	f := newFlags("wait")
	rest, err := f.parse(args, 1, 1, "wait DUR (like 500ms or 3s)")
	if err != nil {
		return err
	}
	d, err := duration(rest[0], "wait")
	if err != nil {
		return err
	}
	return c.letPass("wait", d)
}

// duration reads a positive duration within the limits a scenario has, and
// refuses what a scenario refuses with the same message.
func duration(s, what string) (time.Duration, error) {
	d, err := scenarios.ParseDuration(s, what)
	if err != nil {
		return 0, err
	}
	if d == 0 {
		return 0, fmt.Errorf("%s: want a duration above zero, found %s", what, s)
	}
	return d, nil
}

// checkRunTime refuses to let a session run past scenarios.MaxRunTime, as
// a scenario may not, or its compactors write more than a scenario's may
// (sim.CheckCompactors), or its leader sends more heartbeats
// (sim.CheckHeartbeats): what names the command, d is how long it may take.
func (c *Console) checkRunTime(what string, d time.Duration) error {
	limit := scenarios.MaxRunTime
	if c.maxRunTime > 0 {
		limit = c.maxRunTime // a test's
	}
	end := c.w.Now().Add(d)
	if end > sim.Time(limit) {
		return scenarios.PastRunTime(what, end.Duration())
	}
	// And the compactors' writes and the leader's heartbeats up to there,
	// as a scenario's wait.
	if err := c.w.CheckCompactors(what, end); err != nil {
		return err
	}
	return c.w.CheckHeartbeats(what, end)
}

// perMember applies a command to each member named in args.
func (c *Console) perMember(verb string, args []string, cmd sim.Command, done string) error {
	f := newFlags(verb)
	rest, err := f.parse(args, 1, -1, verb+" MEMBER...")
	if err != nil {
		return err
	}
	var names []string
	for _, r := range rest {
		name, err := c.resolve(r)
		if err != nil {
			return err
		}
		names = append(names, name)
	}
	for _, name := range names {
		cmd.Node = name
		if _, err := c.do(cmd); err != nil {
			return err
		}
		c.printf("%s %s\n", name, done)
	}
	return nil
}

func (c *Console) crash(args []string, _ bool) error {
	return c.perMember("crash", args, sim.Command{Kind: sim.CmdCrash}, "crashed (volatile state lost, disk kept)")
}

// startVerb starts members that `member add` added: etcd's `--initial-cluster-state existing`.
func (c *Console) startVerb(args []string, _ bool) error {
	return c.perMember("start", args, sim.Command{Kind: sim.CmdStart}, "started with an empty disk (--initial-cluster-state existing)")
}

func (c *Console) isolate(args []string, _ bool) error {
	return c.perMember("isolate", args, sim.Command{Kind: sim.CmdIsolate}, "isolated from every other member (its clients still reach it)")
}

func (c *Console) campaign(args []string, _ bool) error {
	return c.perMember("campaign", args, sim.Command{Kind: sim.CmdCampaign}, "campaigns: its election timer fired")
}

func (c *Console) raftSnapshot(args []string, _ bool) error {
	return c.perMember("raft-snapshot", args, sim.Command{Kind: sim.CmdSnapshot}, "took a raft snapshot and compacted its log")
}

// stall MEMBER DUR
func (c *Console) stall(args []string, _ bool) error {
	f := newFlags("stall")
	rest, err := f.parse(args, 2, 2, "stall MEMBER DUR")
	if err != nil {
		return err
	}
	name, err := c.resolve(rest[0])
	if err != nil {
		return err
	}
	d, err := duration(rest[1], "stall for")
	if err != nil {
		return err
	}
	if _, err := c.do(sim.Command{Kind: sim.CmdStall, Node: name, For: d}); err != nil {
		return err
	}
	c.printf("%s stalls for %s (a GC pause: it misses ticks, its input queues)\n", name, d)
	return nil
}

// clock MEMBER RATE
func (c *Console) clock(args []string, _ bool) error {
	f := newFlags("clock")
	rest, err := f.parse(args, 2, 2, "clock MEMBER RATE (1 is normal, 1.5 is 50% fast)")
	if err != nil {
		return err
	}
	name, err := c.resolve(rest[0])
	if err != nil {
		return err
	}
	r, err := strconv.ParseFloat(rest[1], 64)
	if err != nil || !(r >= sim.MinClockRate && r <= sim.MaxClockRate) {
		return fmt.Errorf("clock rate: want a number from 0.01 to 100, like 1.1 (10%% fast) or 0.5 (half speed), found %s", rest[1])
	}
	if _, err := c.do(sim.Command{Kind: sim.CmdClock, Node: name, Rate: r}); err != nil {
		return err
	}
	c.printf("%s's clock runs at %gx\n", name, r)
	return nil
}

// partition A,B C,D,E: cut every link between the groups. A single group
// is cut off from everyone else.
func (c *Console) partition(args []string, _ bool) error {
	f := newFlags("partition")
	rest, err := f.parse(args, 1, -1, "partition A,B C,D,E (or one group: partition A,B)")
	if err != nil {
		return err
	}
	all := c.members()
	var groups [][]string
	seen := map[string]bool{}
	for _, g := range rest {
		var group []string
		for _, ref := range strings.Split(g, ",") {
			if ref == "" {
				continue
			}
			name, err := c.resolve(ref)
			if err != nil {
				return err
			}
			if !contains(all, name) {
				return fmt.Errorf("partition: %s was removed from the cluster", name)
			}
			if seen[name] {
				return fmt.Errorf("partition: %s is in two groups; every member is in exactly one", name)
			}
			seen[name] = true
			group = append(group, name)
		}
		if len(group) > 0 {
			groups = append(groups, group)
		}
	}
	var others []string
	for _, m := range all {
		if !seen[m] {
			others = append(others, m)
		}
	}
	if len(others) > 0 {
		if len(groups) > 1 {
			return fmt.Errorf("partition: %s in no group; list every member, or give one group to cut it off from the rest", strings.Join(others, ", "))
		}
		groups = append(groups, others)
	}
	if len(groups) < 2 {
		return fmt.Errorf("partition: want at least two groups")
	}
	if _, err := c.do(sim.Command{Kind: sim.CmdPartition, Groups: groups}); err != nil {
		return err
	}
	var parts []string
	for _, g := range groups {
		parts = append(parts, "["+strings.Join(g, " ")+"]")
	}
	c.printf("partitioned: %s\n", strings.Join(parts, " | "))
	return nil
}

// cut / restore FROM TO [--one-way]
func (c *Console) cut(args []string, _ bool) error { return c.linkCmd("cut", sim.CmdCut, args) }

func (c *Console) restore(args []string, _ bool) error {
	return c.linkCmd("restore", sim.CmdRestore, args)
}

func (c *Console) link(args []string, _ bool) error { return c.linkCmd("link", sim.CmdLink, args) }

func (c *Console) linkCmd(verb string, kind sim.CommandKind, args []string) error {
	f := newFlags(verb)
	oneWay := f.Bool("one-way", false, "only FROM → TO")
	var latency, loss, dup *string
	usage := verb + " FROM TO [--one-way]"
	if kind == sim.CmdLink {
		latency = f.String("latency", "", "one-way delay: 10ms or a range 5ms-15ms")
		loss = f.String("loss", "", "share of messages lost: 5% or 1/100")
		dup = f.String("duplicate", "", "share of messages duplicated")
		usage = "link FROM TO [--latency 50ms] [--loss 5%] [--duplicate 1%] [--one-way]"
	}
	rest, err := f.parse(args, 2, 2, usage)
	if err != nil {
		return err
	}
	from, err := c.resolve(rest[0])
	if err != nil {
		return err
	}
	to, err := c.resolve(rest[1])
	if err != nil {
		return err
	}
	if from == to {
		return fmt.Errorf("%s: FROM and TO are the same member", verb)
	}
	cmd := sim.Command{Kind: kind, From: from, To: to, OneWay: *oneWay}
	if kind == sim.CmdLink {
		if *latency != "" {
			l, err := scenarios.ParseLatency(*latency, "latency")
			if err != nil {
				return err
			}
			cmd.Latency = &l
		}
		for _, p := range []struct {
			what string
			s    *string
			dst  **netmodel.Ratio
		}{{"loss", loss, &cmd.Loss}, {"duplicate", dup, &cmd.Dup}} {
			if *p.s != "" {
				r, err := netmodel.ParseRatio(*p.s)
				if err != nil {
					return fmt.Errorf("%s: %v", p.what, err) // as a scenario says it
				}
				*p.dst = &r
			}
		}
		if cmd.Latency == nil && cmd.Loss == nil && cmd.Dup == nil {
			return fmt.Errorf("link: give at least one of --latency, --loss or --duplicate")
		}
	}
	if _, err := c.do(cmd); err != nil {
		return err
	}
	arrow := "↔"
	if *oneWay {
		arrow = "→"
	}
	switch kind {
	case sim.CmdCut:
		c.printf("cut %s %s %s\n", from, arrow, to)
	case sim.CmdRestore:
		c.printf("restored %s %s %s\n", from, arrow, to)
	default:
		c.printf("link %s %s %s changed\n", from, arrow, to)
	}
	return nil
}

func (c *Console) heal(args []string, _ bool) error {
	f := newFlags("heal")
	if _, err := f.parse(args, 0, 0, "heal"); err != nil {
		return err
	}
	if _, err := c.do(sim.Command{Kind: sim.CmdHeal}); err != nil {
		return err
	}
	c.println("healed: every link restored")
	return nil
}

// say TEXT: a caption in the trace and in a saved session.
func (c *Console) say(args []string, _ bool) error {
	if len(args) == 0 {
		return fmt.Errorf("say needs some text (usage: say TEXT)")
	}
	_, err := c.do(sim.Command{Kind: sim.CmdCaption, Caption: "say", Text: strings.Join(args, " ")})
	return err
}

// trace on|off|all
func (c *Console) traceVerb(args []string, _ bool) error {
	f := newFlags("trace")
	rest, err := f.parse(args, 1, 1, "trace on|off|all")
	if err != nil {
		return err
	}
	c.flushTrace()
	switch rest[0] {
	case "on":
		c.trace, c.heartbeats = true, c.opts.Heartbeats
	case "all":
		c.trace, c.heartbeats = true, true
	case "off":
		c.trace = false
	default:
		return fmt.Errorf("trace: want on, off or all (all includes heartbeats), not %q", rest[0])
	}
	c.traced = c.w.HistoryLen()
	c.printf("trace %s\n", rest[0])
	return nil
}

// save FILE.yaml: the session so far as a scenario.
func (c *Console) save(args []string, _ bool) error {
	f := newFlags("save")
	rest, err := f.parse(args, 1, 1, "save FILE.yaml")
	if err != nil {
		return err
	}
	if err := c.w.RunUntil(c.w.Now()); err != nil {
		return err
	}
	c.Poll()
	// Written one step at a time (scenarios.WriteSession), as serve writes
	// its session: a session of hours is never marshalled whole.
	if err := c.writeWith(rest[0], func(w io.Writer) error {
		return scenarios.WriteSession(w, scenarios.MarshalOptions{}, c.w.Config(), c.w.Commands(), c.w.Now())
	}); err != nil {
		return err
	}
	c.printf("saved %d commands up to %s in %s; replay with: raftsim run %s\n", len(c.w.Commands()), c.w.Now(), rest[0], rest[0])
	return nil
}
