package sim

import (
	"encoding/binary"
	"encoding/json"
	"slices"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/membershippb"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/membership"
	"github.com/raftsim/raftsim/server"
)

// This file is etcd's cluster membership as a member applies it (etcd's
// membership.RaftCluster): who is in the cluster, with the etcd member IDs,
// names and URLs that etcdctl shows, which members have published their
// attributes, and the cluster version. Like etcd it changes only by applying
// raft entries: configuration changes, each member's attribute publication
// and the leader's cluster version update.

// clusterVersion is what the leader sets once every member runs
// server.ServerVersion (etcd keeps major.minor); minClusterVersion is what it sets
// when some member's version cannot be learnt (etcd's MinClusterVersion).
const (
	clusterVersion    = "3.6.0"
	minClusterVersion = "3.0.0"
)

// PeerURL is the URL a member advertises to its peers: its name is its host
// name.
func PeerURL(name string) string { return "http://" + name + ":2380" }

// ClientURL is the URL a member advertises to clients.
func ClientURL(name string) string { return "http://" + name + ":2379" }

func (c *Config) peerURL(name string) string {
	if u, ok := c.PeerURLs[name]; ok {
		return u
	}
	return PeerURL(name)
}

func (c *Config) clientURL(name string) string {
	if u, ok := c.ClientURLs[name]; ok {
		return u
	}
	return ClientURL(name)
}

// memberID is a member's etcd ID (membership.MemberID) for its peer URL
// and cluster token; addedAt, for a member added at runtime, is the
// virtual moment it was added, as Unix time.
func memberID(peerURL, token string, addedAt *Time) uint64 {
	if addedAt == nil {
		return membership.MemberID([]string{peerURL}, token, nil)
	}
	at := time.Unix(0, int64(*addedAt))
	return membership.MemberID([]string{peerURL}, token, &at)
}

// clusterState is the membership a member has applied.
type clusterState struct {
	members []clusterMember // in raft ID order
	version string          // the cluster version; "" until the leader sets it
	alarms  server.Alarms   // the alarms raised, in the order raised (etcd's alarm store)
}

// clusterMember is one member as the cluster knows it.
type clusterMember struct {
	id      uint64 // raft ID (the simulator's; see docs/semantics.md)
	name    string // "" for a member added at runtime that has not published yet
	learner bool
	// published: the member has published its attributes (name and client
	// URLs) through raft since the cluster knew it.
	published bool
	peerURL   string // "" for the world member's (the one it started with)
}

func (cs *clusterState) find(id uint64) *clusterMember {
	for i := range cs.members {
		if cs.members[i].id == id {
			return &cs.members[i]
		}
	}
	return nil
}

// confContext is a configuration change's context, as etcd's
// membership.ConfigChangeContext is (JSON, the member's fields flattened):
// the member (its etcd ID, peer URLs, its name for a bootstrap member, its
// learner flag) and whether the change promotes a learner. A member added
// at runtime has no name until it publishes itself.
type confContext struct {
	ID        uint64   `json:"id"`
	PeerURLs  []string `json:"peerURLs"`
	Name      string   `json:"name,omitempty"`
	IsLearner bool     `json:"isLearner,omitempty"`
	IsPromote bool     `json:"isPromote,omitempty"`
}

func (c confContext) encode() []byte {
	b, err := json.Marshal(c)
	if err != nil {
		panic("sim: conf change context: " + err.Error())
	}
	return b
}

func decodeConfContext(b []byte) confContext {
	var c confContext
	if len(b) > 0 && json.Unmarshal(b, &c) != nil {
		c = confContext{Name: string(b)} // a plain name, as early bootstrap entries had
	}
	return c
}

// maxLearners is etcd's default --max-learners.
const maxLearners = 1

