package scenarios

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/raftsim/raftsim/membership"
	"github.com/raftsim/raftsim/sim"
)

// maxMembers bounds "members: N" so that a typo cannot build a huge cluster.
const maxMembers = 99

var clusterKeys = []string{
	"members", "learners", "tick", "election_ticks", "heartbeat_ticks", "pre_vote",
	"check_quorum", "read_only", "proposal_forwarding", "max_inflight_msgs",
	"max_size_per_msg", "snapshot_every", "quota_backend_bytes", "disk_latency", "topology", "client_latency", "apiservers",
	"initial_election_tick_advance", "compaction_interval", "bootstrap", "token", "peer_urls", "client_urls",
	"from_snapshot",
}

// cluster applies cluster: to s.Config.
func (p *parser) cluster(n *yaml.Node, s *Scenario) {
	f := p.mapping(n, "cluster", clusterKeys)
	c := &s.Config
	for _, x := range f {
		s.ConfigPos["cluster."+x.key] = p.pos(x.k)
	}
	p.clusterMembers(f, c)
	p.clusterTimeouts(n, f, c)
	// Only a voter can start a cluster (checked here, so that its error
	// comes after the timeouts', as it always has).
	if v := f.get("learners"); v != nil && p.membersOK && !hasVoter(c) {
		p.errorf(p.pos(v), "learners: every member is a learner; raft needs at least one voter to start a cluster")
	}
	p.clusterRaftOptions(f, c)
	p.clusterStorage(f, c)
	p.clusterTopology(f, c)
	p.clusterBootstrap(f, s)
	p.clusterClients(f, c)
}

// clusterMembers reads members: and learners:.
func (p *parser) clusterMembers(f fields, c *sim.Config) {
	if v := f.get("members"); v != nil {
		p.membersOK = p.members(v, c)
	}
	if v := f.get("learners"); v != nil {
		if names, ok := p.names(v, "learners"); ok {
			for i, l := range names {
				if p.membersOK && !contains(c.Members, l) {
					p.errorf(p.pos(v.Content[i]), "learner %q is not a member (members: %s); a learner must also be listed in members", l, strings.Join(c.Members, ", "))
				}
				if contains(names[:i], l) {
					p.errorf(p.pos(v.Content[i]), "learner %q is listed twice", l)
				}
			}
			c.Learners = names
		}
	}
}

// clusterTimeouts reads tick:, election_ticks: and heartbeat_ticks:, and
// refuses an election timeout that is not more than the heartbeat's or
// is too long; an error without a key of its own is put at n, the
// cluster's mapping.
func (p *parser) clusterTimeouts(n *yaml.Node, f fields, c *sim.Config) {
	if v := f.get("tick"); v != nil {
		if d, ok := p.positive(v, "tick"); ok {
			if d < MinTick {
				p.errorf(p.pos(v), "tick: %s is shorter than 1us, the shortest tick (the network keeps time in microseconds)", v.Value)
			} else {
				c.Tick = d
			}
		}
	}
	if v := f.get("election_ticks"); v != nil {
		if i, ok := p.integer(v, "election_ticks", 1, 1_000_000); ok {
			c.ElectionTicks = int(i)
		}
	}
	if v := f.get("heartbeat_ticks"); v != nil {
		if i, ok := p.integer(v, "heartbeat_ticks", 1, 1_000_000); ok {
			c.HeartbeatTicks = int(i)
		}
	}
	if c.ElectionTicks <= c.HeartbeatTicks {
		at := n
		if k := f.keyNode("election_ticks"); k != nil {
			at = k
		} else if k := f.keyNode("heartbeat_ticks"); k != nil {
			at = k
		}
		p.errorf(p.pos(at), "election_ticks (%d) must be more than heartbeat_ticks (%d); etcd wants the election timeout to be several heartbeats", c.ElectionTicks, c.HeartbeatTicks)
	}
	if et := time.Duration(c.ElectionTicks); c.Tick > 0 && et > MaxDuration/c.Tick {
		at := n
		if k := f.keyNode("election_ticks"); k != nil {
			at = k
		} else if k := f.keyNode("tick"); k != nil {
			at = k
		}
		p.errorf(p.pos(at), "the election timeout, election_ticks (%d) × tick (%s), is more than 1000h, the longest duration raftsim accepts", c.ElectionTicks, c.Tick)
	}
}

