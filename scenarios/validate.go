package scenarios

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// validator walks the steps in order, keeping what is statically known at
// each step: the members (bootstrap ones and those added by earlier
// add_member steps), the variables bound by earlier lets, the labels of
// earlier operations, and the earliest virtual time the step can run at.
type validator struct {
	p *parser
	s *Scenario

	known   map[string]bool // every member name so far, including removed ones
	current []string        // members now, in order, as far as names tell
	lost    map[string]bool // members a lose step named: add_member may name them again
	clients map[string]bool
	vars    map[string]varInfo
	labels  map[string]labelInfo

	loadRequests int // what the load steps so far send
	loadRate     int // their rates, added up
	loadKeys     int // their keys, added up
	writes       int // the steps that write: puts, deletes, transactions

	// latest is, for each step, the latest virtual time it can end at
	// (timing), for the compactors' writes over the run (compactors).
	latest        []time.Duration
	compactorsOff bool // a step passed the compactors' bound: report it once
	heartbeatsOff bool // a step passed the heartbeats' bound: report it once

	// onScreen is the narrative step on screen (the latest), whose shows:
	// are checked when it leaves the screen: at the next narrative step,
	// or at the end.
	onScreen *Step

	// later say where a name is introduced after its use, for a hint.
	laterMember map[string]int
	laterVar    map[string]int
	laterLabel  map[string]int
}

type varInfo struct {
	pos  Pos
	list bool // it may resolve to several nodes
	// static are the member names it is bound to, when every ref is a name
	// (or a variable bound to names); otherwise staticOK is false.
	static   []string
	staticOK bool
}

type labelInfo struct {
	kind   StepKind
	prefix bool
	pos    Pos
}

func (p *parser) validate(s *Scenario) {
	v := &validator{
		p: p, s: s,
		known:       map[string]bool{},
		clients:     map[string]bool{},
		vars:        map[string]varInfo{},
		labels:      map[string]labelInfo{},
		laterMember: map[string]int{},
		laterVar:    map[string]int{},
		laterLabel:  map[string]int{},
	}
	for _, m := range s.Config.Members {
		v.known[m] = true
		v.current = append(v.current, m)
	}
	for _, c := range s.Config.Clients {
		v.clients[c.Name] = true
	}
	if s.Config.Topology != "" {
		for i := range s.Config.Members {
			if s.Config.Apiservers > 0 && i >= s.Config.Apiservers {
				break
			}
			v.clients[apiserverName(i)] = true
		}
		for i, m := range s.Config.Members {
			if v.clients[m] && i < len(p.memberPos) {
				p.errorf(p.memberPos[i], "member %q has the name of a kube-apiserver that topology: %s builds; via: %s would be ambiguous, choose another name", m, s.Config.Topology, m)
			}
		}
	}
	for _, st := range s.Steps {
		switch {
		case st.Kind == StepAddMember && st.Name != "":
			v.laterMember[st.Name] = st.Pos.Line
		case st.Kind == StepLet:
			for _, b := range st.Bindings {
				v.laterVar[b.Name] = b.Pos.Line
			}
		case st.Label != "":
			v.laterLabel[st.Label] = st.LabelPos.Line
		}
	}
	v.timing()
	for _, st := range s.Steps {
		if st.Kind == StepPut || st.Kind == StepDelete || st.Kind == StepTxn {
			v.writes++
		}
	}
	if most, why := sim.LoadLimit(&s.Config, 0, 0, v.writes); most < 0 {
		p.errorf(p.snapshotPos, "snapshot_every: %d: the %d steps that write are too many (%s)", s.Config.SnapshotEvery, v.writes, why)
	}
	for i := range s.Steps {
		if st := &s.Steps[i]; st.Kind.Narrative() {
			v.shows(st)
			v.onScreen = st
			v.validateWhy(st)
		}
		v.step(&s.Steps[i])
		v.compactors(i)
		v.heartbeats(i)
	}
	v.shows(nil)
	v.violations()
}

// violations checks where violation: may be: alone, in an expect, in the
// last step. The world stops when an invariant breaks, so nothing can come
// after it.
func (v *validator) violations() {
	for i, st := range v.s.Steps {
		for _, c := range st.Conds {
			if c.Kind != CondViolation {
				continue
			}
			switch {
			case st.Kind != StepExpect:
				v.p.errorf(c.Pos, "violation: only an expect can wait for a violation (the world stops when an invariant breaks)")
			case len(st.Conds) > 1:
				v.p.errorf(c.Pos, "violation: put it in an expect of its own, with no other condition")
			case i != len(v.s.Steps)-1:
				v.p.errorf(c.Pos, "violation: the expect that waits for a violation must be the last step: the world stops when an invariant breaks")
			}
		}
	}
}

