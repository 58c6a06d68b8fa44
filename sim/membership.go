package sim

import (
	"time"

	"github.com/raftsim/raftsim/membership"
	"github.com/raftsim/raftsim/server"
)

// A member's applied membership (membership.Cluster, etcd's RaftCluster)
// as the world holds it: the URLs a host advertises, the member IDs of the
// world's members, the cluster state in the member's snapshots, and the
// member list etcdctl shows, with the etcd member IDs and client URLs the
// world knows of each raft ID.

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

// restoreData rebuilds the cluster state and the store from snapshot data
// (snapshot.go). Empty data (no snapshot yet) gives an empty cluster and an
// empty store.
func (m *member) restoreData(b []byte) error {
	m.cluster = membership.Cluster{}
	if len(b) == 0 {
		// no snapshot yet: the store the cluster began with
		kv := server.NewKV(m.w.cfg.minLeaseTTL())
		if m.w.initialKV != nil {
			kv = m.w.initialKV.KV(m.w.cfg.minLeaseTTL()) // cfg.InitialKV, decoded once (World.initialKV)
		}
		m.cluster.Version = m.w.cfg.InitialClusterVersion
		m.srv.SetKV(kv, watchSink{m})
		m.attachDB()
		return nil
	}
	cluster, ref, err := splitSnapshotData(b)
	if err != nil {
		return err
	}
	if err := m.cluster.Decode(cluster); err != nil {
		return err
	}
	kv, err := m.w.snapshotKV(ref)
	if err != nil {
		return err
	}
	m.srv.SetKV(kv, watchSink{m})
	m.attachDB()
	return nil
}

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
