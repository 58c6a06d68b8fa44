package scenarios

import (
	"fmt"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/raftsim/raftsim/etcdctl"
	"github.com/raftsim/raftsim/mvcc"
	"github.com/raftsim/raftsim/sim"
)

// SessionName is the scenario name Marshal gives a recorded session.
const SessionName = "console-session"

// MarshalOptions say how a recorded session is written as a scenario.
type MarshalOptions struct {
	// Name is the scenario's name ([a-z0-9-]+); "" means SessionName.
	Name string
	// Title is written as title: when not empty.
	Title string
	// End, when later than the last command, adds a final wait: so that the
	// scenario runs up to End, the moment the session was saved. A replay
	// then covers what the session saw after its last command, such as the
	// reply to it.
	End sim.Time
}

// Marshal writes a world's configuration and command log as a scenario
// (SCENARIOS.md, format v1): cluster:, network: and clients: from cfg, every
// option written out, and one step per command at its virtual time
// (at: 1.234567s). `raftsim run` replays it to the same run as the world
// that logged the commands, and so to a byte-identical trace.
func Marshal(cfg sim.Config, cmds []sim.Command) ([]byte, error) {
	return MarshalWith(MarshalOptions{}, cfg, cmds)
}

// MarshalWith is Marshal with options.
func MarshalWith(opts MarshalOptions, cfg sim.Config, cmds []sim.Command) ([]byte, error) {
	name := opts.Name
	if name == "" {
		name = SessionName
	}
	if !nameRE.MatchString(name) {
		return nil, fmt.Errorf("scenario name %q: want lower-case letters, digits and dashes", name)
	}
	for _, m := range cfg.Members {
		if !nameRE.MatchString(m) {
			return nil, fmt.Errorf("member name %q cannot be written in a scenario: want lower-case letters, digits and dashes", m)
		}
	}
	root := ymap(false)
	yadd(root, "name", ystr(name))
	if opts.Title != "" {
		yadd(root, "title", ystr(opts.Title))
	}
	yadd(root, "seed", yplain(strconv.FormatUint(cfg.Seed, 10)))
	if len(cfg.Bugs) > 0 {
		yadd(root, "bugs", ybugs(cfg.Bugs))
	}
	yadd(root, "cluster", clusterNode(cfg))
	yadd(root, "network", networkNode(cfg))
	if len(cfg.Clients) > 0 {
		yadd(root, "clients", clientsNode(cfg.Clients))
	}
	steps := &yaml.Node{Kind: yaml.SequenceNode}
	var last sim.Time
	for i, c := range cmds {
		if c.At < last {
			return nil, fmt.Errorf("command %d (%s) at %s is earlier than the one before it at %s", i+1, c.Kind, c.At, last)
		}
		last = c.At
		st, err := stepNode(c)
		if err != nil {
			return nil, fmt.Errorf("command %d (%s at %s): %w", i+1, c.Kind, c.At, err)
		}
		steps.Content = append(steps.Content, st)
	}
	if opts.End > last {
		st := ymap(true)
		yadd(st, "wait", yplain(time.Duration(opts.End-last).String()))
		steps.Content = append(steps.Content, st)
	}
	yadd(root, "steps", steps)
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}
	out, err := yaml.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ybugs writes the injected bugs by name.
func ybugs(bugs []sim.Bug) *yaml.Node {
	var names []string
	for _, b := range bugs {
		names = append(names, b.String())
	}
	return ylist(names)
}

func clientsNode(clients []sim.ClientConfig) *yaml.Node {
	cl := &yaml.Node{Kind: yaml.SequenceNode}
	for _, c := range clients {
		m := ymap(true)
		yadd(m, "name", ystr(c.Name))
		yadd(m, "endpoints", ylist(c.Endpoints))
		if c.Timeout > 0 {
			yadd(m, "timeout", yplain(c.Timeout.String()))
		}
		cl.Content = append(cl.Content, m)
	}
	return cl
}

