package scenarios

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"gopkg.in/yaml.v3"

	"github.com/raftsim/raftsim/sim"
)

// actionKind maps a step's action key to its kind.
func actionKind(key string) StepKind {
	for k := StepSay; k < numStepKinds; k++ {
		if stepKindNames[k] == key {
			return k
		}
	}
	return StepInvalid
}

// stepKeys are the keys a step may have: its timing, one action, and for
// a narrative step what the screen shows while it is on screen.
var stepKeys = append([]string{"at", "after", "shows", "why"}, stepKindNames[StepSay:]...)

func (p *parser) steps(n *yaml.Node) []Step {
	items, ok := p.list(n, "steps", "a list of steps, each line starting with -, like - say: hello")
	if !ok {
		return nil
	}
	if len(items) > MaxSteps {
		p.errorf(p.pos(items[MaxSteps]), "steps: more than %d steps; a scenario may have at most %d", MaxSteps, MaxSteps)
		items = items[:MaxSteps]
	}
	out := []Step{}
	for _, it := range items {
		if st, ok := p.step(it); ok {
			out = append(out, st)
		}
	}
	return out
}

// step reads one step. It returns false only when the step's kind could not
// be told; a step with bad arguments is still returned, so that its label and
// bindings keep later steps from piling up errors about them.
func (p *parser) step(n *yaml.Node) (Step, bool) {
	if n.Kind != yaml.MappingNode {
		p.wrong(n, "a step", "a mapping like say: hello or wait: 1s")
		return Step{}, false
	}
	f := p.mapping(n, "a step", stepKeys)
	var st Step
	var action, shows, why *field
	for i := range f {
		x := &f[i]
		switch x.key {
		case "shows":
			shows = x
		case "why":
			why = x
		case "at":
			if d, ok := p.duration(x.v, "at"); ok {
				st.At, st.atPos = &d, p.pos(x.v)
			}
			if k := f.keyNode("after"); k != nil {
				p.errorf(p.pos(x.k), "a step takes at: (an absolute time) or after: (a delay), not both")
			}
		case "after":
			st.After, _ = p.duration(x.v, "after")
		default:
			if action != nil {
				p.errorf(p.pos(x.k), "a step has one action, but this one has %s (line %d) and %s; split them into two steps", action.key, action.k.Line, x.key)
				continue
			}
			action = x
		}
	}
	if action == nil {
		if len(f) > 0 || len(n.Content) == 0 {
			p.errorf(p.pos(n), "a step needs an action, one of: %s", strings.Join(stepKindNames[StepSay:], ", "))
		}
		return Step{}, false
	}
	st.Kind = actionKind(action.key)
	st.Pos = p.pos(action.k)
	st.Both = true
	p.action(&st, action.v)
	if shows != nil {
		if st.Kind.Narrative() {
			p.shows(&st, shows.v)
		} else {
			p.errorf(p.pos(shows.k), "shows: goes with a say, pause or chapter (what the screen shows while that caption is on screen), not with %s", st.Kind)
		}
	}
	if why != nil {
		p.why(&st, why.k, why.v)
	}
	return st, true
}

