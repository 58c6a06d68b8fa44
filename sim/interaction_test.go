package sim_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// TestInteraction runs the golden files in testdata/. Each drives one World
// through its public API and prints what a reader needs to see.
//
// NB: if this test fails, run `go test ./sim -rewrite` and read the diff.
// Commit the new output only if you understand what changed and why.
func TestInteraction(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		env := &interactionEnv{}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			return env.handle(t, d)
		})
	})
}

// interactionEnv is the state of one golden file: the world and the cursors
// that `history since=...` counts from.
type interactionEnv struct {
	w        *sim.World
	lastShow int // history length at the end of the last `history`
	lastDo   int // history length just before the last `do`
}

// handle runs one directive. Bad input fails the test; errors from the world
// are part of the output.
func (env *interactionEnv) handle(t *testing.T, d *datadriven.TestData) string {
	var out strings.Builder
	var err error
	if d.Cmd != "new" && env.w == nil {
		d.Fatalf(t, "%s before new", d.Cmd)
	}
	switch d.Cmd {
	case "new":
		// Build a world. Options default to sim.DefaultConfig, except that
		// members=N names n1..nN. Each input line adds a client:
		// "client NAME EP1,EP2 [timeout=DUR]".
		//
		// Example:
		//
		// new members=3 seed=1 pre_vote=true check_quorum=true latency=10ms disk_latency=2ms snapshot_every=5
		// client w1 n1,n2 timeout=2s
		err = env.handleNew(t, d)
	case "run":
		// Let virtual time pass. Prints the time reached, and a safety
		// violation if one stopped the world.
		//
		// Example:
		//
		// run 2s
		err = env.handleRun(t, d, &out)
	case "run-until":
		// Run, one instant at a time, until a condition holds or a deadline
		// (default 30s of virtual time) passes. Conditions: leader (any),
		// leader=NAME, no-leader, done=LABEL (the op is no longer pending; a
		// watch: its stream ended),
		// role=(NAME,ROLE).
		//
		// Example:
		//
		// run-until leader=n2 timeout=5s
		err = env.handleRunUntil(t, d, &out)
	case "do":
		// Apply one sim.Command now. The first argument is the kind; the
		// rest are its fields. Requests print nothing: see `op`.
		//
		// Example:
		//
		// do crash n2
		// do put via=n2 key=k value=v as=w1
		// do get via=n2 key=k serializable as=r1
		// do partition g=(n1) g=(n2,n3)
		// do cut from=n1 to=n2 one_way
		// do link from=n1 to=n2 loss=50% dup=1/2 latency=5ms-15ms
		// do stall n2 for=1s
		// do clock n2 rate=2
		// do add_member n4 learner
		err = env.handleDo(t, d)
	case "status":
		// Print each member's role, term, leader, commit and applied index,
		// and durable log (FirstIndex..LastIndex), from w.Infos().
		//
		// Example:
		//
		// status
		// status n1 n2
		env.handleStatus(t, d, &out)
	case "timer":
		// Print each member's election timer: elapsed ticks / drawn timeout.
		//
		// Example:
		//
		// timer
		env.handleTimer(&out)
	case "log":
		// Print a member's durable log, one entry a line (index/term).
		//
		// Example:
		//
		// log n1
		env.handleLog(t, d, &out)
	case "kv":
		// Print a member's key space.
		//
		// Example:
		//
		// kv n1
		env.handleKV(t, d, &out)
	case "op":
		// Print client operations by label, or all of them.
		//
		// Example:
		//
		// op w1 r1
		// op
		env.handleOp(t, d, &out)
	case "members":
		// Print the configuration as the leader applies it.
		//
		// Example:
		//
		// members
		voters, learners, ok := env.w.Membership()
		if !ok {
			out.WriteString("no leader\n")
		} else {
			fmt.Fprintf(&out, "voters=%s learners=%s\n", strings.Join(voters, ","), strings.Join(learners, ","))
		}
	case "inflight":
		// Print the messages on the wire (and queued at stalled members).
		//
		// Example:
		//
		// inflight
		env.handleInFlight(&out)
	case "history":
		// Print history events with w.Describe, hiding heartbeats unless
		// asked. Filters: kinds=(send,drop,...), types=(MsgProp,...) (for
		// message events; others pass), nodes=(n1,...) (either end), since=last (since the previous
		// `history`), since=do (since the previous `do`), since=TIME.
		//
		// Example:
		//
		// history kinds=(send,drop) types=(MsgProp) since=last
		// history heartbeats
		env.handleHistory(t, d, &out)
	default:
		d.Fatalf(t, "unknown command %q", d.Cmd)
	}
	if err != nil {
		out.WriteString(err.Error() + "\n")
	}
	if out.Len() == 0 {
		return "ok\n"
	}
	return out.String()
}