func clusterNode(c sim.Config) *yaml.Node {
	m := ymap(false)
	yadd(m, "members", ylist(c.Members))
	yadd(m, "learners", ylist(c.Learners))
	yadd(m, "tick", yplain(c.Tick.String()))
	yadd(m, "election_ticks", yplain(strconv.Itoa(c.ElectionTicks)))
	yadd(m, "heartbeat_ticks", yplain(strconv.Itoa(c.HeartbeatTicks)))
	yadd(m, "pre_vote", ybool(c.PreVote))
	yadd(m, "check_quorum", ybool(c.CheckQuorum))
	if !c.InitialElectionTickAdvance {
		yadd(m, "initial_election_tick_advance", ybool(false))
	}
	if c.Bootstrap != "" && c.Bootstrap != sim.BootstrapEtcd {
		yadd(m, "bootstrap", yplain(c.Bootstrap))
	}
	ro := "safe"
	if c.ReadOnlyLease {
		ro = "lease"
	}
	yadd(m, "read_only", yplain(ro))
	yadd(m, "proposal_forwarding", ybool(!c.DisableProposalForwarding))
	yadd(m, "max_inflight_msgs", yplain(strconv.Itoa(c.MaxInflightMsgs)))
	yadd(m, "max_size_per_msg", yplain(strconv.FormatUint(c.MaxSizePerMsg, 10)))
	yadd(m, "snapshot_every", yplain(strconv.FormatUint(c.SnapshotEvery, 10)))
	yadd(m, "disk_latency", yplain(c.DiskLatency.String()))
	yadd(m, "client_latency", yplain(c.ClientLatency.String()))
	if c.Topology != "" {
		yadd(m, "topology", yplain(c.Topology))
	}
	if c.Apiservers > 0 {
		yadd(m, "apiservers", yplain(strconv.Itoa(c.Apiservers)))
	}
	if c.CompactionInterval > 0 {
		yadd(m, "compaction_interval", yplain(c.CompactionInterval.String()))
	}
	if c.ClusterToken != "" {
		yadd(m, "token", ystr(c.ClusterToken))
	}
	if c.FromSnapshot != "" {
		yadd(m, "from_snapshot", ystr(c.FromSnapshot))
	}
	for _, u := range []struct {
		key  string
		urls map[string]string
	}{{"peer_urls", c.PeerURLs}, {"client_urls", c.ClientURLs}} {
		if len(u.urls) == 0 {
			continue
		}
		um := ymap(true)
		for _, name := range c.Members { // in member order, not map order
			if url, ok := u.urls[name]; ok {
				yadd(um, name, ystr(url))
			}
		}
		yadd(m, u.key, um)
	}
	return m
}

func networkNode(c sim.Config) *yaml.Node {
	m := ymap(false)
	yadd(m, "latency", ystr(c.Network.Latency.String()))
	yadd(m, "loss", ystr(c.Network.Loss.String()))
	yadd(m, "duplicate", ystr(c.Network.Duplicate.String()))
	var links []*yaml.Node
	for _, l := range c.Links {
		if l.Latency == nil && l.Loss == nil && l.Duplicate == nil {
			continue // it changes nothing, and the format wants a change
		}
		n := ymap(true)
		yadd(n, "from", ystr(l.From))
		yadd(n, "to", ystr(l.To))
		if l.Latency != nil {
			yadd(n, "latency", ystr(l.Latency.String()))
		}
		if l.Loss != nil {
			yadd(n, "loss", ystr(l.Loss.String()))
		}
		if l.Duplicate != nil {
			yadd(n, "duplicate", ystr(l.Duplicate.String()))
		}
		if l.OneWay {
			yadd(n, "both", ybool(false))
		}
		links = append(links, n)
	}
	if len(links) > 0 {
		yadd(m, "links", &yaml.Node{Kind: yaml.SequenceNode, Content: links})
	}
	return m
}

