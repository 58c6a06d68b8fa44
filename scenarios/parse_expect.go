package scenarios

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
	"gopkg.in/yaml.v3"

	"github.com/raftsim/raftsim/sim"
)

// condKeys are the condition keys, in the order of the format's table.
var condKeys = condKindNames[CondLeader:]

// expect reads expect: and expect_always:.
func (p *parser) expect(st *Step, v *yaml.Node) {
	what := st.Kind.String()
	timing := "within"
	if st.Kind == StepExpectAlways {
		timing = "for"
	}
	f := p.mapping(v, what, append([]string{timing}, condKeys...))
	if f == nil {
		return
	}
	for i := range f {
		if f[i].key == timing {
			continue
		}
		p.condition(st, &f[i])
	}
	// Only when every key was readable: an unknown key is already reported.
	if !p.anyCondKey(f) && len(f) == len(v.Content)/2 {
		p.errorf(p.pos(v), "%s: want at least one condition, one of: %s", what, strings.Join(condKeys, ", "))
	}
	d := f.get(timing)
	switch {
	case d != nil && timing == "within":
		st.Within, _ = p.duration(d, "within")
	case d != nil:
		st.For, _ = p.positive(d, "expect_always for")
	case timing == "for":
		p.errorf(p.pos(v), "expect_always: missing for: (how long the conditions must keep holding, like 2s)")
	}
}

func (p *parser) anyCondKey(f fields) bool {
	for _, x := range f {
		if contains(condKeys, x.key) {
			return true
		}
	}
	return false
}

// roleByName are the roles a role: condition (or shows: member) can ask
// for: a member's roles but removed and joining.
var roleByName = map[string]sim.Role{
	"follower": sim.RoleFollower, "pre-candidate": sim.RolePreCandidate, "candidate": sim.RoleCandidate,
	"leader": sim.RoleLeader, "learner": sim.RoleLearner, "down": sim.RoleDown, "stalled": sim.RoleStalled,
}

var statusByName = map[string]OpStatus{"pending": OpPending, "ok": OpOK, "error": OpError, "timeout": OpTimeout}

// condition reads one condition key into st.Conds, one Condition per entry.
func (p *parser) condition(st *Step, x *field) {
	kind := CondInvalid
	for k := CondLeader; k < numCondKinds; k++ {
		if condKindNames[k] == x.key {
			kind = k
		}
	}
	base := Condition{Pos: p.pos(x.k), Kind: kind}
	add := func(c Condition) { st.Conds = append(st.Conds, c) }
	v := x.v
	switch kind {
	case CondLeader:
		if v.Kind == yaml.SequenceNode {
			base.Refs, _ = p.refs(v, "leader")
		} else if v.Kind == yaml.ScalarNode && v.Value == "any" {
			base.AnyLeader = true
		} else if v.Kind == yaml.ScalarNode && v.Value == "none" {
			base.NoLeader = true
		} else if r, ok := p.ref(v, "leader"); ok {
			base.Refs = []NodeRef{r}
		}
		add(base)
	case CondLeaders:
		if v.Kind == yaml.SequenceNode {
			base.Refs, _ = p.refList(v, "leaders")
		} else if n, ok := p.integer(v, "leaders", 0, maxMembers); ok {
			base.Count, base.CountSet = int(n), true
		}
		add(base)
	case CondVoters, CondLearners:
		base.Refs, _ = p.refList(v, x.key)
		if kind == CondVoters && v.Kind == yaml.SequenceNode && len(v.Content) == 0 {
			p.errorf(p.pos(v), "voters: a configuration has at least one voter")
		}
		add(base)
	case CondConverged, CondLinearizable:
		base.Converged, _ = p.boolean(v, x.key)
		add(base)
	case CondSent:
		p.sent(&base, v)
		add(base)
	case CondAnyOf:
		p.anyOf(&base, v)
		add(base)
	case CondViolation:
		if s, ok := p.str(v, "violation"); ok {
			switch {
			case s == "any":
			case slices.Contains(sim.Invariants, s):
				base.Invariant = s
			default:
				p.errorf(p.pos(v), "violation: want any or one of %s; found %q", strings.Join(sim.Invariants, ", "), s)
			}
		}
		add(base)
	case CondRole, CondTerm, CondCommit, CondLastIndex, CondFirstIndex, CondKV, CondStoreRevision, CondLog, CondDBSize, CondDBInUse, CondAlarm:
		p.nodeConds(st, x, base)
	case CondOp, CondValue, CondKeys, CondEvents, CondError, CondRevision, CondModRevision, CondSucceeded, CondWatch, CondLease:
		p.labelConds(st, x, base)
	}
}

