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
//
// Each condition kind has a handler of its own below, in the order of this
// switch.
func (r *Runner) check(c *Condition, cs *condState, describe bool) (bool, string, *Error) {
	k := condCheck{r: r, w: r.w, c: c, cs: cs, describe: describe}
	switch c.Kind {
	case CondLeader:
		return k.leader()
	case CondLeaders:
		return k.leaders()
	case CondRole:
		return k.role()
	case CondTerm:
		return k.term()
	case CondCommit:
		return k.commit()
	case CondLastIndex:
		return k.lastIndex()
	case CondFirstIndex:
		return k.firstIndex()
	case CondKV:
		return k.kv()
	case CondDBSize:
		return k.dbSize()
	case CondDBInUse:
		return k.dbInUse()
	case CondAlarm:
		return k.alarm()
	case CondStoreRevision:
		return k.storeRevision()
	case CondAnyOf:
		return k.anyOf()
	case CondLease:
		return k.lease()
	case CondOp:
		return k.opStatus()
	case CondValue:
		return k.value()
	case CondKeys:
		return k.keys()
	case CondEvents:
		return k.events()
	case CondError:
		return k.errorText()
	case CondRevision:
		return k.revision()
	case CondModRevision:
		return k.modRevision()
	case CondSucceeded:
		return k.succeeded()
	case CondWatch:
		return k.watch()
	case CondVoters, CondLearners:
		return k.membership()
	case CondConverged:
		return k.converged()
	case CondLinearizable:
		return k.linearizable()
	case CondLog:
		return k.log()
	case CondSent:
		return k.sent()
	case CondViolation:
		return k.violation()
	}
	return false, "", &Error{Pos: c.Pos, Msg: "unknown condition " + c.Kind.String()}
}

// condCheck is one condition being checked at one instant: what each
// condition kind's handler needs.
type condCheck struct {
	r        *Runner
	w        *sim.World
	c        *Condition
	cs       *condState
	describe bool
}

// seen writes what was observed, only when the check describes.
func (k condCheck) seen(format string, args ...any) string {
	if !k.describe {
		return ""
	}
	return fmt.Sprintf(format, args...)
}

// leader: ref | none | any | [refs].
func (k condCheck) leader() (bool, string, *Error) {
	c := k.c
	lead, ok := k.w.Leader()
	switch {
	case c.NoLeader:
		return !ok, k.seen("leader is %s", orNone(lead)), nil
	case c.AnyLeader:
		return ok, "there is no leader", nil
	}
	want, err := k.r.resolveAll(c.Refs)
	if err != nil {
		return false, "", err
	}
	holds := ok && slices.Contains(want, lead)
	if !k.describe {
		return holds, "", nil
	}
	return holds, fmt.Sprintf("leader is %s; wanted one of %s", orNone(lead), list(want)), nil
}

// leaders: N | [refs], the members that believe they lead.
func (k condCheck) leaders() (bool, string, *Error) {
	c := k.c
	var leaders []string
	for _, in := range k.w.Infos() {
		if in.Up && in.Raft == raft.StateLeader {
			leaders = append(leaders, in.Name)
		}
	}
	what := ""
	switch {
	case !k.describe:
	case len(leaders) == 1:
		what = fmt.Sprintf("1 member believes it leads %s", list(leaders))
	default:
		what = fmt.Sprintf("%d members believe they lead %s", len(leaders), list(leaders))
	}
	if c.CountSet {
		return len(leaders) == c.Count, what, nil
	}
	want, err := k.r.resolveAll(c.Refs)
	if err != nil {
		return false, "", err
	}
	return sameSet(want, leaders), what, nil
}

// role: {ref: role}.
func (k condCheck) role() (bool, string, *Error) {
	return k.r.forEachNode(k.c, func(in sim.MemberInfo) (bool, string) {
		// A removed member has shut itself down: it is down too.
		down := k.c.Role == sim.RoleDown && in.Role == sim.RoleRemoved
		return in.Role == k.c.Role || down, k.seen("%s is %s", in.Name, in.Role)
	})
}

