package scenarios

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/raftsim/raftsim/mvcc"
	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// dump formats a parsed scenario compactly for golden files: the header,
// the config where it differs from sim.DefaultConfig, and one line per step
// (line:col first) with its conditions indented below it.
func dump(s *Scenario) string {
	var b strings.Builder
	fmt.Fprintf(&b, "scenario %s", s.Name)
	if s.SeedSet {
		fmt.Fprintf(&b, " seed=%d", s.Seed)
	}
	if !s.Title.IsZero() {
		fmt.Fprintf(&b, " title=%s", dumpText(s.Title))
	}
	if !s.Summary.IsZero() {
		fmt.Fprintf(&b, " summary=%s", dumpText(s.Summary))
	}
	b.WriteString("\n")
	def, cur := configFields(sim.DefaultConfig()), configFields(s.Config)
	var diff []string
	for i := range cur {
		if cur[i] != def[i] || strings.HasPrefix(cur[i], "members=") {
			diff = append(diff, cur[i])
		}
	}
	fmt.Fprintf(&b, "config: %s\n", strings.Join(diff, " "))
	for _, l := range s.Config.Links {
		fmt.Fprintf(&b, "link: %s->%s", l.From, l.To)
		if l.Latency != nil {
			fmt.Fprintf(&b, " latency=%s", l.Latency)
		}
		if l.Loss != nil {
			fmt.Fprintf(&b, " loss=%s", l.Loss)
		}
		if l.Duplicate != nil {
			fmt.Fprintf(&b, " duplicate=%s", l.Duplicate)
		}
		if l.OneWay {
			b.WriteString(" one-way")
		}
		b.WriteString("\n")
	}
	for _, c := range s.Config.Clients {
		fmt.Fprintf(&b, "client: %s endpoints=[%s] timeout=%s\n", c.Name, strings.Join(c.Endpoints, " "), c.Timeout)
	}
	for _, st := range s.Steps {
		fmt.Fprintf(&b, "%d:%d %s\n", st.Pos.Line, st.Pos.Col, dumpStep(st))
		for _, c := range st.Conds {
			fmt.Fprintf(&b, "  %d:%d %s\n", c.Pos.Line, c.Pos.Col, dumpCond(c))
		}
		for _, sh := range st.Shows {
			fmt.Fprintf(&b, "  %d:%d shows %s\n", sh.Pos.Line, sh.Pos.Col, sh)
		}
	}
	return b.String()
}

func configFields(c sim.Config) []string {
	return []string{
		fmt.Sprintf("members=[%s]", strings.Join(c.Members, " ")),
		fmt.Sprintf("learners=[%s]", strings.Join(c.Learners, " ")),
		fmt.Sprintf("seed=%d", c.Seed),
		fmt.Sprintf("tick=%s", c.Tick),
		fmt.Sprintf("election_ticks=%d", c.ElectionTicks),
		fmt.Sprintf("heartbeat_ticks=%d", c.HeartbeatTicks),
		fmt.Sprintf("pre_vote=%t", c.PreVote),
		fmt.Sprintf("check_quorum=%t", c.CheckQuorum),
		fmt.Sprintf("tick_advance=%t", c.InitialElectionTickAdvance),
		fmt.Sprintf("read_only_lease=%t", c.ReadOnlyLease),
		fmt.Sprintf("disable_forwarding=%t", c.DisableProposalForwarding),
		fmt.Sprintf("max_inflight=%d", c.MaxInflightMsgs),
		fmt.Sprintf("max_size=%d", c.MaxSizePerMsg),
		fmt.Sprintf("snapshot_every=%d", c.SnapshotEvery),
		fmt.Sprintf("disk_latency=%s", c.DiskLatency),
		fmt.Sprintf("latency=%s", c.Network.Latency),
		fmt.Sprintf("loss=%s", c.Network.Loss),
		fmt.Sprintf("duplicate=%s", c.Network.Duplicate),
		fmt.Sprintf("client_latency=%s", c.ClientLatency),
		fmt.Sprintf("topology=%s", c.Topology),
		fmt.Sprintf("bootstrap=%s", c.Bootstrap),
		fmt.Sprintf("quota=%d", c.QuotaBackendBytes),
		fmt.Sprintf("quota_of=%v", c.QuotaBackendBytesOf), // fmt prints a map sorted
	}
}

func dumpText(t Text) string {
	if t.Zh == "" {
		return strconv.Quote(t.En)
	}
	return fmt.Sprintf("{en:%q zh:%q}", t.En, t.Zh)
}

func dumpRefs(rs []NodeRef) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = dumpRef(r)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func dumpRef(r NodeRef) string {
	if r.Kind == RefClient {
		return "client:" + r.Name
	}
	return r.String()
}

func dumpValue(v *string) string {
	if v == nil {
		return "null"
	}
	return strconv.Quote(*v)
}

