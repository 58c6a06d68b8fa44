package scenarios

import (
	"cmp"
	"fmt"
	"strconv"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"gopkg.in/yaml.v3"

	"github.com/raftsim/raftsim/etcdctl"
	"github.com/raftsim/raftsim/mvcc"
	"github.com/raftsim/raftsim/server"
)

// MarshalScenario writes a scenario back as a file that parses to the same
// steps, configuration and options (positions aside). It is how the swarm
// writes a shrunk reproducer: the swarm builds and edits scenarios, and this
// writer, sharing Marshal's configuration and value writers, turns them into
// files that `raftsim run` and `raftsim play` replay.
func MarshalScenario(s *Scenario) ([]byte, error) {
	if !nameRE.MatchString(s.Name) {
		return nil, fmt.Errorf("scenario name %q: want lower-case letters, digits and dashes", s.Name)
	}
	root := ymap(false)
	yadd(root, "name", ystr(s.Name))
	if s.Session {
		yadd(root, "session", ybool(true))
	}
	if !s.Title.IsZero() {
		yadd(root, "title", ytext(s.Title))
	}
	if !s.Summary.IsZero() {
		yadd(root, "summary", ytext(s.Summary))
	}
	if s.SeedSet || s.Seed != 1 {
		yadd(root, "seed", yplain(strconv.FormatUint(s.Seed, 10)))
	}
	if len(s.Config.Bugs) > 0 {
		yadd(root, "bugs", ybugs(s.Config.Bugs))
	}
	yadd(root, "cluster", clusterNode(s.Config))
	yadd(root, "network", networkNode(s.Config))
	if len(s.Config.Clients) > 0 {
		yadd(root, "clients", clientsNode(s.Config.Clients))
	}
	steps := &yaml.Node{Kind: yaml.SequenceNode}
	for i := range s.Steps {
		st, err := scenarioStepNode(&s.Steps[i])
		if err != nil {
			return nil, fmt.Errorf("step %d (%s): %w", i+1, s.Steps[i].Kind, err)
		}
		steps.Content = append(steps.Content, st)
	}
	yadd(root, "steps", steps)
	return yaml.Marshal(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}})
}

// scenarioStepNode writes one step of a scenario.
func scenarioStepNode(s *Step) (*yaml.Node, error) {
	st := ymap(true)
	switch {
	case s.At != nil:
		yadd(st, "at", yplain(s.At.String()))
	case s.After > 0:
		yadd(st, "after", yplain(s.After.String()))
	}
	v, err := stepValueNode(s)
	if err != nil {
		return nil, err
	}
	yadd(st, s.Kind.String(), v)
	if len(s.Shows) > 0 {
		yadd(st, "shows", showsNode(s.Shows))
	}
	if s.Why != nil {
		yadd(st, "why", whyNode(s.Why))
	}
	return st, nil
}

// stepValueNode writes the value of a step's action key: one writer a
// step kind, the short ones inline.
func stepValueNode(s *Step) (*yaml.Node, error) {
	switch s.Kind {
	case StepSay, StepPause, StepChapter:
		return ytext(s.Text), nil
	case StepWait:
		return yplain(s.Wait.String()), nil
	case StepLet:
		return letNode(s)
	case StepRestart:
		return restartNode(s), nil
	case StepCrash, StepIsolate, StepCampaign, StepSnapshot, StepStart, StepLose, StepDefrag:
		return yrefs(s.Nodes), nil
	case StepSnapshotSave:
		v := ymap(true)
		yadd(v, "node", yrefs(s.Nodes))
		yadd(v, "file", ystr(s.File))
		return v, nil
	case StepSnapshotRestore:
		return snapshotRestoreNode(s)
	case StepPromote, StepRemoveMember:
		return promoteOrRemoveNode(s), nil
	case StepUpdateMember:
		v := ymap(true)
		yadd(v, "node", yrefs(s.Nodes))
		yadd(v, "peer_url", ystr(s.PeerURL))
		membershipCallNode(v, s)
		return v, nil
	case StepAuth:
		return authStepNode(s)
	case StepDowngrade:
		return downgradeStepNode(s)
	case StepMemberList, StepAlarmList, StepAlarmDisarm, StepLeaseList:
		return clusterListNode(s), nil
	case StepStall:
		v := ymap(true)
		yadd(v, "node", yrefs(s.Nodes))
		yadd(v, "for", yplain(s.For.String()))
		return v, nil
	case StepClock:
		v := ymap(true)
		yadd(v, "node", yrefs(s.Nodes))
		yadd(v, "rate", yplain(strconv.FormatFloat(s.Rate, 'g', -1, 64)))
		return v, nil
	case StepPartition:
		v := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, g := range s.Groups {
			v.Content = append(v.Content, yrefList(g))
		}
		return v, nil
	case StepCut, StepRestore, StepLink:
		return linkChangeNode(s)
	case StepHeal:
		return yplain("all"), nil
	case StepTransferLeader:
		if len(s.To) != 1 {
			return nil, fmt.Errorf("transfer_leader needs one target")
		}
		v := ymap(true)
		yadd(v, "to", yref(s.To[0]))
		return v, nil
	case StepAddMember:
		return addMemberNode(s), nil
	case StepPut, StepDelete, StepGet, StepWatch, StepTxn, StepCompact, StepLeaseGrant, StepLeaseRevoke,
		StepLeaseKeepAlive, StepLeaseTimeToLive:
		return opNode(s), nil
	case StepCancel:
		return ystr(s.Cancel), nil
	case StepWatchProgress:
		return ylist(s.Progress), nil
	case StepLoad:
		if s.Load == nil {
			return nil, fmt.Errorf("a load with no workload")
		}
		return loadNode(s), nil
	case StepExpect, StepExpectAlways:
		return expectNode(s)
	}
	return nil, fmt.Errorf("cannot write a %s step", s.Kind)
}