// clusterRaftOptions reads the options raft's Config takes: pre_vote:,
// check_quorum:, initial_election_tick_advance:, read_only:,
// proposal_forwarding:, max_inflight_msgs: and max_size_per_msg:.
func (p *parser) clusterRaftOptions(f fields, c *sim.Config) {
	if v := f.get("pre_vote"); v != nil {
		c.PreVote, _ = p.boolean(v, "pre_vote")
	}
	if v := f.get("check_quorum"); v != nil {
		c.CheckQuorum, _ = p.boolean(v, "check_quorum")
	}
	if v := f.get("initial_election_tick_advance"); v != nil {
		c.InitialElectionTickAdvance, _ = p.boolean(v, "initial_election_tick_advance")
	}
	if v := f.get("read_only"); v != nil {
		if s, ok := p.str(v, "read_only"); ok {
			switch s {
			case "safe":
				c.ReadOnlyLease = false
			case "lease":
				c.ReadOnlyLease = true
			default:
				p.errorf(p.pos(v), "read_only: want safe (ReadIndex) or lease, found %q", s)
			}
		}
	}
	if k := f.keyNode("read_only"); k != nil && c.ReadOnlyLease && !c.CheckQuorum {
		p.errorf(p.pos(k), "read_only: lease needs check_quorum: true (raft refuses lease reads without it)")
	}
	if v := f.get("proposal_forwarding"); v != nil {
		if b, ok := p.boolean(v, "proposal_forwarding"); ok {
			c.DisableProposalForwarding = !b
		}
	}
	if v := f.get("max_inflight_msgs"); v != nil {
		if i, ok := p.integer(v, "max_inflight_msgs", 1, 1_000_000); ok {
			c.MaxInflightMsgs = int(i)
		}
	}
	if v := f.get("max_size_per_msg"); v != nil {
		if sz, ok := p.size(v, "max_size_per_msg"); ok {
			if sz == 0 {
				p.errorf(p.pos(v), "max_size_per_msg: 0 bytes: want at least 1 (raft applies at most this much at once, and panics at 0; etcd uses 1MiB)")
			} else {
				c.MaxSizePerMsg = sz
			}
		}
	}
}

// clusterStorage reads quota_backend_bytes:, snapshot_every: and
// disk_latency:.
func (p *parser) clusterStorage(f fields, c *sim.Config) {
	if v := f.get("quota_backend_bytes"); v != nil {
		p.quota(v, c)
	}
	if v := f.get("snapshot_every"); v != nil {
		p.snapshotPos = p.pos(v)
		if u, ok := p.uint(v, "snapshot_every"); ok {
			c.SnapshotEvery = u
		}
	}
	if v := f.get("disk_latency"); v != nil {
		if d, ok := p.duration(v, "disk_latency"); ok {
			c.DiskLatency = d
		}
	}
}

// clusterTopology reads where Kubernetes' apiservers run: topology: and
// apiservers:.
func (p *parser) clusterTopology(f fields, c *sim.Config) {
	if v := f.get("topology"); v != nil {
		if s, ok := p.str(v, "topology"); ok {
			if s == "stacked" || s == "external" {
				c.Topology = s
			} else {
				p.errorf(p.pos(v), "topology: want stacked (an apiserver on each member's host) or external (apiservers using every member), found %q", s)
			}
		}
	}
	if v := f.get("apiservers"); v != nil {
		if i, ok := p.integer(v, "apiservers", 1, maxMembers); ok {
			c.Apiservers = int(i)
			if c.Topology == "" {
				p.errorf(p.pos(v), "apiservers: only means something with a topology (stacked or external)")
			}
		}
	}
}