// validate is etcd's RaftCluster.ValidateConfigurationChange, run by every
// member as it applies a change: what etcd answers the proposer if the
// change cannot be applied (every member then applies it as no change).
func (cs *clusterState) validate(typ pb.ConfChangeType, id uint64, c confContext, peerURL func(clusterMember) string) string {
	cm := cs.find(id)
	switch typ {
	case pb.ConfChangeAddNode, pb.ConfChangeAddLearnerNode:
		if c.IsPromote {
			switch {
			case cm == nil:
				return "etcdserver: member not found"
			case !cm.learner:
				return "etcdserver: can only promote a learner member"
			}
			return ""
		}
		if cm != nil {
			return "etcdserver: member ID already exist"
		}
		learners := 0
		for _, o := range cs.members {
			for _, u := range c.PeerURLs {
				if peerURL(o) == u {
					return "etcdserver: Peer URLs already exists"
				}
			}
			if o.learner {
				learners++
			}
		}
		if typ == pb.ConfChangeAddLearnerNode && learners+1 > maxLearners {
			return "etcdserver: too many learner members in cluster"
		}
	case pb.ConfChangeRemoveNode:
		if cm == nil {
			return "etcdserver: member not found"
		}
	case pb.ConfChangeUpdateNode:
		if cm == nil {
			return "etcdserver: member not found"
		}
		for _, o := range cs.members {
			for _, u := range c.PeerURLs {
				if o.id != id && peerURL(o) == u {
					return "etcdserver: Peer URLs already exists"
				}
			}
		}
	}
	return ""
}

// applyConfChange follows a configuration change that validate accepted.
func (cs *clusterState) applyConfChange(typ pb.ConfChangeType, id uint64, c confContext) {
	switch typ {
	case pb.ConfChangeAddNode, pb.ConfChangeAddLearnerNode:
		learner := typ == pb.ConfChangeAddLearnerNode
		if cm := cs.find(id); cm != nil {
			cm.learner = learner // a promotion
			return
		}
		cm := clusterMember{id: id, name: c.Name, learner: learner}
		if len(c.PeerURLs) > 0 {
			cm.peerURL = c.PeerURLs[0]
		}
		cs.members = append(cs.members, cm)
		slices.SortFunc(cs.members, func(a, b clusterMember) int { return cmpUint(a.id, b.id) })
	case pb.ConfChangeRemoveNode:
		cs.members = slices.DeleteFunc(cs.members, func(cm clusterMember) bool { return cm.id == id })
	case pb.ConfChangeUpdateNode:
		if cm := cs.find(id); cm != nil && len(c.PeerURLs) > 0 {
			cm.peerURL = c.PeerURLs[0]
		}
	}
}

// voters returns the voting members.
func (cs *clusterState) voters() []clusterMember {
	var out []clusterMember
	for _, cm := range cs.members {
		if !cm.learner {
			out = append(out, cm)
		}
	}
	return out
}

// startedVoters counts the voting members that have published themselves
// (etcd's Member.IsStarted: it has a name), leaving out skip.
func (cs *clusterState) startedVoters(skip uint64) (started, all int) {
	for _, cm := range cs.voters() {
		if cm.id == skip {
			continue
		}
		all++
		if cm.name != "" {
			started++
		}
	}
	return started, all
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// clusterJSON is the cluster state as a snapshot holds it: JSON, as
// etcd's members bucket holds each member (membership.Member).
type clusterJSON struct {
	Version string       `json:"version,omitempty"`
	Members []memberJSON `json:"members"`
	Alarms  []alarmJSON  `json:"alarms,omitempty"` // etcd's alarm bucket
}

type alarmJSON struct {
	Member uint64                 `json:"member"`
	Alarm  etcdserverpb.AlarmType `json:"alarm"`
}

type memberJSON struct {
	ID        uint64 `json:"id"` // the raft ID
	Name      string `json:"name,omitempty"`
	PeerURL   string `json:"peerURL,omitempty"`
	IsLearner bool   `json:"isLearner,omitempty"`
	Published bool   `json:"published,omitempty"`
}

// encode writes the cluster state for a snapshot.
func (cs *clusterState) encode() []byte {
	var j clusterJSON
	j.Version = cs.version
	j.Members = make([]memberJSON, len(cs.members))
	for i, cm := range cs.members {
		m := &j.Members[i]
		m.ID, m.Name, m.PeerURL, m.IsLearner, m.Published = cm.id, cm.name, cm.peerURL, cm.learner, cm.published
	}
	for _, a := range cs.alarms {
		j.Alarms = append(j.Alarms, alarmJSON{a.Member, a.Kind})
	}
	b, err := json.Marshal(j)
	if err != nil {
		panic("sim: encode the cluster: " + err.Error())
	}
	return b
}

func (cs *clusterState) decode(b []byte) error {
	var j clusterJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return server.ErrCorrupt
	}
	cs.version, cs.members, cs.alarms = j.Version, nil, nil
	for _, a := range j.Alarms {
		cs.alarms = append(cs.alarms, server.Alarm{Member: a.Member, Kind: a.Alarm})
	}
	for _, m := range j.Members {
		cs.members = append(cs.members, clusterMember{id: m.ID, name: m.Name, peerURL: m.PeerURL, learner: m.IsLearner, published: m.Published})
	}
	return nil
}