// action reads the argument v of st's action into st: a dispatcher, with
// the reading of each kind that takes more than one call in a method of
// its own below, in the order of this switch.
func (p *parser) action(st *Step, v *yaml.Node) {
	what := st.Kind.String()
	switch st.Kind {
	case StepSay, StepPause, StepChapter:
		st.Text, _ = p.text(v, what)
	case StepWait:
		st.Wait, _ = p.duration(v, what)
	case StepLet:
		p.let(st, v)
	case StepRestart:
		p.stepRestart(st, v)
	case StepCrash, StepIsolate, StepCampaign, StepSnapshot, StepStart, StepLose, StepDefrag:
		st.Nodes, _ = p.refs(v, what)
	case StepSnapshotSave:
		p.stepSnapshotSave(st, v)
	case StepSnapshotRestore:
		p.snapshotRestore(st, v)
	case StepUpdateMember:
		p.stepUpdateMember(st, v)
	case StepMemberList, StepAlarmList, StepAlarmDisarm, StepLeaseList:
		p.stepListCall(st, v)
	case StepAuth:
		p.auth(st, v)
	case StepDowngrade:
		p.downgrade(st, v)
	case StepPromote, StepRemoveMember:
		p.stepPromote(st, v)
	case StepStall:
		p.stepStall(st, v)
	case StepClock:
		p.stepClock(st, v)
	case StepPartition:
		p.partition(st, v)
	case StepCut, StepRestore, StepLink:
		p.stepLink(st, v)
	case StepCancel:
		if s, ok := p.str(v, what); ok {
			st.Cancel, st.CancelPos = s, p.pos(v)
		}
	case StepWatchProgress:
		p.stepWatchProgress(st, v)
	case StepHeal:
		if v.Kind != yaml.ScalarNode || v.Value != "all" {
			p.wrong(v, "heal", "all (restore every link; use restore: {from, to} for one link)")
		}
	case StepTransferLeader:
		p.stepTransferLeader(st, v)
	case StepAddMember:
		p.stepAddMember(st, v)
	case StepPut, StepDelete, StepGet, StepWatch, StepTxn, StepCompact, StepLeaseGrant, StepLeaseRevoke,
		StepLeaseKeepAlive, StepLeaseTimeToLive:
		p.op(st, v)
	case StepExpect, StepExpectAlways:
		p.expect(st, v)
	case StepLoad:
		p.load(st, v)
	}
}

// stepRestart reads restart: refs | {node, data_dir, force_new_cluster}.
func (p *parser) stepRestart(st *Step, v *yaml.Node) {
	what := st.Kind.String()
	if v.Kind != yaml.MappingNode {
		st.Nodes, _ = p.refs(v, what)
		return
	}
	f := p.mapping(v, what, []string{"node", "data_dir", "force_new_cluster"})
	if f == nil {
		return
	}
	st.Nodes = p.required(f, v, what, "node", "the member(s) to restart", p.refsFn)
	if x := f.get("data_dir"); x != nil {
		st.DataDir, _ = p.path(x, "restart data_dir")
	}
	if x := f.get("force_new_cluster"); x != nil {
		st.ForceNewCluster, _ = p.boolean(x, "restart force_new_cluster")
	}
}

// stepSnapshotSave reads snapshot_save: {node, file}.
func (p *parser) stepSnapshotSave(st *Step, v *yaml.Node) {
	what := st.Kind.String()
	f := p.mapping(v, what, []string{"node", "file"})
	if f == nil {
		return
	}
	if r, ok := p.requiredRef(f, v, what, "node", "the member whose backend is saved"); ok {
		st.Nodes = []NodeRef{r}
	}
	if x := f.get("file"); x == nil {
		p.errorf(p.pos(v), "snapshot_save: missing file: (the snapshot's file name, like backup.db)")
	} else {
		st.File, _ = p.path(x, "snapshot_save file")
	}
}

// stepUpdateMember reads update_member: {node, peer_url, and the call's
// via, by, external, as, token}.
func (p *parser) stepUpdateMember(st *Step, v *yaml.Node) {
	what := st.Kind.String()
	f := p.mapping(v, what, []string{"node", "peer_url", "via", "by", "external", "as", "token"})
	if f == nil {
		return
	}
	st.Nodes = p.required(f, v, what, "node", "the member", p.refsFn)
	if x := f.get("peer_url"); x == nil {
		p.errorf(p.pos(v), "update_member: missing peer_url: (like http://etcd-2:2380)")
	} else if u, ok := p.str(x, "update_member peer_url"); ok {
		if err := checkURL(u); err != nil {
			p.errorf(p.pos(x), "update_member peer_url: %v; want a URL like http://etcd-2:2380", err)
		}
		st.PeerURL = u
	}
	p.membershipCall(st, f, what)
}

// stepListCall reads member_list, alarm_list, alarm_disarm and
// lease_list: {via, by, external, as, token}, and member_list's
// consistency.
func (p *parser) stepListCall(st *Step, v *yaml.Node) {
	what := st.Kind.String()
	keys := []string{"via", "by", "external", "as", "token"}
	if st.Kind == StepMemberList {
		keys = append(keys, "consistency")
	}
	f := p.mapping(v, what, keys)
	if f == nil {
		return
	}
	if st.Kind == StepMemberList {
		st.Req.MemberList = &etcdserverpb.MemberListRequest{Linearizable: !p.serializable(f)}
	}
	if st.Kind == StepLeaseList {
		st.Req.LeaseLeases = &etcdserverpb.LeaseLeasesRequest{}
	}
	p.membershipCall(st, f, what)
}