// timing checks that no at: is earlier than the time the steps before it
// take at least. Only wait:, after: and expect_always's for: take a definite
// time; an expect with within: may finish at once.
//
// It also checks that the scenario cannot run past MaxRunTime: the latest a
// step can end is the sum of every wait, after, within and for before it,
// or an at.
func (v *validator) timing() {
	var t, latest time.Duration
	v.latest = make([]time.Duration, len(v.s.Steps))
	for i, st := range v.s.Steps {
		if st.At != nil {
			if *st.At < t {
				v.p.errorf(st.atPos, "at: %s is earlier than %s, the earliest this step can run after the waits before it; time may never go backwards", *st.At, t)
			}
			// After an error keep the lower bound, so that one early
			// at: does not hide the next.
			t = max(t, *st.At)
			latest = max(latest, *st.At)
		}
		t = addDurations(t, st.After)
		latest = addDurations(latest, st.After)
		switch st.Kind {
		case StepWait:
			t = addDurations(t, st.Wait)
			latest = addDurations(latest, st.Wait)
		case StepExpectAlways:
			t = addDurations(t, st.For)
			latest = addDurations(latest, st.For)
		case StepExpect:
			latest = addDurations(latest, st.Within)
		case StepLoad:
			if st.Load != nil && !st.Background {
				t = addDurations(t, st.Load.For)
				latest = addDurations(latest, st.Load.For)
			}
		}
		v.latest[i] = latest
		if latest > MaxRunTime {
			v.p.errorf(st.Pos, "%v", PastRunTime(st.Kind.String(), latest))
			v.compactorsOff = true // one error for the time
			v.heartbeatsOff = true
			return
		}
	}
}

// compactors checks that the writes of a topology's compactors over the
// run, up to the latest step i can end, and the loads' requests so far
// stay within the load limit (sim.CheckCompactors): the compactors write
// all through the run, not only while a load lasts.
func (v *validator) compactors(i int) {
	if v.compactorsOff || v.loadRequests < 0 {
		return
	}
	st := &v.s.Steps[i]
	if err := sim.CheckCompactors(&v.s.Config, st.Kind.String(), v.latest[i], v.loadRequests, v.loadRate, v.loadKeys, v.writes); err != nil {
		v.p.errorf(st.Pos, "%v", err)
		v.compactorsOff = true
	}
}

// heartbeats checks that the leader's heartbeats over the run, up to the
// latest step i can end, stay within sim.MaxHeartbeats
// (sim.CheckHeartbeats): many members, or a short heartbeat interval,
// cost that much however idle the run is.
func (v *validator) heartbeats(i int) {
	if v.heartbeatsOff {
		return
	}
	st := &v.s.Steps[i]
	if err := sim.CheckHeartbeats(&v.s.Config, len(v.known), st.Kind.String(), v.latest[i]); err != nil {
		v.p.errorf(st.Pos, "%v", err)
		v.heartbeatsOff = true
	}
}

func (v *validator) memberList() string { return strings.Join(v.current, ", ") }

// apiserverName is the name a topology gives the apiserver on the host of
// the i-th member (from 0).
func apiserverName(i int) string { return "apiserver-" + strconv.Itoa(i+1) }

// ref checks a reference to members.
func (v *validator) ref(r NodeRef, what string) {
	switch r.Kind {
	case RefName:
		if !v.p.membersOK || v.known[r.Name] {
			return
		}
		switch {
		case v.clients[r.Name]:
			v.p.errorf(r.Pos, "%s: %q is a client, not a member (members: %s)", what, r.Name, v.memberList())
		case v.laterMember[r.Name] > r.Pos.Line:
			v.p.errorf(r.Pos, "%s: %q is not a member yet; it is added by add_member at line %d, after this step", what, r.Name, v.laterMember[r.Name])
		default:
			v.p.errorf(r.Pos, "%s: unknown member %q (members: %s)", what, r.Name, v.memberList())
		}
	case RefVar:
		if _, ok := v.vars[r.Name]; ok {
			return
		}
		if line := v.laterVar[r.Name]; line > r.Pos.Line {
			v.p.errorf(r.Pos, "%s: $%s is used before the let that binds it at line %d", what, r.Name, line)
		} else {
			v.p.errorf(r.Pos, "%s: $%s is not bound; bind it first with let: {%s: ...}", what, r.Name, r.Name)
		}
	case RefFollowerN:
		if v.p.membersOK && r.N >= len(v.current) {
			v.p.errorf(r.Pos, "%s: @follower%d can never resolve: a cluster of %d members has at most %d followers", what, r.N, len(v.current), len(v.current)-1)
		}
	}
}

