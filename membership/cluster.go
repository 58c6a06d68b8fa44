package membership

import (
	"cmp"
	"encoding/json"
	"slices"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/membershippb"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/server"
)

// Cluster is the membership a member has applied (etcd's RaftCluster): who
// is in the cluster, which members have published their attributes, the
// cluster version and the alarms. Like etcd's it changes only by applying
// raft entries: configuration changes (Validate, then ApplyConfChange),
// each member's attribute publication (Publish) and the leader's cluster
// version update.
//
// Members are known by their raft IDs (the simulator's; docs/semantics.md):
// the world maps etcd's member IDs to them.
type Cluster struct {
	Members []Member      // in raft ID order
	Version string        // the cluster version; "" until the leader sets it
	Alarms  server.Alarms // the alarms raised, in the order raised (etcd's alarm store)
	// Downgrade is the target version of the downgrade in progress
	// (etcd's DowngradeInfo, set by a DowngradeInfoSet entry); "": none.
	Downgrade string
}

// Member is one member as the cluster knows it.
type Member struct {
	ID      uint64 // raft ID
	Name    string // "" for a member added at runtime that has not published yet
	Learner bool
	// Published: the member has published its attributes (name and client
	// URLs) through raft since the cluster knew it.
	Published bool
	PeerURL   string // "" for the one the member's process started with (the world knows it)
}

// Find returns the member with raft ID id, or nil.
func (c *Cluster) Find(id uint64) *Member {
	for i := range c.Members {
		if c.Members[i].ID == id {
			return &c.Members[i]
		}
	}
	return nil
}

// Publish applies a member's publication of its attributes (etcd's
// ClusterMemberAttrSet) to the member with raft ID id, if it is in the
// cluster.
func (c *Cluster) Publish(id uint64, a *membershippb.Attributes) {
	if cm := c.Find(id); cm != nil {
		cm.Name, cm.Published = "", true
		if a != nil {
			cm.Name = a.Name
		}
	}
}

// ConfContext is a configuration change's context, as etcd's
// membership.ConfigChangeContext is (JSON, the member's fields flattened):
// the member (its etcd ID, peer URLs, its name for a bootstrap member, its
// learner flag) and whether the change promotes a learner. A member added
// at runtime has no name until it publishes itself.
type ConfContext struct {
	ID        uint64   `json:"id"`
	PeerURLs  []string `json:"peerURLs"`
	Name      string   `json:"name,omitempty"`
	IsLearner bool     `json:"isLearner,omitempty"`
	IsPromote bool     `json:"isPromote,omitempty"`
}

// Encode is the context as a configuration change carries it.
func (c ConfContext) Encode() []byte {
	b, err := json.Marshal(c)
	if err != nil {
		panic("membership: conf change context: " + err.Error())
	}
	return b
}

// DecodeConfContext reads a configuration change's context.
func DecodeConfContext(b []byte) ConfContext {
	var c ConfContext
	if len(b) > 0 && json.Unmarshal(b, &c) != nil {
		c = ConfContext{Name: string(b)} // a plain name, as early bootstrap entries had
	}
	return c
}

// MaxLearners is etcd's default --max-learners.
const MaxLearners = 1

// The reasons ValidateConfigurationChange refuses a change, as etcd's
// gRPC layer words them.
const (
	ErrIDExists        = "etcdserver: member ID already exist"
	ErrMemberNotFound  = "etcdserver: member not found"
	ErrNotLearner      = "etcdserver: can only promote a learner member"
	ErrPeerURLExists   = "etcdserver: Peer URLs already exists"
	ErrTooManyLearners = "etcdserver: too many learner members in cluster"
)

// Validate is etcd's RaftCluster.ValidateConfigurationChange, run by every
// member as it applies a change: what etcd answers the proposer if the
// change cannot be applied ("" if it can; every member then applies a
// refused change as no change). peerURL is a member's peer URL as the
// cluster has it.
func (c *Cluster) Validate(typ pb.ConfChangeType, id uint64, ctx ConfContext, peerURL func(Member) string) string {
	cm := c.Find(id)
	switch typ {
	case pb.ConfChangeAddNode, pb.ConfChangeAddLearnerNode:
		if ctx.IsPromote {
			switch {
			case cm == nil:
				return ErrMemberNotFound
			case !cm.Learner:
				return ErrNotLearner
			}
			return ""
		}
		if cm != nil {
			return ErrIDExists
		}
		learners := 0
		for _, o := range c.Members {
			for _, u := range ctx.PeerURLs {
				if peerURL(o) == u {
					return ErrPeerURLExists
				}
			}
			if o.Learner {
				learners++
			}
		}
		if typ == pb.ConfChangeAddLearnerNode && learners+1 > MaxLearners {
			return ErrTooManyLearners
		}
	case pb.ConfChangeRemoveNode:
		if cm == nil {
			return ErrMemberNotFound
		}
	case pb.ConfChangeUpdateNode:
		if cm == nil {
			return ErrMemberNotFound
		}
		for _, o := range c.Members {
			for _, u := range ctx.PeerURLs {
				if o.ID != id && peerURL(o) == u {
					return ErrPeerURLExists
				}
			}
		}
	}
	return ""
}

