package scenarios

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/raft/v3"

	"github.com/raftsim/raftsim/sim"
)

// check evaluates one condition now. It returns whether it holds and, when
// describe is set, what was observed, in words, for the failure message.
// NB: the runner checks at every instant and describes only a condition
// that failed for good, so the words are built only then.
func (r *Runner) check(c *Condition, cs *condState, describe bool) (bool, string, *Error) {
	w := r.w
	seen := func(format string, args ...any) string {
		if !describe {
			return ""
		}
		return fmt.Sprintf(format, args...)
	}
	switch c.Kind {
	case CondLeader:
		lead, ok := w.Leader()
		switch {
		case c.NoLeader:
			return !ok, seen("leader is %s", orNone(lead)), nil
		case c.AnyLeader:
			return ok, "there is no leader", nil
		}
		want, err := r.resolveAll(c.Refs)
		if err != nil {
			return false, "", err
		}
		holds := ok && slices.Contains(want, lead)
		if !describe {
			return holds, "", nil
		}
		return holds, fmt.Sprintf("leader is %s; wanted one of %s", orNone(lead), list(want)), nil
	case CondLeaders:
		var leaders []string
		for _, in := range w.Infos() {
			if in.Up && in.Raft == raft.StateLeader {
				leaders = append(leaders, in.Name)
			}
		}
		what := ""
		switch {
		case !describe:
		case len(leaders) == 1:
			what = fmt.Sprintf("1 member believes it leads %s", list(leaders))
		default:
			what = fmt.Sprintf("%d members believe they lead %s", len(leaders), list(leaders))
		}
		if c.CountSet {
			return len(leaders) == c.Count, what, nil
		}
		want, err := r.resolveAll(c.Refs)
		if err != nil {
			return false, "", err
		}
		return sameSet(want, leaders), what, nil
	case CondRole, CondTerm, CondCommit, CondLastIndex, CondFirstIndex:
		return r.forEachNode(c, func(in sim.MemberInfo) (bool, string) {
			switch c.Kind {
			case CondRole:
				// A removed member has shut itself down: it is down too.
				down := c.Role == sim.RoleDown && in.Role == sim.RoleRemoved
				return in.Role == c.Role || down, seen("%s is %s", in.Name, in.Role)
			case CondTerm:
				return c.Cmp.Holds(in.Term), seen("%s is in term %d", in.Name, in.Term)
			case CondCommit:
				return c.Cmp.Holds(in.Commit), seen("%s has commit index %d", in.Name, in.Commit)
			case CondFirstIndex:
				return c.Cmp.Holds(in.FirstIndex), seen("%s's log starts at %d (its snapshot is at %d)", in.Name, in.FirstIndex, in.SnapshotIndex)
			default:
				return c.Cmp.Holds(in.LastIndex), seen("%s's log ends at %d", in.Name, in.LastIndex)
			}
		})
	case CondKV:
		return r.forEachNode(c, func(in sim.MemberInfo) (bool, string) {
			if !in.Up {
				return false, seen("%s is down", in.Name)
			}
			v, found := w.KVGet(in.Name, c.Key)
			if c.Value == nil {
				return !found, seen("%s has %s = %q", in.Name, c.Key, v)
			}
			if !found {
				return false, seen("%s has no key %s", in.Name, c.Key)
			}
			return v == *c.Value, seen("%s has %s = %q", in.Name, c.Key, v)
		})
	case CondDBSize, CondDBInUse:
		return r.forEachNode(c, func(in sim.MemberInfo) (bool, string) {
			size, inUse := w.DBSize(in.Name)
			if c.Kind == CondDBSize {
				return size >= 0 && c.Cmp.Holds(uint64(size)), seen("%s's DB SIZE is %d (IN USE %d)", in.Name, size, inUse)
			}
			return inUse >= 0 && c.Cmp.Holds(uint64(inUse)), seen("%s's IN USE is %d (DB SIZE %d)", in.Name, inUse, size)
		})
	case CondAlarm:
		return r.forEachNode(c, func(in sim.MemberInfo) (bool, string) {
			if !in.Up {
				return false, seen("%s is down", in.Name)
			}
			alarms := w.Alarms(in.Name)
			if len(alarms) == 0 {
				return c.Alarm == "", seen("%s has no alarm", in.Name)
			}
			return slices.Contains(alarms, c.Alarm), seen("%s has the alarms %s", in.Name, strings.Join(alarms, ", "))
		})
	case CondStoreRevision:
		return r.forEachNode(c, func(in sim.MemberInfo) (bool, string) {
			rev, _, ok := w.MemberKV(in.Name)
			if !ok {
				return false, seen("%s is down", in.Name)
			}
			return c.Cmp.Holds(uint64(rev)), seen("%s's store is at revision %d", in.Name, rev)
		})
	case CondAnyOf:
		var saw []string
		for i := range c.Alternatives {
			all, what := true, []string{}
			for j := range c.Alternatives[i] {
				ok, s, err := r.check(&c.Alternatives[i][j], &condState{}, describe)
				if err != nil {
					return false, "", err
				}
				if !ok {
					all = false
					what = append(what, s)
				}
			}
			if all {
				return true, "", nil
			}
			saw = append(saw, strings.Join(what, "; "))
		}
		return false, seen("none of the groups held: %s", strings.Join(saw, " | ")), nil
	case CondLease:
		op := w.Op(c.Label)
		if op == nil || op.Status != sim.OpOK {
			return false, seen("%s granted no lease", c.Label), nil
		}
		lead, ok := w.Leader()
		if !ok {
			return false, seen("there is no leader to ask"), nil
		}
		id := op.Resp.LeaseGrant.GetID()
		alive := w.LeaseAlive(lead, id)
		return alive == c.Alive, seen("the lease %016x of %s is %s at %s", id, c.Label, aliveWord(alive), lead), nil
	case CondOp, CondValue, CondKeys, CondEvents, CondError, CondRevision, CondModRevision, CondSucceeded, CondWatch:
		op := w.Op(c.Label)
		if op == nil {
			return false, seen("%s has not been sent", c.Label), nil
		}
		status := ""
		if describe {
			status = fmt.Sprintf("%s is %s", c.Label, op.Status)
			if op.Err != "" {
				status += " (" + op.Err + ")"
			}
		}
		switch c.Kind {
		case CondOp:
			return op.Status.String() == c.Status.String(), status, nil
		case CondValue:
			if op.Status != sim.OpOK {
				return false, status, nil
			}
			v, found := op.Found()
			if c.Value == nil {
				return !found, seen("%s returned %q", c.Label, v), nil
			}
			if !found {
				return false, seen("%s found no key", c.Label), nil
			}
			return v == *c.Value, seen("%s returned %q", c.Label, v), nil
		case CondKeys:
			var keys []string
			for _, kv := range op.KVs() {
				keys = append(keys, string(kv.Key))
			}
			holds := op.Status == sim.OpOK && slices.Equal(keys, c.Keys)
			if !describe {
				return holds, "", nil
			}
			return holds, fmt.Sprintf("%s returned keys %s", c.Label, list(keys)), nil
		case CondEvents:
			n := uint64(len(op.Events()))
			return c.Cmp.Holds(n), seen("%s delivered %d events", c.Label, n), nil
		case CondRevision:
			if op.Status != sim.OpOK {
				return false, status, nil
			}
			return c.Cmp.Holds(uint64(op.Revision())), seen("%s answered at revision %d", c.Label, op.Revision()), nil
		case CondModRevision:
			if op.Status != sim.OpOK {
				return false, status, nil
			}
			mod := int64(0)
			if _, found := op.Found(); found {
				mod = op.KVs()[0].ModRevision
			}
			return c.Cmp.Holds(uint64(mod)), seen("%s read mod_revision %d", c.Label, mod), nil
		case CondSucceeded:
			if op.Status != sim.OpOK || op.Resp.Txn == nil {
				return false, status, nil
			}
			return op.Resp.Txn.Succeeded == c.Succeeded, seen("%s succeeded: %v", c.Label, op.Resp.Txn.Succeeded), nil
		case CondWatch:
			got := watchEvents(op)
			return slices.Equal(got, c.Events), seen("%s delivered %s", c.Label, list(got)), nil
		default:
			return op.Err != "" && strings.Contains(op.Err, c.Substr), status, nil
		}
	case CondVoters, CondLearners:
		voters, learners, ok := w.Membership()
		if !ok {
			return false, "there is no leader to ask", nil
		}
		want, err := r.resolveAll(c.Refs)
		if err != nil {
			return false, "", err
		}
		have := voters
		if c.Kind == CondLearners {
			have = learners
		}
		if !describe {
			return sameSet(want, have), "", nil
		}
		return sameSet(want, have), fmt.Sprintf("the leader's configuration has voters %s, learners %s", list(voters), list(learners)), nil
	case CondConverged:
		conv := w.Converged()
		return conv == c.Converged, seen("converged is %v", conv), nil
	case CondLinearizable:
		lin := r.linearizability()
		if lin.Result != "linearizable" && lin.Result != "NOT linearizable" {
			return false, seen("the linearizability check says %s", lin.Result), nil
		}
		return lin.OK == c.Converged, seen("the client history so far is %s", lin.Result), nil
	case CondLog:
		return r.forEachNode(c, func(in sim.MemberInfo) (bool, string) {
			terms, _ := w.LogTerms(in.Name)
			return slices.Equal(terms, c.Terms), seen("%s's log is %s", in.Name, formatTerms(terms))
		})
	case CondSent:
		from, err := r.resolveAll(c.From)
		if err != nil {
			return false, "", err
		}
		to, err := r.resolveAll(c.To)
		if err != nil {
			return false, "", err
		}
		// Messages are counted incrementally: each instant only looks at
		// the events since the last look.
		for ; cs.scanned < w.HistoryLen(); cs.scanned++ {
			e := w.EventAt(cs.scanned)
			if e.Kind != sim.EvSend || e.Msg.Type != c.MsgType || c.Reject != nil && e.Msg.Reject != *c.Reject {
				continue
			}
			if (len(c.From) == 0 || slices.Contains(from, r.name(e.Node))) && (len(c.To) == 0 || slices.Contains(to, r.name(e.Peer))) {
				cs.count++
			}
		}
		return cs.count >= c.Min, seen("%d such messages were sent since the previous expect", cs.count), nil
	case CondViolation:
		v := w.Violation()
		switch {
		case v == nil:
			return false, "no safety invariant has broken", nil
		case c.Invariant != "" && v.Invariant != c.Invariant:
			return false, seen("%s broke instead", v.Invariant), nil
		}
		return true, "", nil
	}
	return false, "", &Error{Pos: c.Pos, Msg: "unknown condition " + c.Kind.String()}
}