// stepNode writes one command as a step that runs at the command's time.
func stepNode(c sim.Command) (*yaml.Node, error) {
	st := ymap(true)
	yadd(st, "at", yplain(c.At.Duration().String()))
	action := func(v *yaml.Node) { yadd(st, string(c.Kind), v) }
	switch c.Kind {
	case sim.CmdCaption:
		switch c.Caption {
		case "say", "pause", "chapter":
		default:
			return nil, fmt.Errorf("unknown caption kind %q (want say, pause or chapter)", c.Caption)
		}
		yadd(st, c.Caption, ystr(c.Text))
	case sim.CmdCrash, sim.CmdRestart, sim.CmdIsolate, sim.CmdCampaign, sim.CmdSnapshot, sim.CmdStart:
		action(ystr(c.Node))
	case sim.CmdUpdateMember:
		m := ymap(true)
		yadd(m, "node", ystr(c.Node))
		yadd(m, "peer_url", ystr(c.PeerURL))
		writeCall(m, c)
		action(m)
	case sim.CmdMemberList, sim.CmdAlarmList:
		m := ymap(true)
		writeCall(m, c)
		if c.Serializable {
			yadd(m, "consistency", yplain("serializable"))
		}
		action(m)
	case sim.CmdPromote, sim.CmdRemoveMember:
		if c.Via == "" && c.Label == "" {
			action(ystr(c.Node))
			break
		}
		m := ymap(true)
		yadd(m, "node", ystr(c.Node))
		writeCall(m, c)
		action(m)
	case sim.CmdStall:
		m := ymap(true)
		yadd(m, "node", ystr(c.Node))
		yadd(m, "for", yplain(c.For.String()))
		action(m)
	case sim.CmdClock:
		m := ymap(true)
		yadd(m, "node", ystr(c.Node))
		r := strconv.FormatFloat(c.Rate, 'g', -1, 64)
		n := yplain(r)
		n.Tag = "!!float"
		yadd(m, "rate", n)
		action(m)
	case sim.CmdPartition:
		g := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, grp := range c.Groups {
			g.Content = append(g.Content, ylist(grp))
		}
		action(g)
	case sim.CmdCut, sim.CmdRestore, sim.CmdLink:
		m := ymap(true)
		yadd(m, "from", ystr(c.From))
		yadd(m, "to", ystr(c.To))
		if c.Kind == sim.CmdLink {
			if c.Latency == nil && c.Loss == nil && c.Dup == nil {
				return nil, fmt.Errorf("a link change with nothing to change")
			}
			if c.Latency != nil {
				yadd(m, "latency", ystr(c.Latency.String()))
			}
			if c.Loss != nil {
				yadd(m, "loss", ystr(c.Loss.String()))
			}
			if c.Dup != nil {
				yadd(m, "duplicate", ystr(c.Dup.String()))
			}
		}
		if c.OneWay {
			yadd(m, "both", ybool(false))
		}
		action(m)
	case sim.CmdHeal:
		action(yplain("all"))
	case sim.CmdTransferLeader:
		m := ymap(true)
		yadd(m, "to", ystr(c.Node))
		action(m)
	case sim.CmdAddMember:
		m := ymap(true)
		yadd(m, "name", ystr(c.Node))
		if c.Learner {
			yadd(m, "learner", ybool(true))
		}
		if c.PeerURL != "" {
			yadd(m, "peer_url", ystr(c.PeerURL))
		}
		if !c.Start {
			yadd(m, "start", ybool(false)) // a scenario's add_member starts it by default
		}
		writeCall(m, c)
		action(m)
	case sim.CmdPut, sim.CmdDelete, sim.CmdGet, sim.CmdWatch:
		if c.Key == "" && !c.Prefix {
			return nil, fmt.Errorf("an empty key without prefix")
		}
		m := ymap(true)
		yadd(m, "via", ystr(c.Via))
		writeSender(m, c)
		if c.Timeout > 0 {
			yadd(m, "timeout", yplain(c.Timeout.String()))
		}
		yadd(m, "key", ystr(c.Key))
		if c.Kind == sim.CmdPut {
			yadd(m, "value", ystr(c.Value))
		}
		if c.Prefix {
			if c.Kind == sim.CmdPut {
				return nil, fmt.Errorf("a put cannot have a prefix")
			}
			yadd(m, "prefix", ybool(true))
		}
		if c.Kind == sim.CmdGet {
			if c.Serializable {
				yadd(m, "consistency", yplain("serializable"))
			}
			if c.KeysOnly {
				yadd(m, "keys_only", ybool(true))
			}
		}
		if c.Kind == sim.CmdWatch && c.RequireLeader {
			yadd(m, "require_leader", ybool(true))
		}
		if err := mvccFields(m, c); err != nil {
			return nil, err
		}
		if c.Label != "" {
			yadd(m, "as", ystr(c.Label))
		}
		action(m)
	case sim.CmdTxn, sim.CmdCompact, sim.CmdLeaseGrant, sim.CmdLeaseRevoke, sim.CmdLeaseKeepAlive, sim.CmdLeaseTimeToLive:
		m := ymap(true)
		yadd(m, "via", ystr(c.Via))
		writeSender(m, c)
		if c.Timeout > 0 {
			yadd(m, "timeout", yplain(c.Timeout.String()))
		}
		switch c.Kind {
		case sim.CmdTxn:
			if c.Txn == nil {
				return nil, fmt.Errorf("a txn without a transaction")
			}
			var cmps, then, els []string
			for _, x := range c.Txn.Compare {
				cmps = append(cmps, etcdctl.FormatCompare(x))
			}
			for _, x := range c.Txn.Success {
				then = append(then, etcdctl.FormatRequest(x))
			}
			for _, x := range c.Txn.Failure {
				els = append(els, etcdctl.FormatRequest(x))
			}
			yadd(m, "if", ystrs(cmps))
			yadd(m, "then", ystrs(then))
			yadd(m, "else", ystrs(els))
		case sim.CmdCompact:
			yadd(m, "rev", yplain(strconv.FormatInt(c.Rev, 10)))
		case sim.CmdLeaseGrant:
			yadd(m, "ttl", yplain(strconv.FormatInt(c.TTL, 10)))
		default:
			yadd(m, "lease", yplain(strconv.FormatInt(c.Lease, 10)))
			if c.Repeat {
				yadd(m, "repeat", ybool(true))
			}
			if c.LeaseKeys {
				yadd(m, "keys", ybool(true))
			}
		}
		if c.Label != "" {
			yadd(m, "as", ystr(c.Label))
		}
		action(m)
	case sim.CmdLoad:
		if c.Load == nil {
			return nil, fmt.Errorf("a load without its workload")
		}
		m := loadSpecNode(c.Load, true)
		// The steps after it say when they run (at:), so the load goes
		// on beside them, as it did.
		yadd(m, "background", ybool(true))
		action(m)
	case sim.CmdCancel:
		if c.Label == "" {
			return nil, fmt.Errorf("cancel needs the label of an operation")
		}
		action(ystr(c.Label))
	default:
		return nil, fmt.Errorf("no scenario step for command %q", c.Kind)
	}
	return st, nil
}