func (v *validator) refs(rs []NodeRef, what string) {
	for _, r := range rs {
		v.ref(r, what)
	}
}

// isList reports whether r may resolve to several nodes.
func (v *validator) isList(r NodeRef) bool {
	return r.Kind == RefFollowers || (r.Kind == RefVar && v.vars[r.Name].list)
}

// single checks a reference to exactly one node.
func (v *validator) single(r NodeRef, what string) {
	v.ref(r, what)
	if v.isList(r) {
		v.p.errorf(r.Pos, "%s: want one node, but %s is a list", what, r)
	}
}

// static returns the member names r stands for, if the names tell.
func (v *validator) static(r NodeRef) ([]string, bool) {
	switch r.Kind {
	case RefName:
		return []string{r.Name}, true
	case RefVar:
		if info, ok := v.vars[r.Name]; ok && info.staticOK {
			return info.static, true
		}
	}
	return nil, false
}

func (v *validator) step(st *Step) {
	what := st.Kind.String()
	switch st.Kind {
	case StepLet:
		for _, b := range st.Bindings {
			info := varInfo{pos: b.Pos, list: b.List, staticOK: true}
			for _, r := range b.Refs {
				v.ref(r, "let "+b.Name)
				info.list = info.list || v.isList(r)
				names, ok := v.static(r)
				info.static = append(info.static, names...)
				info.staticOK = info.staticOK && ok
			}
			// Bind after checking, so that let: {a: $a} is an error.
			v.vars[b.Name] = info
		}
	case StepCrash, StepRestart, StepIsolate, StepCampaign, StepSnapshot, StepStall, StepClock, StepStart, StepLose, StepSnapshotSave, StepDefrag:
		v.refs(st.Nodes, what)
		if st.Kind == StepLose {
			for _, r := range st.Nodes {
				if names, ok := v.static(r); ok {
					for _, n := range names {
						if v.lost == nil {
							v.lost = map[string]bool{}
						}
						v.lost[n] = true
					}
				}
			}
		}
	case StepPromote, StepUpdateMember:
		v.refs(st.Nodes, what)
		v.membershipLabel(st)
	case StepMemberList, StepAlarmList, StepAlarmDisarm, StepLeaseList, StepAuth, StepDowngrade:
		v.membershipLabel(st)
	case StepLoad:
		v.loadVia(st)
		if st.Load != nil && st.Load.For > 0 {
			v.loadRequests += sim.LoadRequests(st.Load.For, st.Load.Rate)
			v.loadRate += st.Load.Rate
			v.loadKeys += st.Load.Keys
			if most, why := sim.LoadLimit(&v.s.Config, v.loadRate, v.loadKeys, v.writes); v.loadRequests > most {
				if why == "" {
					why = "each is kept for the linearizability check"
				}
				v.p.errorf(st.Pos, "load: its loads would send %d requests by here; a run may send at most %d (%s)", v.loadRequests, most, why)
				v.loadRequests = math.MinInt / 2 // report it once
			}
		}
	case StepCancel:
		if _, ok := v.labels[st.Cancel]; !ok && st.Cancel != "" {
			v.p.errorf(st.CancelPos, "cancel: no earlier operation has label %q; name one with as: %s", st.Cancel, st.Cancel)
		}
	case StepWatchProgress:
		for i, l := range st.Progress {
			if info, ok := v.labels[l]; !ok {
				v.p.errorf(st.ProgressPos[i], "watch_progress: no earlier watch has label %q; name one with as: %s", l, l)
			} else if info.kind != StepWatch {
				v.p.errorf(st.ProgressPos[i], "watch_progress: %q labels a %s, not a watch", l, info.kind)
			}
		}
	case StepRemoveMember:
		v.refs(st.Nodes, what)
		v.membershipLabel(st)
		for _, r := range st.Nodes {
			if names, ok := v.static(r); ok {
				for _, n := range names {
					v.current = remove(v.current, n)
				}
			}
		}
	case StepAddMember:
		switch {
		case st.Name == "":
		case contains(v.current, st.Name) && v.lost[st.Name]:
			delete(v.lost, st.Name) // a new machine in place of the host lost
		case contains(v.current, st.Name):
			v.p.errorf(st.Pos, "add_member: %q is already a member", st.Name)
		case v.clients[st.Name]:
			v.p.errorf(st.Pos, "add_member: %q is the name of a client; choose another name", st.Name)
		default:
			v.known[st.Name] = true
			v.current = append(v.current, st.Name)
		}
		v.membershipLabel(st)
	case StepPartition:
		v.partition(st)
	case StepCut, StepRestore, StepLink:
		v.refs(st.From, what+" from")
		v.refs(st.To, what+" to")
	case StepTransferLeader:
		for _, r := range st.To {
			v.single(r, "transfer_leader to")
		}
	case StepPut, StepDelete, StepGet, StepWatch, StepTxn, StepCompact, StepLeaseGrant, StepLeaseRevoke,
		StepLeaseKeepAlive, StepLeaseTimeToLive:
		v.via(st)
		v.opRefs(st)
		if st.Label == "" {
			break
		}
		if prev, ok := v.labels[st.Label]; ok {
			v.p.errorf(st.LabelPos, "as: label %q is already used by the %s at line %d; labels name one operation each", st.Label, prev.kind, prev.pos.Line)
			break
		}
		key, end := st.Req.KeyRange()
		v.labels[st.Label] = labelInfo{kind: st.Kind, prefix: server.IsPrefix(key, end), pos: st.LabelPos}
	case StepExpect, StepExpectAlways:
		for i := range st.Conds {
			v.cond(&st.Conds[i])
		}
	}
}