// condState is what a condition remembers between instants of one step.
type condState struct {
	scanned int // history events looked at (sent:)
	count   int
}

func (r *Runner) name(id uint64) string {
	names := r.w.MemberNames()
	if id >= 1 && id <= uint64(len(names)) {
		return names[id-1]
	}
	return ""
}

// forEachNode checks a per-node condition on every node its reference
// resolves to.
func (r *Runner) forEachNode(c *Condition, holds func(sim.MemberInfo) (bool, string)) (bool, string, *Error) {
	names, err := r.resolveAll([]NodeRef{c.Node})
	if err != nil {
		return false, "", err
	}
	var seen []string
	ok := true
	for _, n := range names {
		in, found := r.w.Info(n)
		if !found {
			return false, "", &Error{Pos: c.Node.Pos, Msg: "no member named " + n}
		}
		h, what := holds(in)
		ok = ok && h
		seen = append(seen, what)
	}
	return ok, strings.Join(seen, "; "), nil
}

// list writes names as a scenario would: [a, b].
func list(names []string) string { return "[" + strings.Join(names, ", ") + "]" }

func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// describe writes a condition back the way the file says it, for messages.
func describe(c *Condition) string {
	refs := func(rs []NodeRef) string {
		var s []string
		for _, r := range rs {
			s = append(s, r.String())
		}
		if len(s) == 1 {
			return s[0]
		}
		return "[" + strings.Join(s, ", ") + "]"
	}
	switch c.Kind {
	case CondLeader:
		switch {
		case c.NoLeader:
			return "leader: none"
		case c.AnyLeader:
			return "leader: any"
		}
		return "leader: " + refs(c.Refs)
	case CondLeaders:
		if c.CountSet {
			return fmt.Sprintf("leaders: %d", c.Count)
		}
		return "leaders: " + refs(c.Refs)
	case CondRole:
		return fmt.Sprintf("role: {%s: %s}", c.Node, c.Role)
	case CondTerm, CondCommit, CondLastIndex, CondFirstIndex:
		return fmt.Sprintf("%s: {%s: %s}", c.Kind, c.Node, c.Cmp)
	case CondOp:
		return fmt.Sprintf("op: {%s: %s}", c.Label, c.Status)
	case CondValue:
		return fmt.Sprintf("value: {%s: %s}", c.Label, valueString(c.Value))
	case CondKeys:
		return fmt.Sprintf("keys: {%s: %s}", c.Label, list(c.Keys))
	case CondEvents:
		return fmt.Sprintf("events: {%s: %s}", c.Label, c.Cmp)
	case CondError:
		return fmt.Sprintf("error: {%s: %q}", c.Label, c.Substr)
	case CondKV:
		return fmt.Sprintf("kv: {%s: {%s: %s}}", c.Node, c.Key, valueString(c.Value))
	case CondVoters, CondLearners:
		return c.Kind.String() + ": " + refs(c.Refs)
	case CondConverged:
		return fmt.Sprintf("converged: %v", c.Converged)
	case CondRevision, CondModRevision:
		return fmt.Sprintf("%s: {%s: %s}", c.Kind, c.Label, c.Cmp)
	case CondStoreRevision:
		return fmt.Sprintf("store_revision: {%s: %s}", c.Node, c.Cmp)
	case CondDBSize, CondDBInUse:
		return fmt.Sprintf("%s: {%s: %s}", c.Kind, c.Node, c.Cmp)
	case CondAlarm:
		return fmt.Sprintf("alarm: {%s: %s}", c.Node, cmp.Or(c.Alarm, "none"))
	case CondSucceeded:
		return fmt.Sprintf("succeeded: {%s: %v}", c.Label, c.Succeeded)
	case CondLease:
		return fmt.Sprintf("lease: {%s: %s}", c.Label, aliveWord(c.Alive))
	case CondWatch:
		return fmt.Sprintf("watch: {%s: %s}", c.Label, list(c.Events))
	case CondAnyOf:
		var groups []string
		for _, alt := range c.Alternatives {
			var parts []string
			for i := range alt {
				parts = append(parts, describe(&alt[i]))
			}
			groups = append(groups, "{"+strings.Join(parts, ", ")+"}")
		}
		return "any_of: [" + strings.Join(groups, ", ") + "]"
	case CondLinearizable:
		return fmt.Sprintf("linearizable: %v", c.Converged)
	case CondLog:
		return fmt.Sprintf("log: {%s: %s}", c.Node, formatTerms(c.Terms))
	case CondSent:
		s := "sent: {type: " + c.MsgType.String()
		if len(c.From) > 0 {
			s += ", from: " + refs(c.From)
		}
		if len(c.To) > 0 {
			s += ", to: " + refs(c.To)
		}
		if c.Reject != nil {
			s += fmt.Sprintf(", reject: %v", *c.Reject)
		}
		return s + fmt.Sprintf(", min: %d}", c.Min)
	case CondViolation:
		if c.Invariant == "" {
			return "violation: any"
		}
		return fmt.Sprintf("violation: %q", c.Invariant)
	}
	return c.Kind.String()
}

func valueString(v *string) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("%q", *v)
}

func aliveWord(alive bool) string {
	if alive {
		return "alive"
	}
	return "gone"
}

// watchEvents writes a watch's events as the watch: condition reads them:
// "PUT key=value" or "DELETE key", with " prev=value" when the event
// carries the key's previous value.
func watchEvents(op *sim.Op) []string {
	out := []string{}
	for _, e := range op.Events() {
		s := e.Type.String() + " " + string(e.Kv.Key)
		if e.Type == mvccpb.PUT {
			s += "=" + string(e.Kv.Value)
		}
		if e.PrevKv != nil {
			s += " prev=" + string(e.PrevKv.Value)
		}
		out = append(out, s)
	}
	return out
}

// formatTerms writes a log's terms as a scenario does: [1, 2, 4]. A term 0
// is an index compacted away.
func formatTerms(terms []uint64) string {
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = strconv.FormatUint(t, 10)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