// stepPromote reads promote and remove_member: refs | {node, and the
// call's via, by, external, as, token}.
func (p *parser) stepPromote(st *Step, v *yaml.Node) {
	what := st.Kind.String()
	if v.Kind != yaml.MappingNode {
		st.Nodes, _ = p.refs(v, what)
		return
	}
	f := p.mapping(v, what, []string{"node", "via", "by", "external", "as", "token"})
	if f == nil {
		return
	}
	st.Nodes = p.required(f, v, what, "node", "the member", p.refsFn)
	p.membershipCall(st, f, what)
}

// stepStall reads stall: {node, for}.
func (p *parser) stepStall(st *Step, v *yaml.Node) {
	what := st.Kind.String()
	f := p.mapping(v, what, []string{"node", "for"})
	if f == nil {
		return
	}
	st.Nodes = p.required(f, v, what, "node", "the node(s) to freeze", p.refsFn)
	if d := f.get("for"); d == nil {
		p.errorf(p.pos(v), "stall: missing for: (how long the process is frozen, like 2s)")
	} else {
		st.For, _ = p.positive(d, "stall for")
	}
}

// stepClock reads clock: {node, rate}.
func (p *parser) stepClock(st *Step, v *yaml.Node) {
	what := st.Kind.String()
	f := p.mapping(v, what, []string{"node", "rate"})
	if f == nil {
		return
	}
	st.Nodes = p.required(f, v, what, "node", "the node(s) whose clock changes", p.refsFn)
	if r := f.get("rate"); r == nil {
		p.errorf(p.pos(v), "clock: missing rate: (1 is normal, 1.1 is 10%% fast, 0.5 is half speed)")
	} else {
		st.Rate, _ = p.rate(r)
	}
}

// stepLink reads cut and restore: {from, to, both}, and link: the same
// with latency, loss and duplicate.
func (p *parser) stepLink(st *Step, v *yaml.Node) {
	what := st.Kind.String()
	keys := []string{"from", "to", "both"}
	if st.Kind == StepLink {
		keys = []string{"from", "to", "latency", "loss", "duplicate", "both"}
	}
	f := p.mapping(v, what, keys)
	if f == nil {
		return
	}
	st.From = p.required(f, v, what, "from", "a node reference", p.refsFn)
	st.To = p.required(f, v, what, "to", "a node reference", p.refsFn)
	if b := f.get("both"); b != nil {
		if both, ok := p.boolean(b, "both"); ok {
			st.Both = both
		}
	}
	if st.Kind == StepLink {
		p.linkChanges(st, f, v)
	}
}

// linkChanges reads what a link: step changes: latency, loss, duplicate,
// at least one of them.
func (p *parser) linkChanges(st *Step, f fields, v *yaml.Node) {
	if x := f.get("latency"); x != nil {
		if l, ok := p.latency(x, "latency"); ok {
			st.Latency = &l
		}
	}
	if x := f.get("loss"); x != nil {
		if r, ok := p.ratio(x, "loss"); ok {
			st.Loss = &r
		}
	}
	if x := f.get("duplicate"); x != nil {
		if r, ok := p.ratio(x, "duplicate"); ok {
			st.Duplicate = &r
		}
	}
	if f.get("latency") == nil && f.get("loss") == nil && f.get("duplicate") == nil {
		p.errorf(p.pos(v), "link: want at least one of latency, loss or duplicate to change")
	}
}

// stepWatchProgress reads watch_progress: label | [labels].
func (p *parser) stepWatchProgress(st *Step, v *yaml.Node) {
	what := st.Kind.String()
	items := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		items = v.Content
	}
	if len(items) == 0 {
		p.wrong(v, what, "the label of a watch, or a list of the labels of one stream's watches")
	}
	for _, it := range items {
		if s, ok := p.str(it, what); ok {
			st.Progress, st.ProgressPos = append(st.Progress, s), append(st.ProgressPos, p.pos(it))
		}
	}
}