// clusterBootstrap reads how the cluster starts: bootstrap:, token:,
// peer_urls:, client_urls: and from_snapshot: (a path beside the
// scenario's file).
func (p *parser) clusterBootstrap(f fields, s *Scenario) {
	c := &s.Config
	if v := f.get("bootstrap"); v != nil {
		if s, ok := p.str(v, "bootstrap"); ok {
			if s == sim.BootstrapEtcd || s == sim.BootstrapRaft {
				c.Bootstrap = s
			} else {
				p.errorf(p.pos(v), "bootstrap: want etcd (etcd's start: configuration changes, publication, cluster version) or raft (the Raft paper's: index 1 in term 1, nothing else), found %q", s)
			}
		}
	}
	if v := f.get("token"); v != nil {
		c.ClusterToken, _ = p.str(v, "token")
	}
	c.PeerURLs = p.urls(f.get("peer_urls"), "peer_urls", c.Members, s.ConfigPos)
	c.ClientURLs = p.urls(f.get("client_urls"), "client_urls", c.Members, s.ConfigPos)
	if v := f.get("from_snapshot"); v != nil {
		if file, ok := p.str(v, "from_snapshot"); ok {
			path := file
			if !filepath.IsAbs(path) && p.file != "" && p.file != "-" {
				path = filepath.Join(filepath.Dir(p.file), path) // beside the scenario
			}
			if err := RestoreFrom(c, path); err != nil {
				p.errorf(p.pos(v), "from_snapshot: %v", err)
			}
			c.FromSnapshot = file
		}
	}
}

// clusterClients reads client_latency: and compaction_interval:, kube-
// apiserver's compaction of etcd.
func (p *parser) clusterClients(f fields, c *sim.Config) {
	if v := f.get("client_latency"); v != nil {
		if d, ok := p.duration(v, "client_latency"); ok {
			c.ClientLatency = d
		}
	}
	if v := f.get("compaction_interval"); v != nil {
		if d, ok := p.duration(v, "compaction_interval"); ok {
			c.CompactionInterval = d
			if c.Topology == "" && d > 0 {
				p.errorf(p.pos(v), "compaction_interval: kube-apiserver compacts etcd; it only means something with a topology (stacked or external)")
			}
		}
	}
}

// members reads "members: [a, b]" or "members: 3" (n1..n3).
func (p *parser) members(n *yaml.Node, c *sim.Config) bool {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int" {
		k, ok := p.integer(n, "members", 1, maxMembers)
		if !ok {
			return false
		}
		c.Members = nil
		for i := 1; i <= int(k); i++ {
			c.Members = append(c.Members, "n"+strconv.Itoa(i))
		}
		return true
	}
	if n.Kind != yaml.SequenceNode {
		p.wrong(n, "members", "a list of names like [etcd-1, etcd-2, etcd-3] or a count like 5")
		return false
	}
	ok := true
	names := []string{}
	p.memberPos = nil
	for _, it := range n.Content {
		p.memberPos = append(p.memberPos, p.pos(it))
		m, good := p.name(it, "members")
		switch {
		case !good:
			ok = false
		case contains(names, m):
			p.errorf(p.pos(it), "member %q is listed twice", m)
			ok = false
		case m == "none" || m == "any" || m == "all":
			p.errorf(p.pos(it), "member name %q is reserved (leader: none/any, heal: all); choose another", m)
			ok = false
		}
		names = append(names, m)
	}
	if len(names) == 0 {
		p.errorf(p.pos(n), "members: want at least one member")
		return false
	}
	if len(names) > maxMembers {
		p.errorf(p.pos(n), "members: want at most %d members, found %d", maxMembers, len(names))
		return false
	}
	if ok {
		c.Members = names
	}
	return ok
}

var networkKeys = []string{"latency", "loss", "duplicate", "links"}
var linkKeys = []string{"from", "to", "latency", "loss", "duplicate", "both"}