// ApplyConfChange follows a configuration change that Validate accepted.
func (c *Cluster) ApplyConfChange(typ pb.ConfChangeType, id uint64, ctx ConfContext) {
	switch typ {
	case pb.ConfChangeAddNode, pb.ConfChangeAddLearnerNode:
		learner := typ == pb.ConfChangeAddLearnerNode
		if cm := c.Find(id); cm != nil {
			cm.Learner = learner // a promotion
			return
		}
		cm := Member{ID: id, Name: ctx.Name, Learner: learner}
		if len(ctx.PeerURLs) > 0 {
			cm.PeerURL = ctx.PeerURLs[0]
		}
		c.Members = append(c.Members, cm)
		slices.SortFunc(c.Members, func(a, b Member) int { return cmp.Compare(a.ID, b.ID) })
	case pb.ConfChangeRemoveNode:
		c.Members = slices.DeleteFunc(c.Members, func(cm Member) bool { return cm.ID == id })
	case pb.ConfChangeUpdateNode:
		if cm := c.Find(id); cm != nil && len(ctx.PeerURLs) > 0 {
			cm.PeerURL = ctx.PeerURLs[0]
		}
	}
}

// IDs returns the members' raft IDs, learners too, in raft ID order.
func (c *Cluster) IDs() []uint64 {
	out := make([]uint64, len(c.Members))
	for i, cm := range c.Members {
		out[i] = cm.ID
	}
	return out
}

// Voters returns the voting members.
func (c *Cluster) Voters() []Member {
	var out []Member
	for _, cm := range c.Members {
		if !cm.Learner {
			out = append(out, cm)
		}
	}
	return out
}

// StartedVoters counts the voting members that have published themselves
// (etcd's Member.IsStarted: it has a name), leaving out skip.
func (c *Cluster) StartedVoters(skip uint64) (started, all int) {
	for _, cm := range c.Voters() {
		if cm.ID == skip {
			continue
		}
		all++
		if cm.Name != "" {
			started++
		}
	}
	return started, all
}

// clusterJSON is the cluster as a snapshot holds it: JSON, as etcd's
// members bucket holds each member (membership.Member).
type clusterJSON struct {
	Version string       `json:"version,omitempty"`
	Members []memberJSON `json:"members"`
	Alarms  []alarmJSON  `json:"alarms,omitempty"` // etcd's alarm bucket
	// Downgrade: etcd's downgrade key of the cluster bucket.
	Downgrade string `json:"downgrade,omitempty"`
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

// Encode writes the cluster for a snapshot.
func (c *Cluster) Encode() []byte {
	var j clusterJSON
	j.Version, j.Downgrade = c.Version, c.Downgrade
	j.Members = make([]memberJSON, len(c.Members))
	for i, cm := range c.Members {
		m := &j.Members[i]
		m.ID, m.Name, m.PeerURL, m.IsLearner, m.Published = cm.ID, cm.Name, cm.PeerURL, cm.Learner, cm.Published
	}
	for _, a := range c.Alarms {
		j.Alarms = append(j.Alarms, alarmJSON{a.Member, a.Kind})
	}
	b, err := json.Marshal(j)
	if err != nil {
		panic("membership: encode the cluster: " + err.Error())
	}
	return b
}

// Clone returns what Decode makes of c.Encode(), without encoding: the
// same members and alarms in new slices (nil when there are none).
func (c *Cluster) Clone() Cluster {
	return Cluster{Version: c.Version, Downgrade: c.Downgrade, Members: slices.Clip(append([]Member(nil), c.Members...)),
		Alarms: slices.Clip(append(server.Alarms(nil), c.Alarms...))}
}

// Decode reads what Encode wrote: server.ErrCorrupt if it cannot.
func (c *Cluster) Decode(b []byte) error {
	var j clusterJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return server.ErrCorrupt
	}
	c.Version, c.Downgrade, c.Members, c.Alarms = j.Version, j.Downgrade, nil, nil
	for _, a := range j.Alarms {
		c.Alarms = append(c.Alarms, server.Alarm{Member: a.Member, Kind: a.Alarm})
	}
	for _, m := range j.Members {
		c.Members = append(c.Members, Member{ID: m.ID, Name: m.Name, PeerURL: m.PeerURL, Learner: m.IsLearner, Published: m.Published})
	}
	return nil
}