// letNode writes let:'s bindings, a list or a single reference each.
func letNode(s *Step) (*yaml.Node, error) {
	v := ymap(true)
	for _, b := range s.Bindings {
		if b.List {
			yadd(v, b.Name, yrefList(b.Refs))
		} else if len(b.Refs) == 1 {
			yadd(v, b.Name, yref(b.Refs[0]))
		} else {
			return nil, fmt.Errorf("let %s: %d references but not a list", b.Name, len(b.Refs))
		}
	}
	return v, nil
}

// restartNode writes restart:, its nodes alone unless it restarts from a
// data directory or forces a new cluster.
func restartNode(s *Step) *yaml.Node {
	if s.DataDir == "" && !s.ForceNewCluster {
		return yrefs(s.Nodes)
	}
	v := ymap(true)
	yadd(v, "node", yrefs(s.Nodes))
	if s.DataDir != "" {
		yadd(v, "data_dir", ystr(s.DataDir))
	}
	if s.ForceNewCluster {
		yadd(v, "force_new_cluster", ybool(true))
	}
	return v
}

// snapshotRestoreNode writes snapshot_restore:'s flags, those given.
func snapshotRestoreNode(s *Step) (*yaml.Node, error) {
	if s.Restore == nil {
		return nil, fmt.Errorf("a snapshot_restore without its flags")
	}
	v := ymap(false)
	yadd(v, "file", ystr(s.Restore.File))
	yadd(v, "name", ystr(s.Restore.Name))
	for _, o := range [][2]string{{"initial_cluster", s.Restore.InitialCluster}, {"initial_cluster_token", s.Restore.Token},
		{"initial_advertise_peer_urls", s.Restore.PeerURL}, {"data_dir", s.Restore.DataDir}} {
		if o[1] != "" {
			yadd(v, o[0], ystr(o[1]))
		}
	}
	return v, nil
}

// promoteOrRemoveNode writes promote: or remove_member:, its nodes alone
// unless the call is sent through a member or labelled.
func promoteOrRemoveNode(s *Step) *yaml.Node {
	if s.Via.Kind == 0 && s.Label == "" {
		return yrefs(s.Nodes)
	}
	v := ymap(true)
	yadd(v, "node", yrefs(s.Nodes))
	membershipCallNode(v, s)
	return v
}

// authStepNode writes auth:, its request as JSON.
func authStepNode(s *Step) (*yaml.Node, error) {
	if s.Req.Auth == nil {
		return nil, fmt.Errorf("an auth step without its request")
	}
	j, err := authJSON(s.Req.Auth)
	if err != nil {
		return nil, err
	}
	v := ymap(true)
	membershipCallNode(v, s)
	yadd(v, "request", ystr(j))
	return v, nil
}

// clusterListNode writes member_list:, alarm_list:, alarm_disarm: or
// lease_list:, with its consistency when serializable.
func clusterListNode(s *Step) *yaml.Node {
	v := ymap(true)
	membershipCallNode(v, s)
	if s.Req.Serializable() {
		yadd(v, "consistency", yplain("serializable"))
	}
	return v
}