// network applies network: to s.Config.
func (p *parser) network(n *yaml.Node, s *Scenario) {
	f := p.mapping(n, "network", networkKeys)
	c := &s.Config
	for _, x := range f {
		s.ConfigPos["network."+x.key] = p.pos(x.k)
	}
	if v := f.get("latency"); v != nil {
		if l, ok := p.latency(v, "latency"); ok {
			c.Network.Latency = l
		}
	}
	if v := f.get("loss"); v != nil {
		if r, ok := p.ratio(v, "loss"); ok {
			c.Network.Loss = r
		}
	}
	if v := f.get("duplicate"); v != nil {
		if r, ok := p.ratio(v, "duplicate"); ok {
			c.Network.Duplicate = r
		}
	}
	v := f.get("links")
	if v == nil {
		return
	}
	items, ok := p.list(v, "links", "a list of {from, to, latency, loss, duplicate}")
	if !ok {
		return
	}
	for i, it := range items {
		lf := p.mapping(it, "a link", linkKeys)
		if lf == nil {
			continue
		}
		s.ConfigPos[fmt.Sprintf("network.links.%d", i)] = p.pos(it)
		o := sim.LinkOverride{}
		for _, end := range []string{"from", "to"} {
			ev := lf.get(end)
			if ev == nil {
				p.errorf(p.pos(it), "link: missing %s: (a member name)", end)
				continue
			}
			name, ok := p.name(ev, "link "+end)
			if ok {
				p.checkMember(ev, name, c, "link "+end)
			}
			if end == "from" {
				o.From = name
			} else {
				o.To = name
			}
		}
		if lv := lf.get("latency"); lv != nil {
			if l, ok := p.latency(lv, "latency"); ok {
				o.Latency = &l
			}
		}
		if lv := lf.get("loss"); lv != nil {
			if r, ok := p.ratio(lv, "loss"); ok {
				o.Loss = &r
			}
		}
		if lv := lf.get("duplicate"); lv != nil {
			if r, ok := p.ratio(lv, "duplicate"); ok {
				o.Duplicate = &r
			}
		}
		if lv := lf.get("both"); lv != nil {
			if b, ok := p.boolean(lv, "both"); ok {
				o.OneWay = !b
			}
		}
		if lf.get("latency") == nil && lf.get("loss") == nil && lf.get("duplicate") == nil {
			p.errorf(p.pos(it), "link: want at least one of latency, loss or duplicate to change")
		}
		c.Links = append(c.Links, o)
	}
}

// checkMember reports name (read from n) if it is not a bootstrap member.
func (p *parser) checkMember(n *yaml.Node, name string, c *sim.Config, what string) bool {
	if !p.membersOK || contains(c.Members, name) {
		return true
	}
	p.errorf(p.pos(n), "%s: unknown member %q (members: %s)", what, name, strings.Join(c.Members, ", "))
	return false
}

var clientKeys = []string{"name", "endpoints", "timeout"}

// clients reads clients: into s.Config.Clients.
func (p *parser) clients(n *yaml.Node, s *Scenario) {
	items, ok := p.list(n, "clients", "a list of {name, endpoints, timeout}")
	if !ok {
		return
	}
	c := &s.Config
	if len(items) > MaxClients {
		p.errorf(p.pos(items[MaxClients]), "clients: more than %d clients; a scenario may list at most %d", MaxClients, MaxClients)
		items = items[:MaxClients]
	}
	for _, it := range items {
		f := p.mapping(it, "a client", clientKeys)
		if f == nil {
			continue
		}
		cl := sim.ClientConfig{Timeout: sim.DefaultClientTimeout}
		if v := f.get("name"); v == nil {
			p.errorf(p.pos(it), "client: missing name: (like apiserver-1 or etcdctl)")
		} else if name, ok := p.name(v, "client name"); ok {
			switch {
			case contains(c.Members, name):
				p.errorf(p.pos(v), "client %q has the name of a member; via: %s would be ambiguous, choose another name", name, name)
			case clientNamed(c.Clients, name):
				p.errorf(p.pos(v), "client %q is listed twice", name)
			}
			cl.Name = name
			s.ConfigPos["clients."+name] = p.pos(it)
		}
		if v := f.get("endpoints"); v == nil {
			p.errorf(p.pos(it), "client: missing endpoints: (a list of members, in failover order)")
		} else if eps, ok := p.names(v, "endpoints"); ok {
			if len(eps) == 0 {
				p.errorf(p.pos(v), "endpoints: want at least one member")
			}
			for i, e := range eps {
				p.checkMember(v.Content[i], e, c, "endpoints")
			}
			cl.Endpoints = eps
		}
		if v := f.get("timeout"); v != nil {
			if d, ok := p.positive(v, "timeout"); ok {
				cl.Timeout = d
			}
		}
		c.Clients = append(c.Clients, cl)
	}
}