// stepTransferLeader reads transfer_leader: {to}.
func (p *parser) stepTransferLeader(st *Step, v *yaml.Node) {
	what := st.Kind.String()
	f := p.mapping(v, what, []string{"to"})
	if f == nil {
		return
	}
	if r, ok := p.requiredRef(f, v, what, "to", "the member to hand leadership to"); ok {
		st.To = []NodeRef{r}
	}
}

// stepAddMember reads add_member: {name, learner, peer_url, start, and
// the call's via, by, external, as, token}.
func (p *parser) stepAddMember(st *Step, v *yaml.Node) {
	what := st.Kind.String()
	f := p.mapping(v, what, []string{"name", "learner", "via", "by", "external", "as", "peer_url", "start", "token"})
	if f == nil {
		return
	}
	if x := f.get("name"); x == nil {
		p.errorf(p.pos(v), "add_member: missing name: (the new member's name, like etcd-6)")
	} else if name, ok := p.name(x, "add_member name"); ok {
		if err := CheckMemberName("add_member name", name); err != nil {
			p.errorf(p.pos(x), "%v", err)
		}
		st.Name = name
	}
	if x := f.get("learner"); x != nil {
		st.Learner, _ = p.boolean(x, "learner")
	}
	if x := f.get("peer_url"); x != nil {
		if u, ok := p.str(x, "add_member peer_url"); ok {
			if err := checkURL(u); err != nil {
				p.errorf(p.pos(x), "add_member peer_url: %v; want a URL like http://etcd-6:2380", err)
			} else {
				st.PeerURL = u
			}
		}
	}
	// A scenario's add_member has always run the new member (the
	// format's contract); start: false leaves it unstarted, as
	// etcdctl member add does, until a start step.
	st.Start = true
	if x := f.get("start"); x != nil {
		st.Start, _ = p.boolean(x, "start")
	}
	p.membershipCall(st, f, what)
}

// refsFn adapts refs to required.
func (p *parser) refsFn(n *yaml.Node, what string) ([]NodeRef, bool) { return p.refs(n, what) }

// required reads the required key of f with read, reporting a missing key
// at the step's argument n.
func (p *parser) required(f fields, n *yaml.Node, what, key, want string, read func(*yaml.Node, string) ([]NodeRef, bool)) []NodeRef {
	v := f.get(key)
	if v == nil {
		p.errorf(p.pos(n), "%s: missing %s: (%s)", what, key, want)
		return nil
	}
	refs, _ := read(v, what+" "+key)
	return refs
}

// requiredRef reads one required reference.
func (p *parser) requiredRef(f fields, n *yaml.Node, what, key, want string) (NodeRef, bool) {
	v := f.get(key)
	if v == nil {
		p.errorf(p.pos(n), "%s: missing %s: (%s)", what, key, want)
		return NodeRef{}, false
	}
	return p.ref(v, what+" "+key)
}

func (p *parser) rate(n *yaml.Node) (float64, bool) {
	if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") {
		r, err := strconv.ParseFloat(n.Value, 64)
		if err == nil && r >= sim.MinClockRate && r <= sim.MaxClockRate { // also refuses NaN
			return r, true
		}
	}
	p.wrong(n, "clock rate", "a number from 0.01 to 100, like 1.1 (10% fast) or 0.5 (half speed)")
	return 0, false
}

// let reads let: {name: ref | [refs], ...}.
func (p *parser) let(st *Step, v *yaml.Node) {
	f := p.mapping(v, "let", nil)
	if f == nil {
		return
	}
	if len(f) == 0 {
		p.errorf(p.pos(v), "let: want at least one name: ref")
	}
	for _, x := range f {
		b := Binding{Pos: p.pos(x.k), Name: x.key}
		if name, isVar := strings.CutPrefix(x.key, "$"); isVar {
			p.errorf(p.pos(x.k), "let: write the name without $ (%s: ...), and use it as $%s", name, name)
			b.Name = name
		} else if !identRE.MatchString(x.key) {
			p.errorf(p.pos(x.k), "let: bad name %q: want letters, digits, _ and -, like old or majority", x.key)
		}
		if x.v.Kind == yaml.SequenceNode {
			b.List = true
			b.Refs, _ = p.refList(x.v, "let "+b.Name)
		} else if r, ok := p.ref(x.v, "let "+b.Name); ok {
			b.Refs = []NodeRef{r}
			b.List = r.Kind == RefFollowers
		}
		st.Bindings = append(st.Bindings, b)
	}
}