// linkChangeNode writes cut:, restore: or link: (with what it changes),
// and both: only when false, its default being true.
func linkChangeNode(s *Step) (*yaml.Node, error) {
	v := ymap(true)
	yadd(v, "from", yrefs(s.From))
	yadd(v, "to", yrefs(s.To))
	if s.Kind == StepLink {
		if s.Latency == nil && s.Loss == nil && s.Duplicate == nil {
			return nil, fmt.Errorf("a link change with nothing to change")
		}
		if s.Latency != nil {
			yadd(v, "latency", ystr(s.Latency.String()))
		}
		if s.Loss != nil {
			yadd(v, "loss", ystr(s.Loss.String()))
		}
		if s.Duplicate != nil {
			yadd(v, "duplicate", ystr(s.Duplicate.String()))
		}
	}
	if !s.Both {
		yadd(v, "both", ybool(false))
	}
	return v, nil
}

// addMemberNode writes add_member:, leaving out what is the default.
func addMemberNode(s *Step) *yaml.Node {
	v := ymap(true)
	yadd(v, "name", ystr(s.Name))
	if s.Learner {
		yadd(v, "learner", ybool(true))
	}
	if s.PeerURL != "" {
		yadd(v, "peer_url", ystr(s.PeerURL))
	}
	if !s.Start {
		yadd(v, "start", ybool(false)) // the default is true
	}
	membershipCallNode(v, s)
	return v
}

// membershipCallNode writes the keys a membership step shares with a
// client operation: via (when not the default, the leader) and as.
func membershipCallNode(m *yaml.Node, s *Step) {
	if s.Via.Kind != 0 {
		yadd(m, "via", yref(s.Via))
	}
	stepSender(m, s)
	if s.Label != "" {
		yadd(m, "as", ystr(s.Label))
	}
}

// opNode writes the argument of a client operation (put, delete, get,
// watch, txn, compact and the lease requests) from its request.
func opNode(s *Step) *yaml.Node {
	m := ymap(true)
	yadd(m, "via", yref(s.Via))
	stepSender(m, s)
	if s.Timeout > 0 {
		yadd(m, "timeout", yplain(s.Timeout.String()))
	}
	flag := func(key string, on bool) {
		if on {
			yadd(m, key, ybool(true))
		}
	}
	number := func(key string, v int64) {
		if v != 0 {
			yadd(m, key, yplain(strconv.FormatInt(v, 10)))
		}
	}
	r := &s.Req
	if key, end := r.KeyRange(); hasKey(s.Kind, "key") {
		switch {
		case len(end) == 0:
			yadd(m, "key", ystr(string(key)))
		case server.IsPrefix(key, end):
			if mvcc.IsGteEnd(end) {
				key = nil // the empty prefix, which clientv3 sends as "\x00" from on
			}
			yadd(m, "key", ystr(string(key)))
			flag("prefix", true)
		case mvcc.IsGteEnd(end):
			yadd(m, "key", ystr(string(key)))
			flag("from_key", true)
		default:
			yadd(m, "key", ystr(string(key)))
			yadd(m, "range_end", ystr(string(end)))
		}
	}
	if p := r.Put; p != nil {
		yadd(m, "value", ystr(string(p.Value)))
	}
	if g := r.Range; g != nil {
		if g.Serializable {
			yadd(m, "consistency", yplain("serializable"))
		}
		flag("keys_only", g.KeysOnly)
	}
	flag("require_leader", s.RequireLeader)
	switch {
	case r.Range != nil:
		number("rev", r.Range.Revision)
	case r.Watch != nil:
		number("rev", r.Watch.StartRevision)
	case r.Compaction != nil:
		number("rev", r.Compaction.Revision)
	}
	if s.RevOf != "" {
		yadd(m, "rev_of", ystr(s.RevOf))
	}
	if g := r.Range; g != nil {
		number("limit", g.Limit)
		flag("count_only", g.CountOnly)
		number("min_mod_rev", g.MinModRevision)
		number("max_mod_rev", g.MaxModRevision)
		number("min_create_rev", g.MinCreateRevision)
		number("max_create_rev", g.MaxCreateRevision)
		if g.SortTarget != etcdserverpb.RangeRequest_KEY {
			yadd(m, "sort_by", yplain(etcdctl.SortTargetName(g.SortTarget)))
		}
		if g.SortOrder != etcdserverpb.RangeRequest_NONE {
			yadd(m, "order", yplain(g.SortOrder.String()))
		}
	}
	flag("prev_kv", r.Put.GetPrevKv() || r.DeleteRange.GetPrevKv() || r.Watch.GetPrevKv())
	flag("ignore_value", r.Put.GetIgnoreValue())
	flag("ignore_lease", r.Put.GetIgnoreLease())
	flag("progress_notify", r.Watch.GetProgressNotify())
	switch {
	case s.LeaseLabel != "":
		yadd(m, "lease", ystr(s.LeaseLabel))
	case s.Kind == StepLeaseRevoke || s.Kind == StepLeaseKeepAlive || s.Kind == StepLeaseTimeToLive:
		yadd(m, "lease", yplain(strconv.FormatInt(r.Lease(), 10))) // 0 too: a call about no lease
	case s.Kind != StepLeaseGrant:
		number("lease", r.Lease())
	}
	if g := r.LeaseGrant; g != nil {
		yadd(m, "ttl", yplain(strconv.FormatInt(g.TTL, 10))) // 0 too: etcd grants its minimum
	}
	flag("repeat", s.Repeat)
	flag("keys", r.LeaseTimeToLive.GetKeys())
	if t := r.Txn; t != nil {
		txnBody(m, t)
	}
	if s.Label != "" {
		yadd(m, "as", ystr(s.Label))
	}
	return m
}