func clientNamed(cs []sim.ClientConfig, name string) bool {
	for _, c := range cs {
		if c.Name == name {
			return true
		}
	}
	return false
}

// hasVoter reports whether some bootstrap member is not a learner.
func hasVoter(c *sim.Config) bool {
	for _, m := range c.Members {
		if !contains(c.Learners, m) {
			return true
		}
	}
	return false
}

// checkURL refuses a member URL that etcd refuses (membership.CheckURLs: its
// form), and one longer than 200 bytes (an ID is drawn from it).
func checkURL(u string) error {
	if len(u) > 200 {
		return fmt.Errorf("%d bytes is longer than 200", len(u))
	}
	return membership.CheckURLs([]string{u})
}

// urls reads peer_urls: or client_urls: (extensions), a URL for some of
// the members by name, e.g. {m1: http://127.0.0.1:31801}: what each
// advertises, as etcd's --initial-advertise-peer-urls and
// --advertise-client-urls. Member IDs are computed from the peer URL and
// token:, as etcd computes them, so a cluster given a real one's URLs and
// token has its IDs. Each URL's position is kept in pos, under
// cluster.WHAT.MEMBER.
// quota reads quota_backend_bytes: one quota for every member, or a
// mapping that gives members their own (etcd's flag is per member); a
// member it does not name keeps etcd's default, 2 GiB.
func (p *parser) quota(v *yaml.Node, c *sim.Config) {
	one := func(n *yaml.Node, what string) (int64, bool) {
		u, ok := p.uint(n, what)
		if !ok {
			return 0, false
		}
		if u < 1 || u > 8<<30 {
			p.errorf(p.pos(n), "%s: want 1 to 8589934592 (8 GiB, etcd's suggested maximum), found %d", what, u)
			return 0, false
		}
		return int64(u), true
	}
	if v.Kind != yaml.MappingNode {
		if q, ok := one(v, "quota_backend_bytes"); ok {
			c.QuotaBackendBytes = q
		}
		return
	}
	f := p.mapping(v, "quota_backend_bytes", nil)
	if len(f) == 0 {
		p.errorf(p.pos(v), "quota_backend_bytes: want a number of bytes, or at least one member: bytes, like {etcd-1: 200000}")
		return
	}
	c.QuotaBackendBytesOf = map[string]int64{}
	for _, x := range f {
		if p.membersOK && !contains(c.Members, x.key) {
			p.errorf(p.pos(x.k), "quota_backend_bytes: %q is not a member (members: %s)", x.key, strings.Join(c.Members, ", "))
			continue
		}
		if q, ok := one(x.v, "quota_backend_bytes of "+x.key); ok {
			c.QuotaBackendBytesOf[x.key] = q
		}
	}
}

func (p *parser) urls(n *yaml.Node, what string, members []string, pos map[string]Pos) map[string]string {
	if n == nil {
		return nil
	}
	f := p.mapping(n, what, nil)
	out := map[string]string{}
	for _, x := range f {
		if !contains(members, x.key) {
			p.errorf(p.pos(x.k), "%s: %q is not a member (members: %s)", what, x.key, strings.Join(members, ", "))
			continue
		}
		u, ok := p.str(x.v, what)
		if !ok {
			continue
		}
		if err := checkURL(u); err != nil {
			port := "2379"
			if what == "peer_urls" {
				port = "2380"
			}
			p.errorf(p.pos(x.v), "%s: %v; want a URL like http://127.0.0.1:%s", what, err, port)
			continue
		}
		out[x.key] = u
		pos["cluster."+what+"."+x.key] = p.pos(x.v)
	}
	return out
}