// snapshotData is what a member's snapshot holds: its cluster state, then
// its key-value store, each after its length.
func (m *member) snapshotData() []byte { return snapshotData(m.cluster.encode(), m.kv.Encode()) }

func snapshotData(cluster, kv []byte) []byte {
	b := binary.AppendUvarint(nil, uint64(len(cluster)))
	return append(append(b, cluster...), kv...)
}

// restoreData rebuilds the cluster state and the store from snapshot data.
// Empty data (no snapshot yet) gives an empty cluster and an empty store.
func (m *member) restoreData(b []byte) error {
	m.cluster = clusterState{}
	if len(b) == 0 {
		// no snapshot yet: the store the cluster began with
		kv, err := server.DecodeKV(m.w.cfg.InitialKV, m.w.cfg.minLeaseTTL())
		if err != nil {
			return err
		}
		m.kv = kv
		m.cluster.version = m.w.cfg.InitialClusterVersion
		m.watchStore()
		m.attachDB()
		return nil
	}
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return server.ErrCorrupt
	}
	if err := m.cluster.decode(b[k : k+int(n)]); err != nil {
		return err
	}
	kv, err := server.DecodeKV(b[k+int(n):], m.w.cfg.minLeaseTTL())
	if err != nil {
		return err
	}
	m.kv = kv
	m.watchStore()
	m.attachDB()
	return nil
}

// watchStore gives the member's watches its new store: a first one, or
// one restored from a snapshot (server.Watches.Store).
func (m *member) watchStore() { m.watches.Store(m.kv.Store, watchSink{m}) }

// ClusterMember is one member as a member's applied membership lists it:
// etcd's MemberListResponse member.
type ClusterMember struct {
	ID       uint64 // etcd's member ID
	Name     string // "" for a member added at runtime until it publishes itself
	PeerURLs []string
	// ClientURLs: none until the member has published itself.
	ClientURLs []string
	IsLearner  bool
}

// MemberList returns the membership the named member has applied, sorted
// by ID as etcd sorts it: what that member answers to a MemberList call.
// ok is false when there is no such member or it is down.
func (w *World) MemberList(name string) (members []ClusterMember, ok bool) {
	m := w.byName[name]
	if m == nil || !m.up {
		return nil, false
	}
	for _, cm := range m.cluster.members {
		o := w.members[cm.id-1]
		x := ClusterMember{ID: o.memberID, Name: cm.name, PeerURLs: []string{w.peerURLOf(cm)}, IsLearner: cm.learner}
		if cm.published {
			x.ClientURLs = []string{o.clientURL}
		}
		members = append(members, x)
	}
	slices.SortFunc(members, func(a, b ClusterMember) int { return cmpUint(a.ID, b.ID) })
	return members, true
}

// ClusterVersion returns the cluster version the named member has applied
// ("" until the leader has set it).
func (w *World) ClusterVersion(name string) string {
	if m := w.byName[name]; m != nil {
		return m.cluster.version
	}
	return ""
}

// peerURLOf is a member's peer URL as the cluster has it: the one it was
// added or updated with, or the one its process started with.
func (w *World) peerURLOf(cm clusterMember) string {
	if cm.peerURL != "" {
		return cm.peerURL
	}
	return w.members[cm.id-1].peerURL
}

// attrName is the name a publication carries.
func attrName(a *membershippb.Attributes) string {
	if a == nil {
		return ""
	}
	return a.Name
}