// nodeConds reads a per-member condition (role, term, commit, last_index,
// first_index, kv, store_revision, log, db_size, db_in_use, alarm): one
// Condition per entry, and for kv one per (member, key).
func (p *parser) nodeConds(st *Step, x *field, base Condition) {
	kind, v := base.Kind, x.v
	add := func(c Condition) { st.Conds = append(st.Conds, c) }
	f := p.mapping(v, x.key, nil)
	for _, e := range f {
		c := base
		c.Pos = p.pos(e.k)
		r, ok := p.ref(e.k, x.key)
		c.Node = r
		switch kind {
		case CondRole:
			if s, good := p.str(e.v, "role"); good {
				var known bool
				if c.Role, known = roleByName[s]; !known {
					p.errorf(p.pos(e.v), "role: want one of follower, pre-candidate, candidate, leader, learner, down, stalled; found %q", s)
				}
			}
		case CondKV:
			kf := p.mapping(e.v, "kv", nil)
			if kf != nil && len(kf) == 0 {
				p.errorf(p.pos(e.v), "kv: want at least one key: value (or key: null)")
			}
			for _, kv := range kf {
				ck := c
				ck.Pos = p.pos(kv.k)
				ck.Key = kv.key
				ck.Value, _ = p.nullableStr(kv.v, "kv value")
				if ok {
					add(ck)
				}
			}
			continue
		case CondLog:
			c.Terms, _ = p.terms(e.v)
		case CondAlarm:
			if a, good := p.str(e.v, "alarm"); good {
				switch a {
				case "NOSPACE", "CORRUPT":
					c.Alarm = a
				case "none":
				default:
					p.errorf(p.pos(e.v), "alarm: want NOSPACE, CORRUPT or none; found %q", a)
				}
			}
		default:
			c.Cmp, _ = p.comparison(e.v, x.key)
		}
		if ok {
			add(c)
		}
	}
	if f != nil && len(v.Content) == 0 {
		p.errorf(p.pos(v), "%s: want at least one entry, like {n1: ...}", x.key)
	}
}

// labelConds reads a per-request condition (op, value, keys, events, error,
// revision, mod_revision, succeeded, watch, lease): one Condition per label.
func (p *parser) labelConds(st *Step, x *field, base Condition) {
	kind, v := base.Kind, x.v
	add := func(c Condition) { st.Conds = append(st.Conds, c) }
	f := p.mapping(v, x.key, nil)
	for _, e := range f {
		c := base
		c.Pos = p.pos(e.k)
		c.Label = e.key
		switch kind {
		case CondOp:
			if s, good := p.str(e.v, "op"); good {
				if c.Status = statusByName[s]; c.Status == OpInvalid {
					p.errorf(p.pos(e.v), "op: want one of pending, ok, error, timeout; found %q", s)
				}
			}
		case CondValue:
			c.Value, _ = p.nullableStr(e.v, "value")
		case CondKeys:
			if items, good := p.list(e.v, "keys", "a list of keys, like [/a, /b]"); good {
				c.Keys = []string{}
				for _, it := range items {
					if s, ok := p.str(it, "keys"); ok {
						c.Keys = append(c.Keys, s)
					}
				}
			}
		case CondEvents, CondRevision, CondModRevision:
			c.Cmp, _ = p.comparison(e.v, x.key)
		case CondSucceeded:
			c.Succeeded, _ = p.boolean(e.v, "succeeded")
		case CondLease:
			if s, good := p.str(e.v, "lease"); good {
				switch s {
				case "alive":
					c.Alive = true
				case "gone":
				default:
					p.errorf(p.pos(e.v), "lease: want alive or gone, found %q", s)
				}
			}
		case CondWatch:
			if items, good := p.list(e.v, "watch", `a list of events, like ["PUT /k=v1", "DELETE /k"]`); good {
				c.Events = []string{}
				for _, it := range items {
					if s, ok := p.str(it, "watch event"); ok {
						c.Events = append(c.Events, s)
					}
				}
			}
		case CondError:
			c.Substr, _ = p.str(e.v, "error")
		}
		add(c)
	}
	if f != nil && len(v.Content) == 0 {
		p.errorf(p.pos(v), "%s: want at least one label: ..., like {w1: ...}", x.key)
	}
}