// term: {ref: cmp}.
func (k condCheck) term() (bool, string, *Error) {
	return k.r.forEachNode(k.c, func(in sim.MemberInfo) (bool, string) {
		return k.c.Cmp.Holds(in.Term), k.seen("%s is in term %d", in.Name, in.Term)
	})
}

// commit: {ref: cmp}.
func (k condCheck) commit() (bool, string, *Error) {
	return k.r.forEachNode(k.c, func(in sim.MemberInfo) (bool, string) {
		return k.c.Cmp.Holds(in.Commit), k.seen("%s has commit index %d", in.Name, in.Commit)
	})
}

// last_index: {ref: cmp}.
func (k condCheck) lastIndex() (bool, string, *Error) {
	return k.r.forEachNode(k.c, func(in sim.MemberInfo) (bool, string) {
		return k.c.Cmp.Holds(in.LastIndex), k.seen("%s's log ends at %d", in.Name, in.LastIndex)
	})
}

// first_index: {ref: cmp}.
func (k condCheck) firstIndex() (bool, string, *Error) {
	return k.r.forEachNode(k.c, func(in sim.MemberInfo) (bool, string) {
		return k.c.Cmp.Holds(in.FirstIndex), k.seen("%s's log starts at %d (its snapshot is at %d)", in.Name, in.FirstIndex, in.SnapshotIndex)
	})
}

// kv: {ref: {key: v | null}}, read from the member's own store.
func (k condCheck) kv() (bool, string, *Error) {
	c := k.c
	return k.r.forEachNode(c, func(in sim.MemberInfo) (bool, string) {
		if !in.Up {
			return false, k.seen("%s is down", in.Name)
		}
		v, found := k.w.KVGet(in.Name, c.Key)
		if c.Value == nil {
			return !found, k.seen("%s has %s = %q", in.Name, c.Key, v)
		}
		if !found {
			return false, k.seen("%s has no key %s", in.Name, c.Key)
		}
		return v == *c.Value, k.seen("%s has %s = %q", in.Name, c.Key, v)
	})
}

// db_size: {ref: cmp}.
func (k condCheck) dbSize() (bool, string, *Error) {
	return k.r.forEachNode(k.c, func(in sim.MemberInfo) (bool, string) {
		size, inUse := k.w.DBSize(in.Name)
		return size >= 0 && k.c.Cmp.Holds(uint64(size)), k.seen("%s's DB SIZE is %d (IN USE %d)", in.Name, size, inUse)
	})
}

// db_in_use: {ref: cmp}.
func (k condCheck) dbInUse() (bool, string, *Error) {
	return k.r.forEachNode(k.c, func(in sim.MemberInfo) (bool, string) {
		size, inUse := k.w.DBSize(in.Name)
		return inUse >= 0 && k.c.Cmp.Holds(uint64(inUse)), k.seen("%s's IN USE is %d (DB SIZE %d)", in.Name, inUse, size)
	})
}

// alarm: {ref: NOSPACE | none}.
func (k condCheck) alarm() (bool, string, *Error) {
	return k.r.forEachNode(k.c, func(in sim.MemberInfo) (bool, string) {
		if !in.Up {
			return false, k.seen("%s is down", in.Name)
		}
		alarms := k.w.Alarms(in.Name)
		if len(alarms) == 0 {
			return k.c.Alarm == "", k.seen("%s has no alarm", in.Name)
		}
		return slices.Contains(alarms, k.c.Alarm), k.seen("%s has the alarms %s", in.Name, strings.Join(alarms, ", "))
	})
}

// store_revision: {ref: cmp}.
func (k condCheck) storeRevision() (bool, string, *Error) {
	return k.r.forEachNode(k.c, func(in sim.MemberInfo) (bool, string) {
		rev, _, ok := k.w.MemberKV(in.Name)
		if !ok {
			return false, k.seen("%s is down", in.Name)
		}
		return k.c.Cmp.Holds(uint64(rev)), k.seen("%s's store is at revision %d", in.Name, rev)
	})
}