// txnBody writes a transaction's if, then and else into m: compares and
// operations in etcdctl's txn syntax, and a transaction nested in a branch
// as {txn: {if, then, else}}, which etcdctl's syntax has not.
func txnBody(m *yaml.Node, t *etcdserverpb.TxnRequest) {
	var cmp []string
	for _, c := range t.Compare {
		cmp = append(cmp, etcdctl.FormatCompare(c))
	}
	if len(cmp) > 0 {
		yadd(m, "if", ylist(cmp))
	}
	for _, branch := range []struct {
		key string
		ops []*etcdserverpb.RequestOp
	}{{"then", t.Success}, {"else", t.Failure}} {
		if len(branch.ops) == 0 {
			continue
		}
		l := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, op := range branch.ops {
			if nested := op.GetRequestTxn(); nested != nil {
				body := ymap(true)
				txnBody(body, nested)
				n := ymap(true)
				yadd(n, "txn", body)
				l.Content = append(l.Content, n)
				continue
			}
			l.Content = append(l.Content, ystr(etcdctl.FormatRequest(op)))
		}
		yadd(m, branch.key, l)
	}
}

// loadNode writes load:. Its via is written only when the file named it.
func loadNode(s *Step) *yaml.Node {
	m := loadSpecNode(s.Load, len(s.LoadVia) > 0)
	if s.Background {
		yadd(m, "background", ybool(true))
	}
	return m
}

// expectNode writes expect and expect_always: the conditions, then
// within: or for:.
func expectNode(s *Step) (*yaml.Node, error) {
	m, err := condsNode(s.Conds)
	if err != nil {
		return nil, err
	}
	switch {
	case s.Kind == StepExpectAlways:
		yadd(m, "for", yplain(s.For.String()))
	case s.Within > 0:
		yadd(m, "within", yplain(s.Within.String()))
	}
	return m, nil
}