func ymap(flow bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	if flow {
		n.Style = yaml.FlowStyle
	}
	return n
}

func yadd(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
}

// ystr is a string scalar, quoted by the encoder whenever it would otherwise
// read back as something else (a number, a bool, null).
func ystr(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// yplain is a scalar written as it is: numbers, durations, bools, keywords.
func yplain(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }

func ybool(b bool) *yaml.Node { return yplain(strconv.FormatBool(b)) }

func ylist(ss []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Content: []*yaml.Node{}}
	for _, s := range ss {
		n.Content = append(n.Content, ystr(s))
	}
	return n
}

// mvccFields writes the MVCC extensions of a put, delete, get or watch.
func mvccFields(m *yaml.Node, c sim.Command) error {
	switch c.RangeEnd {
	case "":
	case mvcc.GteEnd:
		yadd(m, "from_key", ybool(true))
	default:
		yadd(m, "range_end", ystr(c.RangeEnd))
	}
	if c.Rev != 0 {
		yadd(m, "rev", yplain(strconv.FormatInt(c.Rev, 10)))
	}
	if c.Limit != 0 {
		yadd(m, "limit", yplain(strconv.FormatInt(c.Limit, 10)))
	}
	if c.CountOnly {
		yadd(m, "count_only", ybool(true))
	}
	if c.SortTarget != mvcc.SortByKey {
		yadd(m, "sort_by", yplain([...]string{"KEY", "VERSION", "CREATE", "MODIFY", "VALUE"}[c.SortTarget]))
	}
	if c.SortOrder != mvcc.SortNone {
		yadd(m, "order", yplain([...]string{"NONE", "ASCEND", "DESCEND"}[c.SortOrder]))
	}
	if c.PrevKV {
		yadd(m, "prev_kv", ybool(true))
	}
	if c.Lease != 0 {
		yadd(m, "lease", yplain(strconv.FormatInt(c.Lease, 10)))
	}
	return nil
}

func ystrs(ss []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, s := range ss {
		n.Content = append(n.Content, ystr(s))
	}
	return n
}

// writeCall writes a membership change's via and label.
func writeCall(m *yaml.Node, c sim.Command) {
	if c.Via != "" {
		yadd(m, "via", ystr(c.Via))
	}
	writeSender(m, c)
	if c.Label != "" {
		yadd(m, "as", ystr(c.Label))
	}
}

// loadSpecNode writes a load's workload, the fields of load: other than
// background. via is written only when asked: a scenario that did not name
// it leaves the parser to fill in every client again.
func loadSpecNode(l *sim.LoadSpec, via bool) *yaml.Node {
	m := ymap(true)
	yadd(m, "for", yplain(l.For.String()))
	yadd(m, "rate", yplain(strconv.Itoa(l.Rate)))
	if via {
		yadd(m, "via", ylist(l.Via))
	}
	yadd(m, "keys", yplain(strconv.Itoa(l.Keys)))
	yadd(m, "prefix", ystr(l.Prefix))
	if l.Zipf {
		yadd(m, "distribution", yplain("zipf"))
	}
	mix := ymap(true)
	for _, w := range []struct {
		key    string
		weight int
	}{{"put", l.Mix.Put}, {"get", l.Mix.Get}, {"serializable", l.Mix.Serializable}, {"delete", l.Mix.Delete}, {"txn", l.Mix.Txn}} {
		if w.weight > 0 {
			yadd(mix, w.key, yplain(strconv.Itoa(w.weight)))
		}
	}
	yadd(m, "mix", mix)
	return m
}

// writeSender writes who sent a request via a member, and whether from
// outside the simulation.
func writeSender(m *yaml.Node, c sim.Command) {
	if c.By != "" {
		yadd(m, "by", ystr(c.By))
	}
	if c.External {
		yadd(m, "external", ybool(true))
	}
}