// partition reads partition: [[refs], [refs], $group, ...].
func (p *parser) partition(st *Step, v *yaml.Node) {
	items, ok := p.list(v, "partition", "a list of groups, like [[n1, n2], [n3, n4, n5]]")
	if !ok {
		return
	}
	if len(items) < 2 {
		p.errorf(p.pos(v), "partition: want at least two groups, found %d", len(items))
	}
	for _, it := range items {
		var g []NodeRef
		if it.Kind == yaml.SequenceNode {
			if len(it.Content) == 0 {
				p.errorf(p.pos(it), "partition: an empty group; every group needs a member")
				continue
			}
			g, _ = p.refList(it, "partition")
		} else if r, ok := p.ref(it, "partition group"); ok {
			g = []NodeRef{r}
		}
		if len(g) > 0 {
			st.Groups = append(st.Groups, g)
		}
	}
}

var opKeys = map[StepKind][]string{
	StepPut:    {"via", "by", "external", "key", "value", "timeout", "as", "lease", "prev_kv", "ignore_value", "ignore_lease"},
	StepDelete: {"via", "by", "external", "key", "prefix", "timeout", "as", "from_key", "range_end", "prev_kv"},
	StepGet: {"via", "by", "external", "key", "consistency", "prefix", "keys_only", "timeout", "as", "from_key", "range_end", "rev", "rev_of",
		"limit", "count_only", "sort_by", "order", "min_mod_rev", "max_mod_rev", "min_create_rev", "max_create_rev"},
	StepWatch:           {"via", "by", "external", "key", "prefix", "require_leader", "as", "range_end", "rev", "rev_of", "prev_kv", "progress_notify"},
	StepTxn:             {"via", "by", "external", "timeout", "as", "if", "then", "else"},
	StepCompact:         {"via", "by", "external", "timeout", "as", "rev", "rev_of"},
	StepLeaseGrant:      {"via", "by", "external", "timeout", "as", "ttl"},
	StepLeaseRevoke:     {"via", "by", "external", "timeout", "as", "lease"},
	StepLeaseKeepAlive:  {"via", "by", "external", "timeout", "as", "lease", "repeat"},
	StepLeaseTimeToLive: {"via", "by", "external", "timeout", "as", "lease", "keys"},
}

// Every client operation may carry the simple token of an Authenticate
// (token:), as a request carries it in its gRPC metadata.
func init() {
	for k := range opKeys {
		opKeys[k] = append(opKeys[k], "token")
	}
}

// hasKey reports whether a step kind takes the key.
func hasKey(k StepKind, key string) bool { return contains(opKeys[k], key) }

// op reads put, delete, get and watch.
func (p *parser) op(st *Step, v *yaml.Node) {
	what := st.Kind.String()
	f := p.mapping(v, what, opKeys[st.Kind])
	if f == nil {
		return
	}
	if r, ok := p.requiredRef(f, v, what, "via", "the client name, or a member for its local client"); ok {
		st.Via = r
	}
	if x := f.get("timeout"); x != nil {
		st.Timeout, _ = p.positive(x, what+" timeout")
	}
	p.sender(st, f, what)
	p.request(st, f, v)
	p.token(st, f, what)
	if x := f.get("require_leader"); x != nil {
		st.RequireLeader, _ = p.boolean(x, "require_leader")
	}
	if x := f.get("as"); x != nil {
		if l, ok := p.str(x, what+" as"); ok {
			if identRE.MatchString(l) {
				st.Label, st.LabelPos = l, p.pos(x)
			} else {
				p.errorf(p.pos(x), "as: bad label %q: want letters, digits, _ and -, like w1", l)
			}
		}
	}
}