func dumpStep(st Step) string {
	var b strings.Builder
	if st.At != nil {
		fmt.Fprintf(&b, "at=%s ", *st.At)
	}
	if st.After != 0 {
		fmt.Fprintf(&b, "after=%s ", st.After)
	}
	b.WriteString(st.Kind.String())
	w := func(format string, args ...any) { fmt.Fprintf(&b, " "+format, args...) }
	switch st.Kind {
	case StepSay, StepPause, StepChapter:
		w("%s", dumpText(st.Text))
	case StepWait:
		w("%s", st.Wait)
	case StepLet:
		for _, bd := range st.Bindings {
			if !bd.List && len(bd.Refs) == 1 {
				w("%s=%s", bd.Name, dumpRef(bd.Refs[0]))
			} else {
				w("%s=%s", bd.Name, dumpRefs(bd.Refs))
			}
		}
	case StepCrash, StepRestart, StepIsolate, StepCampaign, StepPromote, StepRemoveMember, StepSnapshot:
		w("%s", dumpRefs(st.Nodes))
	case StepStall:
		w("%s for=%s", dumpRefs(st.Nodes), st.For)
	case StepClock:
		w("%s rate=%g", dumpRefs(st.Nodes), st.Rate)
	case StepPartition:
		for _, g := range st.Groups {
			w("%s", dumpRefs(g))
		}
	case StepCut, StepRestore, StepLink:
		w("from=%s to=%s both=%t", dumpRefs(st.From), dumpRefs(st.To), st.Both)
		if st.Latency != nil {
			w("latency=%s", st.Latency)
		}
		if st.Loss != nil {
			w("loss=%s", st.Loss)
		}
		if st.Duplicate != nil {
			w("duplicate=%s", st.Duplicate)
		}
	case StepTransferLeader:
		w("to=%s", dumpRefs(st.To))
	case StepAddMember:
		w("%s learner=%t start=%t", st.Name, st.Learner, st.Start)
	case StepMemberList, StepAlarmList, StepAlarmDisarm:
		if st.Via.Kind != RefInvalid {
			w("via=%s", dumpRef(st.Via))
		}
		if st.Label != "" {
			w("as=%s", st.Label)
		}
	case StepPut, StepDelete, StepGet, StepWatch:
		key, end := st.Req.KeyRange()
		prefix := server.IsPrefix(key, end)
		if prefix && mvcc.IsGteEnd(end) {
			key = nil // the empty prefix
		}
		w("via=%s key=%q", dumpRef(st.Via), key)
		if st.Kind == StepPut {
			w("value=%q", st.Req.Put.Value)
		}
		for _, f := range []struct {
			on   bool
			name string
		}{{prefix, "prefix"}, {st.Req.Serializable(), "serializable"}, {st.Req.Range.GetKeysOnly(), "keys_only"}, {st.RequireLeader, "require_leader"}} {
			if f.on {
				w("%s", f.name)
			}
		}
		if st.Label != "" {
			w("as=%s@%d:%d", st.Label, st.LabelPos.Line, st.LabelPos.Col)
		}
	case StepExpect:
		w("within=%s", st.Within)
	case StepExpectAlways:
		w("for=%s", st.For)
	case StepLoad:
		l := st.Load
		w("for=%s rate=%d via=%v keys=%d prefix=%q zipf=%v mix=%+v background=%v", l.For, l.Rate, l.Via, l.Keys, l.Prefix, l.Zipf, l.Mix, st.Background)
	}
	return b.String()
}

func dumpCond(c Condition) string {
	k := c.Kind.String()
	switch c.Kind {
	case CondLeader:
		switch {
		case c.AnyLeader:
			return k + " any"
		case c.NoLeader:
			return k + " none"
		}
		return k + " one-of " + dumpRefs(c.Refs)
	case CondLeaders:
		if c.CountSet {
			return fmt.Sprintf("%s count=%d", k, c.Count)
		}
		return k + " exactly " + dumpRefs(c.Refs)
	case CondVoters, CondLearners:
		return k + " " + dumpRefs(c.Refs)
	case CondConverged:
		return fmt.Sprintf("%s %t", k, c.Converged)
	case CondRole:
		return fmt.Sprintf("%s %s=%s", k, dumpRef(c.Node), c.Role)
	case CondTerm, CondCommit, CondLastIndex, CondFirstIndex, CondDBSize, CondDBInUse:
		return fmt.Sprintf("%s %s %s %d", k, dumpRef(c.Node), c.Cmp.Op, c.Cmp.Value)
	case CondAlarm:
		return fmt.Sprintf("%s %s=%q", k, dumpRef(c.Node), c.Alarm)
	case CondKV:
		return fmt.Sprintf("%s %s %q=%s", k, dumpRef(c.Node), c.Key, dumpValue(c.Value))
	case CondOp:
		return fmt.Sprintf("%s %s=%s", k, c.Label, c.Status)
	case CondValue:
		return fmt.Sprintf("%s %s=%s", k, c.Label, dumpValue(c.Value))
	case CondKeys:
		return fmt.Sprintf("%s %s=%q", k, c.Label, c.Keys)
	case CondEvents:
		return fmt.Sprintf("%s %s %s %d", k, c.Label, c.Cmp.Op, c.Cmp.Value)
	case CondError:
		return fmt.Sprintf("%s %s contains %q", k, c.Label, c.Substr)
	case CondLinearizable:
		return fmt.Sprintf("%s %t", k, c.Converged)
	case CondLog:
		return fmt.Sprintf("%s %s terms=%v", k, dumpRef(c.Node), c.Terms)
	case CondSent:
		s := fmt.Sprintf("%s %s min=%d", k, c.MsgType, c.Min)
		if c.Reject != nil {
			s += fmt.Sprintf(" reject=%t", *c.Reject)
		}
		if c.From != nil {
			s += " from=" + dumpRefs(c.From)
		}
		if c.To != nil {
			s += " to=" + dumpRefs(c.To)
		}
		return s
	}
	return k
}