func (env *interactionEnv) handleNew(t *testing.T, d *datadriven.TestData) error {
	cfg := sim.DefaultConfig()
	cfg.Members = []string{"n1", "n2", "n3"}
	cfg.Network.Latency = netmodel.Fixed(10 * time.Millisecond)
	for _, a := range d.CmdArgs {
		v := ""
		if len(a.Vals) > 0 {
			v = a.Vals[0]
		}
		switch a.Key {
		case "members":
			if n, err := strconv.Atoi(v); err == nil && len(a.Vals) == 1 {
				cfg.Members = nil
				for i := 1; i <= n; i++ {
					cfg.Members = append(cfg.Members, "n"+strconv.Itoa(i))
				}
			} else {
				cfg.Members = a.Vals
			}
		case "learners":
			cfg.Learners = a.Vals
		case "seed":
			cfg.Seed = parseUint(t, d, v)
		case "pre_vote":
			cfg.PreVote = parseBool(t, d, v)
		case "check_quorum":
			cfg.CheckQuorum = parseBool(t, d, v)
		case "read_only_lease":
			cfg.ReadOnlyLease = parseBool(t, d, v)
		case "disable_forwarding":
			cfg.DisableProposalForwarding = parseBool(t, d, v)
		case "tick":
			cfg.Tick = parseDuration(t, d, v)
		case "election_ticks":
			cfg.ElectionTicks = int(parseUint(t, d, v))
		case "heartbeat_ticks":
			cfg.HeartbeatTicks = int(parseUint(t, d, v))
		case "snapshot_every":
			cfg.SnapshotEvery = parseUint(t, d, v)
		case "disk_latency":
			cfg.DiskLatency = parseDuration(t, d, v)
		case "client_latency":
			cfg.ClientLatency = parseDuration(t, d, v)
		case "latency":
			l, err := netmodel.ParseLatency(v)
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			cfg.Network.Latency = l
		case "loss":
			cfg.Network.Loss = parseRatio(t, d, v)
		case "dup":
			cfg.Network.Duplicate = parseRatio(t, d, v)
		case "topology":
			cfg.Topology = v
		default:
			d.Fatalf(t, "new: unknown option %q", a.Key)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if f[0] != "client" || len(f) < 3 {
			d.Fatalf(t, "new: want \"client NAME EP1,EP2 [timeout=DUR]\", got %q", line)
		}
		cc := sim.ClientConfig{Name: f[1], Endpoints: strings.Split(f[2], ","), Timeout: sim.DefaultClientTimeout}
		for _, opt := range f[3:] {
			v, ok := strings.CutPrefix(opt, "timeout=")
			if !ok {
				d.Fatalf(t, "new: unknown client option %q", opt)
			}
			cc.Timeout = parseDuration(t, d, v)
		}
		cfg.Clients = append(cfg.Clients, cc)
	}
	w, err := sim.New(cfg)
	if err != nil {
		return err
	}
	env.w, env.lastShow, env.lastDo = w, 0, 0
	return nil
}

func (env *interactionEnv) handleRun(t *testing.T, d *datadriven.TestData, out *strings.Builder) error {
	if len(d.CmdArgs) != 1 {
		d.Fatalf(t, "run DURATION")
	}
	err := env.w.Advance(parseDuration(t, d, d.CmdArgs[0].Key))
	fmt.Fprintf(out, "t=%s\n", env.w.Now())
	return err
}

func (env *interactionEnv) handleRunUntil(t *testing.T, d *datadriven.TestData, out *strings.Builder) error {
	deadline := env.w.Now().Add(30 * time.Second)
	var cond func() bool
	var what string
	for _, a := range d.CmdArgs {
		switch a.Key {
		case "timeout":
			deadline = env.w.Now().Add(parseDuration(t, d, a.Vals[0]))
			continue
		case "leader":
			if len(a.Vals) == 0 {
				cond = func() bool { _, ok := env.w.Leader(); return ok }
			} else {
				want := a.Vals[0]
				cond = func() bool { l, ok := env.w.Leader(); return ok && l == want }
			}
		case "no-leader":
			cond = func() bool { _, ok := env.w.Leader(); return !ok }
		case "done":
			label := a.Vals[0]
			if env.w.Op(label) == nil {
				d.Fatalf(t, "no op labelled %q", label)
			}
			cond = func() bool {
				op := env.w.Op(label)
				if op.Kind == sim.OpWatch {
					return op.Status != sim.OpPending && op.Status != sim.OpOK // the stream ended
				}
				return op.Status != sim.OpPending
			}
		case "role":
			if len(a.Vals) != 2 {
				d.Fatalf(t, "role=(NAME,ROLE)")
			}
			name := a.Vals[0]
			want, ok := sim.ParseRole(a.Vals[1])
			if !ok {
				d.Fatalf(t, "unknown role %q", a.Vals[1])
			}
			cond = func() bool { in, _ := env.w.Info(name); return in.Role == want }
		default:
			d.Fatalf(t, "run-until: unknown condition %q", a.Key)
		}
		what = a.String()
	}
	if cond == nil {
		d.Fatalf(t, "run-until needs a condition")
	}
	for !cond() {
		next, ok := env.w.NextEventAt()
		if !ok || next > deadline {
			if err := env.w.RunUntil(deadline); err != nil {
				return err
			}
			fmt.Fprintf(out, "t=%s: gave up waiting for %s\n", env.w.Now(), what)
			return nil
		}
		if err := env.w.StepInstant(); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "t=%s\n", env.w.Now())
	return nil
}

func (env *interactionEnv) handleDo(t *testing.T, d *datadriven.TestData) error {
	if len(d.CmdArgs) == 0 {
		d.Fatalf(t, "do KIND ...")
	}
	c := sim.Command{Kind: sim.CommandKind(d.CmdArgs[0].Key)}
	var key, value string
	var serializable, prefix, keysOnly bool
	for _, a := range d.CmdArgs[1:] {
		v := ""
		if len(a.Vals) > 0 {
			v = a.Vals[0]
		}
		switch a.Key {
		case "via":
			c.Via = v
		case "key":
			key = v
		case "value":
			value = v
		case "as":
			c.Label = v
		case "serializable":
			serializable = true
		case "prefix":
			prefix = true
		case "keys_only":
			keysOnly = true
		case "require_leader":
			c.RequireLeader = true
		case "g":
			c.Groups = append(c.Groups, a.Vals)
		case "from":
			c.From = v
		case "to":
			c.To = v
		case "one_way":
			c.OneWay = true
		case "for":
			c.For = parseDuration(t, d, v)
		case "rate":
			r, err := strconv.ParseFloat(v, 64)
			if err != nil {
				d.Fatalf(t, "bad rate %q", v)
			}
			c.Rate = r
		case "latency":
			l, err := netmodel.ParseLatency(v)
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			c.Latency = &l
		case "loss":
			r := parseRatio(t, d, v)
			c.Loss = &r
		case "dup":
			r := parseRatio(t, d, v)
			c.Dup = &r
		case "learner":
			c.Learner = true
		case "peer_url":
			c.PeerURL = v
		case "caption":
			c.Caption, c.Text = v, strings.TrimSpace(d.Input)
		default:
			if len(a.Vals) == 0 && c.Node == "" {
				c.Node = a.Key
				continue
			}
			d.Fatalf(t, "do: unknown field %q", a.Key)
		}
	}
	switch c.Kind {
	case sim.CmdPut:
		c.Req = server.Put(key, value)
	case sim.CmdGet:
		c.Req = server.Get(key, serializable)
		if prefix {
			c.Req = server.GetPrefix(key, serializable)
		}
		c.Req.Range.KeysOnly = keysOnly
	case sim.CmdDelete:
		c.Req = server.Delete(key)
		if prefix {
			c.Req = server.DeletePrefix(key)
		}
	case sim.CmdWatch:
		c.Req = server.Watch(key)
		if prefix {
			c.Req = server.WatchPrefix(key)
		}
	}
	env.lastDo = env.w.HistoryLen()
	_, err := env.w.Do(c)
	return err
}

func (env *interactionEnv) names(t *testing.T, d *datadriven.TestData) map[string]bool {
	if len(d.CmdArgs) == 0 {
		return nil
	}
	want := map[string]bool{}
	for _, a := range d.CmdArgs {
		if _, ok := env.w.Info(a.Key); !ok {
			d.Fatalf(t, "no member %q", a.Key)
		}
		want[a.Key] = true
	}
	return want
}

func (env *interactionEnv) handleStatus(t *testing.T, d *datadriven.TestData, out *strings.Builder) {
	want := env.names(t, d)
	for _, in := range env.w.Infos() {
		if want != nil && !want[in.Name] {
			continue
		}
		lead := "none"
		if in.Lead != 0 {
			lead = env.w.MemberNames()[in.Lead-1]
		}
		fmt.Fprintf(out, "%s %-9s term=%d lead=%s commit=%d applied=%d log=%d..%d snap=%d",
			in.Name, in.Role, in.Term, lead, in.Commit, in.Applied, in.FirstIndex, in.LastIndex, in.SnapshotIndex)
		if in.Learner && in.Role != sim.RoleLearner {
			out.WriteString(" learner")
		}
		if in.DiskBusy {
			out.WriteString(" disk-busy")
		}
		if in.QueuedWhileStalled > 0 {
			fmt.Fprintf(out, " queued=%d", in.QueuedWhileStalled)
		}
		if in.ClockRate != 1 {
			fmt.Fprintf(out, " clock=%gx", in.ClockRate)
		}
		out.WriteString("\n")
	}
}

func (env *interactionEnv) handleTimer(out *strings.Builder) {
	for _, in := range env.w.Infos() {
		fmt.Fprintf(out, "%s %s elapsed=%d timeout=%d\n", in.Name, in.Role, in.ElectionElapsed, in.ElectionTimeout)
	}
}

func (env *interactionEnv) memberView(t *testing.T, d *datadriven.TestData) sim.MemberView {
	if len(d.CmdArgs) != 1 {
		d.Fatalf(t, "%s MEMBER", d.Cmd)
	}
	for _, mv := range env.w.View().Members {
		if mv.Name == d.CmdArgs[0].Key {
			return mv
		}
	}
	d.Fatalf(t, "no member %q", d.CmdArgs[0].Key)
	return sim.MemberView{}
}

func (env *interactionEnv) handleLog(t *testing.T, d *datadriven.TestData, out *strings.Builder) {
	mv := env.memberView(t, d)
	fmt.Fprintf(out, "snapshot %d, entries %d..%d\n", mv.SnapshotIndex, mv.FirstIndex, mv.LastIndex)
	for _, e := range mv.Log {
		s := e.Summary
		if s == "" {
			s = "(empty)"
		}
		fmt.Fprintf(out, "%d/%d %s\n", e.Index, e.Term, s)
	}
}

func (env *interactionEnv) handleKV(t *testing.T, d *datadriven.TestData, out *strings.Builder) {
	mv := env.memberView(t, d)
	if !mv.Up {
		out.WriteString("down\n")
		return
	}
	fmt.Fprintf(out, "%d keys\n", len(mv.KV))
	for _, kv := range mv.KV {
		fmt.Fprintf(out, "%s = %s (create=%d mod=%d version=%d)\n", kv.Key, kv.Value, kv.CreateRevision, kv.ModRevision, kv.Version)
	}
}

func (env *interactionEnv) handleOp(t *testing.T, d *datadriven.TestData, out *strings.Builder) {
	var ops []*sim.Op
	if len(d.CmdArgs) == 0 {
		ops = env.w.Ops()
	}
	for _, a := range d.CmdArgs {
		op := env.w.Op(a.Key)
		if op == nil {
			d.Fatalf(t, "no op labelled %q", a.Key)
		}
		ops = append(ops, op)
	}
	for _, op := range ops {
		name := op.Label
		if name == "" {
			name = "op" + strconv.FormatUint(op.ID, 10)
		}
		if op.Target() != "" {
			fmt.Fprintf(out, "%s: %s %s", name, op.Kind, op.Target())
		} else {
			fmt.Fprintf(out, "%s: %s %q", name, op.Kind, op.Key())
		}
		if op.Kind == sim.OpPut {
			fmt.Fprintf(out, "=%q", op.Value())
		}
		if op.Req.Serializable() {
			out.WriteString(" serializable")
		}
		fmt.Fprintf(out, " via %s at %s: %s", op.Client, op.Member, op.Status)
		switch {
		case op.Status == sim.OpOK && op.Kind == sim.OpGet:
			if v, ok := op.Found(); ok {
				fmt.Fprintf(out, " %q", v)
			} else if len(op.Req.Range.RangeEnd) == 0 {
				out.WriteString(" not found")
			} else {
				fmt.Fprintf(out, " %d keys", len(op.KVs()))
			}
			fmt.Fprintf(out, " rev=%d applied=%d", op.Revision(), op.Applied)
		case op.Status == sim.OpOK && op.Kind == sim.OpWatch:
			fmt.Fprintf(out, " %d events", len(op.Events()))
		case op.Status == sim.OpOK:
			fmt.Fprintf(out, " rev=%d", op.Revision())
		case op.Status != sim.OpPending:
			fmt.Fprintf(out, " %q", op.Err)
		}
		if op.Status != sim.OpPending || op.Kind == sim.OpWatch {
			fmt.Fprintf(out, " after %s", op.Latency(env.w.Now()))
		}
		if op.Stale {
			fmt.Fprintf(out, " STALE (%s)", op.StaleNote())
		}
		out.WriteString("\n")
		for _, ev := range op.Events() {
			fmt.Fprintf(out, "  %s %s %s=%s\n", ev.At, ev.Type, ev.Kv.Key, ev.Kv.Value)
		}
	}
}

func (env *interactionEnv) handleInFlight(out *strings.Builder) {
	if len(env.w.View().InFlight) == 0 {
		out.WriteString("none\n")
	}
	for _, m := range env.w.View().InFlight {
		fmt.Fprintf(out, "%s → %s sent %s arrives %s %s", m.From, m.To, m.SentAt, m.ArriveAt, sim.DescribeMessage(m.MsgSummary))
		if m.Lost {
			out.WriteString(" (lost)")
		}
		if m.Duplicate {
			out.WriteString(" (duplicate)")
		}
		if m.Queued {
			out.WriteString(" (queued)")
		}
		out.WriteString("\n")
	}
}

func (env *interactionEnv) handleHistory(t *testing.T, d *datadriven.TestData, out *strings.Builder) {
	n := env.w.HistoryLen()
	from := 0
	kinds, types, nodes := map[string]bool{}, map[string]bool{}, map[string]bool{}
	heartbeats := false
	for _, a := range d.CmdArgs {
		switch a.Key {
		case "kinds":
			for _, v := range a.Vals {
				kinds[v] = true
			}
		case "types":
			for _, v := range a.Vals {
				types[v] = true
			}
		case "nodes":
			for _, v := range a.Vals {
				nodes[v] = true
			}
		case "heartbeats":
			heartbeats = true
		case "since":
			switch a.Vals[0] {
			case "last":
				from = env.lastShow
			case "do":
				from = env.lastDo
			default:
				since := sim.Time(parseDuration(t, d, a.Vals[0]))
				for from < n && env.w.EventAt(from).At < since {
					from++
				}
			}
		default:
			d.Fatalf(t, "history: unknown filter %q", a.Key)
		}
	}
	names := env.w.MemberNames()
	name := func(id uint64) string {
		if id >= 1 && int(id) <= len(names) {
			return names[id-1]
		}
		return ""
	}
	for _, e := range env.w.EventsSince(from) {
		if len(kinds) > 0 && !kinds[e.Kind.String()] {
			continue
		}
		isMsg := e.Kind == sim.EvSend || e.Kind == sim.EvDeliver || e.Kind == sim.EvDrop
		if len(types) > 0 && isMsg && !types[e.Msg.Type.String()] {
			continue
		}
		if !heartbeats && e.IsHeartbeat() && !types[e.Msg.Type.String()] {
			continue
		}
		if len(nodes) > 0 && !nodes[name(e.Node)] && !(isMsg && nodes[name(e.Peer)]) {
			continue
		}
		out.WriteString(env.w.Describe(e) + "\n")
	}
	env.lastShow = n
}

func parseDuration(t *testing.T, d *datadriven.TestData, s string) time.Duration {
	v, err := time.ParseDuration(s)
	if err != nil {
		d.Fatalf(t, "bad duration %q", s)
	}
	return v
}

func parseUint(t *testing.T, d *datadriven.TestData, s string) uint64 {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		d.Fatalf(t, "bad number %q", s)
	}
	return v
}

func parseBool(t *testing.T, d *datadriven.TestData, s string) bool {
	v, err := strconv.ParseBool(s)
	if err != nil {
		d.Fatalf(t, "bad bool %q", s)
	}
	return v
}

func parseRatio(t *testing.T, d *datadriven.TestData, s string) netmodel.Ratio {
	r, err := netmodel.ParseRatio(s)
	if err != nil {
		d.Fatalf(t, "%v", err)
	}
	return r
}