// sent reads sent: {type, from, to, min}.
func (p *parser) sent(c *Condition, v *yaml.Node) {
	c.Min = 1
	f := p.mapping(v, "sent", []string{"type", "from", "to", "min", "reject"})
	if f == nil {
		return
	}
	if t := f.get("type"); t == nil {
		p.errorf(p.pos(v), "sent: missing type: (a raft message type, like MsgApp or MsgVote)")
	} else if s, ok := p.str(t, "sent type"); ok {
		mt, err := parseMsgType(s)
		if err != nil {
			p.errorf(p.pos(t), "sent type: %v", err)
		}
		c.MsgType = mt
	}
	if x := f.get("from"); x != nil {
		c.From, _ = p.refs(x, "sent from")
	}
	if x := f.get("to"); x != nil {
		c.To, _ = p.refs(x, "sent to")
	}
	if x := f.get("min"); x != nil {
		if n, ok := p.integer(x, "sent min", 1, math.MaxInt32); ok {
			c.Min = int(n)
		}
	}
	if x := f.get("reject"); x != nil {
		if b, ok := p.boolean(x, "sent reject"); ok {
			c.Reject = &b
		}
	}
}

// terms reads a log: entry's list of terms, [1, 2, 4]: one term per index
// from 1, each at least 1.
func (p *parser) terms(n *yaml.Node) ([]uint64, bool) {
	items, ok := p.list(n, "log", "a list of terms, one per index from 1, like [1, 2, 4]")
	if !ok {
		return nil, false
	}
	out := []uint64{}
	for _, it := range items {
		t, good := p.integer(it, "log term", 1, math.MaxUint32)
		if !good {
			return nil, false
		}
		out = append(out, uint64(t))
	}
	return out, true
}

// parseMsgType reads a raft message type name as raftpb spells it.
func parseMsgType(s string) (raftpb.MessageType, error) {
	if t, ok := raftpb.MessageType_value[s]; ok {
		mt := raftpb.MessageType(t)
		if raft.IsLocalMsg(mt) {
			return mt, fmt.Errorf("%s is local to a node and never sent between nodes; want a message like MsgApp, MsgVote or MsgHeartbeat", s)
		}
		return mt, nil
	}
	for _, name := range slices.Sorted(maps.Keys(raftpb.MessageType_value)) {
		if strings.EqualFold(name, s) || strings.EqualFold(name, "Msg"+s) {
			return 0, fmt.Errorf("unknown raft message type %q: did you mean %s?", s, name)
		}
	}
	return 0, fmt.Errorf("unknown raft message type %q: want a name like MsgApp, MsgVote, MsgPreVote, MsgHeartbeat, MsgProp, MsgReadIndex, MsgSnap or MsgTimeoutNow", s)
}

// comparison reads a number (==) or a string like ">=5".
func (p *parser) comparison(n *yaml.Node, what string) (Comparison, bool) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" {
		c, err := parseComparison(n.Value)
		if err == nil {
			return c, true
		}
	}
	p.wrong(n, what, `a number like 5 or a comparison like ">=5" (==, !=, <, <=, >, >=)`)
	return Comparison{}, false
}

// parseComparison reads "5", "==5", "!=3", ">= 5" and so on.
func parseComparison(s string) (Comparison, error) {
	s = strings.TrimSpace(s)
	c := Comparison{}
	// Longest operators first, so that ">=" is not read as ">".
	for _, op := range []CmpOp{CmpEq, CmpNe, CmpLe, CmpGe, CmpLt, CmpGt} {
		if rest, ok := strings.CutPrefix(s, op.String()); ok {
			c.Op, s = op, strings.TrimSpace(rest)
			break
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return Comparison{}, fmt.Errorf("bad comparison: want a number like 5 or an operator and a number like >=5")
	}
	c.Value = v
	return c, nil
}

// anyOf reads any_of: [{conditions...}, ...]: it holds when every
// condition of one group holds.
func (p *parser) anyOf(c *Condition, v *yaml.Node) {
	items, ok := p.list(v, "any_of", "a list of condition groups, like [{kv: {n1: {k: v}}}, {kv: {n1: {k: null}}}]")
	if !ok {
		return
	}
	if len(items) < 2 {
		p.errorf(p.pos(v), "any_of: want at least two groups of conditions, found %d", len(items))
	}
	for _, it := range items {
		f := p.mapping(it, "any_of group", condKeys)
		if f == nil {
			continue
		}
		var st Step
		for i := range f {
			p.condition(&st, &f[i])
		}
		if len(f) == 0 {
			p.errorf(p.pos(it), "any_of: an empty group; want at least one condition")
		}
		c.Alternatives = append(c.Alternatives, st.Conds)
	}
}