// condsNode writes conditions as one mapping. The entries of a map-shaped
// condition (role:, op:, kv: ...) that follow each other go in one map,
// as the parser splits them.
func condsNode(conds []Condition) (*yaml.Node, error) {
	m := ymap(true)
	var last *yaml.Node // the map of the previous condition, while the kind repeats
	var lastKind CondKind
	for i := range conds {
		c := &conds[i]
		entry := func(key string, v *yaml.Node) {
			if last == nil || lastKind != c.Kind {
				last, lastKind = ymap(true), c.Kind
				yadd(m, c.Kind.String(), last)
			}
			yadd(last, key, v)
		}
		switch c.Kind {
		case CondLeader:
			switch {
			case c.AnyLeader:
				yadd(m, "leader", yplain("any"))
			case c.NoLeader:
				yadd(m, "leader", yplain("none"))
			default:
				yadd(m, "leader", yrefs(c.Refs))
			}
		case CondLeaders:
			if c.CountSet {
				yadd(m, "leaders", yplain(strconv.Itoa(c.Count)))
			} else {
				yadd(m, "leaders", yrefList(c.Refs))
			}
		case CondVoters, CondLearners:
			yadd(m, c.Kind.String(), yrefList(c.Refs))
		case CondConverged, CondLinearizable:
			yadd(m, c.Kind.String(), ybool(c.Converged))
		case CondSent:
			n := ymap(true)
			yadd(n, "type", yplain(c.MsgType.String()))
			if len(c.From) > 0 {
				yadd(n, "from", yrefs(c.From))
			}
			if len(c.To) > 0 {
				yadd(n, "to", yrefs(c.To))
			}
			yadd(n, "min", yplain(strconv.Itoa(c.Min)))
			if c.Reject != nil {
				yadd(n, "reject", ybool(*c.Reject))
			}
			yadd(m, "sent", n)
		case CondViolation:
			inv := c.Invariant
			if inv == "" {
				inv = "any"
			}
			yadd(m, "violation", ystr(inv))
		case CondAnyOf:
			alts := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
			for _, group := range c.Alternatives {
				g, err := condsNode(group)
				if err != nil {
					return nil, err
				}
				alts.Content = append(alts.Content, g)
			}
			yadd(m, "any_of", alts)
		case CondRole:
			entry(c.Node.String(), yplain(c.Role.String()))
		case CondTerm, CondCommit, CondLastIndex, CondFirstIndex, CondStoreRevision, CondDBSize, CondDBInUse:
			entry(c.Node.String(), ystr(c.Cmp.String()))
		case CondAlarm:
			entry(c.Node.String(), yplain(cmp.Or(c.Alarm, "none")))
		case CondLog:
			terms := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Content: []*yaml.Node{}}
			for _, t := range c.Terms {
				terms.Content = append(terms.Content, yplain(strconv.FormatUint(t, 10)))
			}
			entry(c.Node.String(), terms)
		case CondKV:
			// kv: {ref: {key: value}}: one inner map per node, in order.
			if last == nil || lastKind != c.Kind {
				last, lastKind = ymap(true), c.Kind
				yadd(m, "kv", last)
			}
			var inner *yaml.Node
			if n := len(last.Content); n >= 2 && last.Content[n-2].Value == c.Node.String() {
				inner = last.Content[n-1]
			} else {
				inner = ymap(true)
				yadd(last, c.Node.String(), inner)
			}
			yadd(inner, c.Key, ynullable(c.Value))
			continue
		case CondOp:
			entry(c.Label, yplain(c.Status.String()))
		case CondValue:
			entry(c.Label, ynullable(c.Value))
		case CondKeys:
			entry(c.Label, ylist(c.Keys))
		case CondEvents, CondRevision, CondModRevision:
			entry(c.Label, ystr(c.Cmp.String()))
		case CondSucceeded:
			entry(c.Label, ybool(c.Succeeded))
		case CondLease:
			state := "gone"
			if c.Alive {
				state = "alive"
			}
			entry(c.Label, yplain(state))
		case CondWatch:
			entry(c.Label, ylist(c.Events))
		case CondError:
			entry(c.Label, ystr(c.Substr))
		default:
			return nil, fmt.Errorf("cannot write condition %s", c.Kind)
		}
		if c.Kind != lastKind {
			last = nil
		}
	}
	return m, nil
}

// ytext writes a caption: a plain string, or {en: .., zh: ..}.
func ytext(t Text) *yaml.Node {
	if t.Zh == "" {
		return ystr(t.En)
	}
	m := ymap(true)
	if t.En != "" {
		yadd(m, "en", ystr(t.En))
	}
	yadd(m, "zh", ystr(t.Zh))
	return m
}

func yref(r NodeRef) *yaml.Node { return ystr(r.String()) }

// yrefs writes one reference as a scalar and several as a list.
func yrefs(rs []NodeRef) *yaml.Node {
	if len(rs) == 1 {
		return yref(rs[0])
	}
	return yrefList(rs)
}

func yrefList(rs []NodeRef) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Content: []*yaml.Node{}}
	for _, r := range rs {
		n.Content = append(n.Content, yref(r))
	}
	return n
}

func ynullable(v *string) *yaml.Node {
	if v == nil {
		return yplain("null")
	}
	return ystr(*v)
}

// stepSender writes a step's by: and external:.
func stepSender(m *yaml.Node, s *Step) {
	if s.By != "" {
		yadd(m, "by", ystr(s.By))
	}
	if s.External {
		yadd(m, "external", ybool(true))
	}
	if s.Req.Token != "" {
		yadd(m, "token", ystr(s.Req.Token))
	}
}

// downgradeStepNode writes a downgrade: step.
func downgradeStepNode(s *Step) (*yaml.Node, error) {
	d := s.Downgrade
	if d == nil {
		return nil, fmt.Errorf("a downgrade step without its request")
	}
	v := ymap(true)
	membershipCallNode(v, s)
	yadd(v, "action", yplain(downgradeActions[d.Action]))
	if d.Action != etcdserverpb.DowngradeRequest_CANCEL {
		yadd(v, "version", ystr(d.Version))
	}
	return v, nil
}
