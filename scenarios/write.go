package scenarios

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

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

// MarshalWith is Marshal with options. The session becomes a scenario,
// one step per command, which MarshalScenario writes.
func MarshalWith(opts MarshalOptions, cfg sim.Config, cmds []sim.Command) ([]byte, error) {
	name := opts.Name
	if name == "" {
		name = SessionName
	}
	for _, m := range cfg.Members {
		if !nameRE.MatchString(m) {
			return nil, fmt.Errorf("member name %q cannot be written in a scenario: want lower-case letters, digits and dashes", m)
		}
	}
	s := &Scenario{Name: name, Title: Text{En: opts.Title}, Seed: cfg.Seed, SeedSet: true, Config: cfg}
	var last sim.Time
	for i, c := range cmds {
		if c.At < last {
			return nil, fmt.Errorf("command %d (%s) at %s is earlier than the one before it at %s", i+1, c.Kind, c.At, last)
		}
		last = c.At
		st, err := stepOf(c)
		if err != nil {
			return nil, fmt.Errorf("command %d (%s at %s): %w", i+1, c.Kind, c.At, err)
		}
		s.Steps = append(s.Steps, st)
	}
	if opts.End > last {
		s.Steps = append(s.Steps, Step{Kind: StepWait, Wait: time.Duration(opts.End - last)})
	}
	return MarshalScenario(s)
}

// stepOf is the step that does what a command did, at the command's time.
func stepOf(c sim.Command) (Step, error) {
	at := c.At.Duration()
	st := Step{At: &at, Kind: actionKind(string(c.Kind)), Both: !c.OneWay, By: c.By, External: c.External, Timeout: c.Timeout,
		Label: c.Label, Req: c.Req, RequireLeader: c.RequireLeader, Repeat: c.Repeat,
		Learner: c.Learner, PeerURL: c.PeerURL, Start: c.Start, For: c.For, Rate: c.Rate,
		Latency: c.Latency, Loss: c.Loss, Duplicate: c.Dup, Load: c.Load, DataDir: c.DataDir, ForceNewCluster: c.ForceNewCluster, File: c.File}
	ref := func(name string) NodeRef { return NodeRef{Kind: RefName, Name: name} }
	refs := func(names []string) []NodeRef {
		var out []NodeRef
		for _, n := range names {
			out = append(out, ref(n))
		}
		return out
	}
	if c.Via != "" {
		st.Via = ref(c.Via)
	}
	switch c.Kind {
	case sim.CmdCaption:
		st.Kind = actionKind(c.Caption)
		if st.Kind != StepSay && st.Kind != StepPause && st.Kind != StepChapter {
			return st, fmt.Errorf("unknown caption kind %q (want say, pause or chapter)", c.Caption)
		}
		st.Text = Text{En: c.Text}
	case sim.CmdSnapshotRestore:
		if c.Restore == nil {
			return st, fmt.Errorf("a snapshot_restore without its flags")
		}
		r := *c.Restore
		r.KV, r.ClusterVersion = nil, "" // read again from the file when the scenario runs
		st.Restore = &r
	case sim.CmdCrash, sim.CmdRestart, sim.CmdIsolate, sim.CmdCampaign, sim.CmdSnapshot, sim.CmdStart,
		sim.CmdUpdateMember, sim.CmdPromote, sim.CmdRemoveMember, sim.CmdStall, sim.CmdClock, sim.CmdLose, sim.CmdSnapshotSave, sim.CmdDefrag:
		st.Nodes = refs([]string{c.Node})
	case sim.CmdTransferLeader:
		st.To = refs([]string{c.Node})
	case sim.CmdAddMember:
		st.Name = c.Node
	case sim.CmdPartition:
		for _, g := range c.Groups {
			st.Groups = append(st.Groups, refs(g))
		}
	case sim.CmdCut, sim.CmdRestore, sim.CmdLink:
		st.From, st.To = refs([]string{c.From}), refs([]string{c.To})
	case sim.CmdPut, sim.CmdDelete, sim.CmdGet, sim.CmdWatch:
		if k, end := c.Req.KeyRange(); len(k) == 0 && len(end) == 0 {
			return st, fmt.Errorf("an empty key without prefix")
		}
	case sim.CmdTxn:
		if c.Req.Txn == nil {
			return st, fmt.Errorf("a txn without a transaction")
		}
	case sim.CmdLoad:
		if c.Load == nil {
			return st, fmt.Errorf("a load without its workload")
		}
		// The steps after it say when they run (at:), so the load goes
		// on beside them, as it did; its via: is written out.
		st.Background, st.LoadVia = true, make([]Pos, len(c.Load.Via))
	case sim.CmdWatchProgress:
		if len(c.Labels) == 0 {
			return st, fmt.Errorf("watch_progress needs the labels of watches")
		}
		st.Progress = c.Labels
	case sim.CmdDowngrade:
		if c.Downgrade == nil {
			return st, fmt.Errorf("a downgrade without its request")
		}
		st.Downgrade = c.Downgrade
	case sim.CmdCancel:
		if c.Label == "" {
			return st, fmt.Errorf("cancel needs the label of an operation")
		}
		st.Cancel, st.Label = c.Label, ""
	}
	if st.Kind == StepInvalid {
		return st, fmt.Errorf("no scenario step for command %q", c.Kind)
	}
	return st, nil
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
	if len(c.QuotaBackendBytesOf) > 0 {
		// Per member, in member order; a member without its own keeps
		// the one for every member, if there is one.
		qm := ymap(true)
		for _, name := range c.Members {
			if q := cmp.Or(c.QuotaBackendBytesOf[name], c.QuotaBackendBytes); q > 0 {
				yadd(qm, name, yplain(strconv.FormatInt(q, 10)))
			}
		}
		yadd(m, "quota_backend_bytes", qm)
	} else if c.QuotaBackendBytes > 0 {
		yadd(m, "quota_backend_bytes", yplain(strconv.FormatInt(c.QuotaBackendBytes, 10)))
	}
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
func ystr(s string) *yaml.Node {
	if !utf8.ValidString(s) {
		// YAML holds text: a string that is not UTF-8 (a key is any
		// bytes) would come back with U+FFFD in place of each bad byte.
		// !!binary holds the bytes, in base64.
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!binary", Value: base64.StdEncoding.EncodeToString([]byte(s))}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

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