// membershipCall reads the keys a membership change shares with a client
// operation: via (who asks; by default the leader) and as (its label).
func (p *parser) membershipCall(st *Step, f fields, what string) {
	if x := f.get("via"); x != nil {
		if r, ok := p.ref(x, what+" via"); ok {
			st.Via = r
		}
	}
	p.sender(st, f, what)
	p.token(st, f, what)
	if x := f.get("as"); x != nil {
		if l, ok := p.str(x, what+" as"); ok {
			if identRE.MatchString(l) {
				st.Label, st.LabelPos = l, p.pos(x)
			} else {
				p.errorf(p.pos(x), "as: bad label %q: want letters, digits, _ and -, like w1", l)
			}
		}
	}
}

// serializable reads a step's consistency: linearizable (the default) or
// serializable.
func (p *parser) serializable(f fields) bool {
	x := f.get("consistency")
	if x == nil {
		return false
	}
	c, ok := p.str(x, "consistency")
	switch {
	case !ok || c == "linearizable":
	case c == "serializable":
		return true
	default:
		p.errorf(p.pos(x), "consistency: want linearizable (the default) or serializable, found %q", c)
	}
	return false
}

// senderRE is who may send a request via a member: a name like etcdctl,
// or the address of a client outside the simulation (raftsim serve names
// each after its address, like 127.0.0.1:52114 or [::1]:52114).
var senderRE = regexp.MustCompile(`^([a-z0-9-]+|[A-Za-z0-9.:\[\]-]+:[0-9]+)$`)

// sender reads a request's by: and external: (extensions).
func (p *parser) sender(st *Step, f fields, what string) {
	if x := f.get("by"); x != nil {
		if s, ok := p.str(x, what+" by"); ok {
			if senderRE.MatchString(s) && len(s) <= 64 {
				st.By = s
			} else {
				p.errorf(p.pos(x), "%s by: bad sender %q: want a name like etcdctl, or a client's address like 127.0.0.1:52114", what, s)
			}
		}
	}
	if x := f.get("external"); x != nil {
		st.External, _ = p.boolean(x, what+" external")
		if st.External && st.By == "" {
			p.errorf(p.pos(x), "%s external: an external request needs by: (the client's address)", what)
		}
	}
}

// path reads a file or directory name: a non-empty string of at most 200
// bytes.
func (p *parser) path(n *yaml.Node, what string) (string, bool) {
	s, ok := p.str(n, what)
	if !ok {
		return "", false
	}
	if s == "" || len(s) > 200 || strings.ContainsAny(s, "\x00\n") {
		p.errorf(p.pos(n), "%s: want a file name of 1 to 200 bytes on one line, found %q", what, s)
		return "", false
	}
	return s, true
}

// snapshotRestore reads snapshot_restore's flags, etcdutl snapshot
// restore's: file and name are required.
func (p *parser) snapshotRestore(st *Step, v *yaml.Node) {
	what := st.Kind.String()
	f := p.mapping(v, what, []string{"file", "name", "initial_cluster", "initial_cluster_token", "initial_advertise_peer_urls", "data_dir"})
	if f == nil {
		return
	}
	spec := &sim.RestoreSpec{}
	if x := f.get("file"); x == nil {
		p.errorf(p.pos(v), "snapshot_restore: missing file: (the snapshot file, one a snapshot_save step saved or one on disk)")
	} else {
		spec.File, _ = p.path(x, "snapshot_restore file")
		st.restorePath = spec.File
		if !filepath.IsAbs(spec.File) && p.file != "" && p.file != "-" {
			st.restorePath = filepath.Join(filepath.Dir(p.file), spec.File) // beside the scenario, as from_snapshot
		}
	}
	if x := f.get("name"); x == nil {
		p.errorf(p.pos(v), "snapshot_restore: missing name: (the member restored; it runs on the host of that name)")
	} else {
		spec.Name, _ = p.name(x, "snapshot_restore name")
	}
	for _, o := range []struct {
		key string
		dst *string
	}{{"initial_cluster", &spec.InitialCluster}, {"initial_cluster_token", &spec.Token},
		{"initial_advertise_peer_urls", &spec.PeerURL}, {"data_dir", &spec.DataDir}} {
		if x := f.get(o.key); x != nil {
			*o.dst, _ = p.str(x, "snapshot_restore "+o.key)
		}
	}
	st.Restore = spec
}