func remove(list []string, s string) []string {
	out := list[:0:0]
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// via checks an operation's client, and marks a client name as RefClient.
func (v *validator) via(st *Step) {
	r := st.Via
	if r.Kind == RefInvalid {
		return
	}
	what := st.Kind.String() + " via"
	if r.Kind != RefName {
		v.single(r, what)
		return
	}
	if v.clients[r.Name] {
		st.Via.Kind = RefClient
		return
	}
	if !v.p.membersOK || v.known[r.Name] {
		return
	}
	clients := []string{}
	for _, c := range v.s.Config.Clients {
		if c.Name != "" && !contains(clients, c.Name) && !v.known[c.Name] {
			clients = append(clients, c.Name)
		}
	}
	if v.s.Config.Topology != "" {
		n := len(v.s.Config.Members)
		if a := v.s.Config.Apiservers; a > 0 && a < n {
			n = a
		}
		clients = append(clients, fmt.Sprintf("apiserver-1..%d (topology: %s)", n, v.s.Config.Topology))
	}
	if len(clients) == 0 {
		clients = append(clients, "none")
	}
	v.p.errorf(r.Pos, "%s: unknown client or member %q (clients: %s; members: %s)", what, r.Name, strings.Join(clients, ", "), v.memberList())
}

// partition checks refs, and when the names tell, that every member is in
// exactly one group.
func (v *validator) partition(st *Step) {
	seen := map[string]Pos{}
	allStatic := true
	for _, g := range st.Groups {
		for _, r := range g {
			v.ref(r, "partition")
			names, ok := v.static(r)
			allStatic = allStatic && ok
			for _, n := range names {
				if first, dup := seen[n]; dup {
					v.p.errorf(r.Pos, "partition: %s is in two groups (first at line %d, column %d); every member is in exactly one group", n, first.Line, first.Col)
					continue
				}
				seen[n] = r.Pos
			}
		}
	}
	if !allStatic || !v.p.membersOK || len(st.Groups) < 2 {
		return
	}
	var missing []string
	for _, m := range v.current {
		if _, ok := seen[m]; !ok {
			missing = append(missing, m)
		}
	}
	if len(missing) > 0 {
		v.p.errorf(st.Pos, "partition: %s in no group; every member is in exactly one group (members: %s)", strings.Join(missing, ", "), v.memberList())
	}
}

// cond checks the references and labels of one condition.
func (v *validator) cond(c *Condition) {
	what := c.Kind.String()
	switch c.Kind {
	case CondLeader, CondLeaders, CondVoters, CondLearners:
		v.refs(c.Refs, what)
	case CondRole, CondTerm, CondCommit, CondLastIndex, CondKV, CondLog, CondFirstIndex, CondDBSize, CondDBInUse, CondAlarm:
		v.ref(c.Node, what)
	case CondSent:
		v.refs(c.From, "sent from")
		v.refs(c.To, "sent to")
	case CondStoreRevision:
		v.ref(c.Node, what)
	case CondAnyOf:
		for _, alt := range c.Alternatives {
			for i := range alt {
				v.cond(&alt[i])
			}
		}
	case CondOp, CondValue, CondKeys, CondEvents, CondError, CondRevision, CondModRevision, CondSucceeded, CondWatch, CondLease:
		l, ok := v.labels[c.Label]
		if !ok {
			if line := v.laterLabel[c.Label]; line > c.Pos.Line {
				v.p.errorf(c.Pos, "%s: label %q is used before the operation that defines it at line %d", what, c.Label, line)
			} else {
				v.p.errorf(c.Pos, "%s: no earlier operation has label %q; name one with as: %s", what, c.Label, c.Label)
			}
			return
		}
		switch {
		case c.Kind == CondValue && (l.kind != StepGet || l.prefix):
			v.p.errorf(c.Pos, "value: %q is a %s at line %d; value: is for a get without prefix (use keys: for a prefix get)", c.Label, describeOp(l), l.pos.Line)
		case c.Kind == CondKeys && (l.kind != StepGet || !l.prefix):
			v.p.errorf(c.Pos, "keys: %q is a %s at line %d; keys: is for a get with prefix: true", c.Label, describeOp(l), l.pos.Line)
		case c.Kind == CondEvents && l.kind != StepWatch:
			v.p.errorf(c.Pos, "events: %q is a %s at line %d; events: is for a watch", c.Label, describeOp(l), l.pos.Line)
		case c.Kind == CondWatch && l.kind != StepWatch:
			v.p.errorf(c.Pos, "watch: %q is a %s at line %d; watch: is for a watch", c.Label, describeOp(l), l.pos.Line)
		case c.Kind == CondModRevision && (l.kind != StepGet || l.prefix):
			v.p.errorf(c.Pos, "mod_revision: %q is a %s at line %d; mod_revision: is for a get without prefix", c.Label, describeOp(l), l.pos.Line)
		case c.Kind == CondSucceeded && l.kind != StepTxn:
			v.p.errorf(c.Pos, "succeeded: %q is a %s at line %d; succeeded: is for a txn", c.Label, describeOp(l), l.pos.Line)
		case c.Kind == CondLease && l.kind != StepLeaseGrant:
			v.p.errorf(c.Pos, "lease: %q is a %s at line %d; lease: is for a lease_grant", c.Label, describeOp(l), l.pos.Line)
		}
	}
}

func describeOp(l labelInfo) string {
	if l.prefix {
		return "prefix " + l.kind.String()
	}
	return l.kind.String()
}

// opRefs checks the labels an operation step refers to: the lease_grant
// of its lease:, and the operation of its rev_of:.
func (v *validator) opRefs(st *Step) {
	if st.LeaseLabel != "" {
		l, ok := v.labels[st.LeaseLabel]
		switch {
		case !ok:
			v.p.errorf(st.LeasePos, "lease: no earlier lease_grant has label %q; grant one with lease_grant: {..., as: %s}", st.LeaseLabel, st.LeaseLabel)
		case l.kind != StepLeaseGrant:
			v.p.errorf(st.LeasePos, "lease: %q is a %s at line %d, not a lease_grant", st.LeaseLabel, describeOp(l), l.pos.Line)
		}
	}
	if st.RevOf != "" {
		if _, ok := v.labels[st.RevOf]; !ok {
			v.p.errorf(st.RevOfPos, "rev_of: no earlier operation has label %q; name one with as: %s", st.RevOf, st.RevOf)
		}
	}
}

// membershipLabel checks a membership change's via and registers its
// label (as:), which names one operation, as a client operation's does.
func (v *validator) membershipLabel(st *Step) {
	if st.Via.Kind != RefInvalid {
		v.via(st) // a member's local client, or a client (etcdctl with its endpoints)
	}
	if st.Label == "" {
		return
	}
	if len(st.Nodes) > 1 {
		v.p.errorf(st.LabelPos, "as: %s names one operation, but acts on %d members", st.Kind, len(st.Nodes))
	}
	if prev, ok := v.labels[st.Label]; ok {
		v.p.errorf(st.LabelPos, "as: label %q is already used by the %s at line %d; labels name one operation each", st.Label, prev.kind, prev.pos.Line)
		return
	}
	v.labels[st.Label] = labelInfo{kind: st.Kind, pos: st.LabelPos}
}