// any_of: [{conditions...}, ...], true when every condition of one group
// holds.
func (k condCheck) anyOf() (bool, string, *Error) {
	c := k.c
	var saw []string
	for i := range c.Alternatives {
		all, what := true, []string{}
		for j := range c.Alternatives[i] {
			ok, s, err := k.r.check(&c.Alternatives[i][j], &condState{}, k.describe)
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
	return false, k.seen("none of the groups held: %s", strings.Join(saw, " | ")), nil
}

// lease: {label: alive | gone}, asked of the leader.
func (k condCheck) lease() (bool, string, *Error) {
	c := k.c
	op := k.w.Op(c.Label)
	if op == nil || op.Status != sim.OpOK {
		return false, k.seen("%s granted no lease", c.Label), nil
	}
	lead, ok := k.w.Leader()
	if !ok {
		return false, k.seen("there is no leader to ask"), nil
	}
	id := op.Resp.LeaseGrant.GetID()
	alive := k.w.LeaseAlive(lead, id)
	return alive == c.Alive, k.seen("the lease %016x of %s is %s at %s", id, c.Label, aliveWord(alive), lead), nil
}

// labelled is the request a per-label condition names and its status in
// words. The request is nil when it has not been sent, and the words say so.
func (k condCheck) labelled() (*sim.Op, string) {
	op := k.w.Op(k.c.Label)
	if op == nil {
		return nil, k.seen("%s has not been sent", k.c.Label)
	}
	status := ""
	if k.describe {
		status = fmt.Sprintf("%s is %s", k.c.Label, op.Status)
		if op.Err != "" {
			status += " (" + op.Err + ")"
		}
	}
	return op, status
}

// op: {label: status}.
func (k condCheck) opStatus() (bool, string, *Error) {
	op, status := k.labelled()
	if op == nil {
		return false, status, nil
	}
	return op.Status.String() == k.c.Status.String(), status, nil
}

// value: {label: v | null}.
func (k condCheck) value() (bool, string, *Error) {
	c := k.c
	op, status := k.labelled()
	if op == nil || op.Status != sim.OpOK {
		return false, status, nil
	}
	v, found := op.Found()
	if c.Value == nil {
		return !found, k.seen("%s returned %q", c.Label, v), nil
	}
	if !found {
		return false, k.seen("%s found no key", c.Label), nil
	}
	return v == *c.Value, k.seen("%s returned %q", c.Label, v), nil
}

// keys: {label: [keys]}.
func (k condCheck) keys() (bool, string, *Error) {
	op, status := k.labelled()
	if op == nil {
		return false, status, nil
	}
	var keys []string
	for _, kv := range op.KVs() {
		keys = append(keys, string(kv.Key))
	}
	holds := op.Status == sim.OpOK && slices.Equal(keys, k.c.Keys)
	if !k.describe {
		return holds, "", nil
	}
	return holds, fmt.Sprintf("%s returned keys %s", k.c.Label, list(keys)), nil
}

// events: {label: cmp}.
func (k condCheck) events() (bool, string, *Error) {
	op, status := k.labelled()
	if op == nil {
		return false, status, nil
	}
	n := uint64(len(op.Events()))
	return k.c.Cmp.Holds(n), k.seen("%s delivered %d events", k.c.Label, n), nil
}

// error: {label: substring}.
func (k condCheck) errorText() (bool, string, *Error) {
	op, status := k.labelled()
	if op == nil {
		return false, status, nil
	}
	return op.Err != "" && strings.Contains(op.Err, k.c.Substr), status, nil
}

// revision: {label: cmp}, the revision of the response's header.
func (k condCheck) revision() (bool, string, *Error) {
	op, status := k.labelled()
	if op == nil || op.Status != sim.OpOK {
		return false, status, nil
	}
	return k.c.Cmp.Holds(uint64(op.Revision())), k.seen("%s answered at revision %d", k.c.Label, op.Revision()), nil
}

// mod_revision: {label: cmp}, of the key a get read (0: none).
func (k condCheck) modRevision() (bool, string, *Error) {
	op, status := k.labelled()
	if op == nil || op.Status != sim.OpOK {
		return false, status, nil
	}
	mod := int64(0)
	if _, found := op.Found(); found {
		mod = op.KVs()[0].ModRevision
	}
	return k.c.Cmp.Holds(uint64(mod)), k.seen("%s read mod_revision %d", k.c.Label, mod), nil
}

// succeeded: {label: bool}, of a txn.
func (k condCheck) succeeded() (bool, string, *Error) {
	op, status := k.labelled()
	if op == nil || op.Status != sim.OpOK || op.Resp.Txn == nil {
		return false, status, nil
	}
	return op.Resp.Txn.Succeeded == k.c.Succeeded, k.seen("%s succeeded: %v", k.c.Label, op.Resp.Txn.Succeeded), nil
}

// watch: {label: [events]}.
func (k condCheck) watch() (bool, string, *Error) {
	op, status := k.labelled()
	if op == nil {
		return false, status, nil
	}
	got := watchEvents(op)
	return slices.Equal(got, k.c.Events), k.seen("%s delivered %s", k.c.Label, list(got)), nil
}

// voters: [refs] and learners: [refs], the leader's configuration.
func (k condCheck) membership() (bool, string, *Error) {
	voters, learners, ok := k.w.Membership()
	if !ok {
		return false, "there is no leader to ask", nil
	}
	want, err := k.r.resolveAll(k.c.Refs)
	if err != nil {
		return false, "", err
	}
	have := voters
	if k.c.Kind == CondLearners {
		have = learners
	}
	if !k.describe {
		return sameSet(want, have), "", nil
	}
	return sameSet(want, have), fmt.Sprintf("the leader's configuration has voters %s, learners %s", list(voters), list(learners)), nil
}

// converged: bool.
func (k condCheck) converged() (bool, string, *Error) {
	conv := k.w.Converged()
	return conv == k.c.Converged, k.seen("converged is %v", conv), nil
}

// linearizable: bool, of the client history so far.
func (k condCheck) linearizable() (bool, string, *Error) {
	lin := k.r.linearizability()
	if lin.Result != "linearizable" && lin.Result != "NOT linearizable" {
		return false, k.seen("the linearizability check says %s", lin.Result), nil
	}
	return lin.OK == k.c.Converged, k.seen("the client history so far is %s", lin.Result), nil
}

// log: {ref: [terms]}.
func (k condCheck) log() (bool, string, *Error) {
	return k.r.forEachNode(k.c, func(in sim.MemberInfo) (bool, string) {
		terms, _ := k.w.LogTerms(in.Name)
		return slices.Equal(terms, k.c.Terms), k.seen("%s's log is %s", in.Name, formatTerms(terms))
	})
}

// sent: {type, from, to, min, reject}, counted since the previous expect.
func (k condCheck) sent() (bool, string, *Error) {
	c, cs := k.c, k.cs
	from, err := k.r.resolveAll(c.From)
	if err != nil {
		return false, "", err
	}
	to, err := k.r.resolveAll(c.To)
	if err != nil {
		return false, "", err
	}
	// Messages are counted incrementally: each instant only looks at
	// the events since the last look.
	for ; cs.scanned < k.w.HistoryLen(); cs.scanned++ {
		e := k.w.EventAt(cs.scanned)
		if e.Kind != sim.EvSend || e.Msg.Type != c.MsgType || c.Reject != nil && e.Msg.Reject != *c.Reject {
			continue
		}
		if (len(c.From) == 0 || slices.Contains(from, k.r.name(e.Node))) && (len(c.To) == 0 || slices.Contains(to, k.r.name(e.Peer))) {
			cs.count++
		}
	}
	return cs.count >= c.Min, k.seen("%d such messages were sent since the previous expect", cs.count), nil
}

// violation: invariant | any.
func (k condCheck) violation() (bool, string, *Error) {
	v := k.w.Violation()
	switch {
	case v == nil:
		return false, "no safety invariant has broken", nil
	case k.c.Invariant != "" && v.Invariant != k.c.Invariant:
		return false, k.seen("%s broke instead", v.Invariant), nil
	}
	return true, "", nil
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
