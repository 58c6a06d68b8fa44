package sim

import (
	"time"

	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/server"
)

// Config describes a cluster and its surroundings. A World built from the
// same Config (and the same commands) always runs the same way.
type Config struct {
	Seed uint64

	// Members are the bootstrap members in order; member i has raft ID i+1.
	Members []string
	// Learners names the members of Members that start as learners.
	Learners []string

	Tick           time.Duration // etcd --heartbeat-interval
	ElectionTicks  int           // etcd --election-timeout / --heartbeat-interval
	HeartbeatTicks int
	PreVote        bool
	CheckQuorum    bool
	// InitialElectionTickAdvance is etcd's --initial-election-tick-advance
	// (default true): a starting member fast-forwards its election timer
	// by election ticks - 2 once more than one peer is connected.
	InitialElectionTickAdvance bool
	// ClusterToken is etcd's --initial-cluster-token; member and cluster
	// IDs are computed from it. "" is etcd's default, "etcd-cluster".
	ClusterToken string
	// PeerURLs and ClientURLs give members the URLs they advertise, by
	// name; a member not listed advertises http://NAME:2380 and
	// http://NAME:2379. Member IDs are computed from the peer URL, as
	// etcd computes them.
	PeerURLs, ClientURLs map[string]string
	// ReadOnlyLease selects raft.ReadOnlyLeaseBased instead of ReadOnlySafe.
	ReadOnlyLease             bool
	DisableProposalForwarding bool
	MaxInflightMsgs           int
	MaxSizePerMsg             uint64
	// SnapshotEvery is the number of applied entries between automatic
	// snapshots (and log compactions); 0 means never.
	SnapshotEvery uint64
	// DiskLatency is how long a write takes to become durable.
	DiskLatency time.Duration

	// Network is the default for every member-to-member link.
	Network netmodel.LinkProps
	// Links override single links, applied in order.
	Links []LinkOverride

	// ClientLatency is the one-way delay between a client and a member. Client
	// connections are never cut by partitions: a partition is between members.
	ClientLatency time.Duration
	Clients       []ClientConfig

	// Topology is "stacked" (each member's host runs a kube-apiserver bound to
	// it alone), "external" (apiservers with every member as an endpoint), or
	// "" (only the clients listed in Clients).
	Topology string
	// Apiservers is how many kube-apiservers a topology builds, on the hosts
	// of the first members; 0 means one per member.
	Apiservers int
	// Bootstrap is how a new cluster starts: "" or "etcd" as etcd does
	// (configuration changes 1..n, publication, cluster version, election
	// tick advance), or "raft" as the Raft paper draws it (see
	// BootstrapRaft).
	Bootstrap string

	// CountReplicasCommit is for tests only, and no scenario key sets it:
	// the safety checks count an entry committed as soon as a majority of
	// the voters' logs hold it, whatever its term. That is the rule Figure
	// 8 of the Raft paper refutes; raft itself is unchanged (countcommit.go).
	CountReplicasCommit bool

	// TimerRule and MaxElectionTicks are for experiments only, and no
	// scenario key sets them. TimerRule says whether a vote request of a
	// higher term that a member rejects restarts its election timer, as in
	// etcd's raft (the default), or not, as in LogCabin (timerrule.go).
	TimerRule TimerRule
	// MaxElectionTicks shapes raft's randomized election timeout (the
	// entropy router, entropy.go): each is drawn uniformly from
	// [ElectionTicks, MaxElectionTicks) ticks, or is ElectionTicks exactly
	// when the two are equal. 0 is raft's own range, [ElectionTicks,
	// 2·ElectionTicks).
	MaxElectionTicks int

	// Bugs are faults injected on purpose into the members and their disks
	// (bugs.go), for showing that the checkers catch what they break.
	Bugs []Bug
	// CompactionInterval is kube-apiserver's --etcd-compaction-interval:
	// with a topology, each apiserver runs kube-apiserver's compactor at
	// this interval (Kubernetes' default is 5m). 0 turns it off.
	CompactionInterval time.Duration
	// InitialKV is the state machine every member starts with, in the
	// simulator's own encoding (server.RestoreKV makes it from an etcd snapshot):
	// a cluster restored from a snapshot, as etcdutl snapshot restore
	// builds one on each member's disk. nil starts with an empty store.
	InitialKV []byte
	// InitialStore is InitialKV already decoded (server.RestoreShared
	// reads one from an etcd snapshot without encoding it); it takes
	// InitialKV's place. Worlds may share it, from several goroutines.
	InitialStore *server.SharedKV
	// QuotaBackendBytes is every member's --quota-backend-bytes: past it a
	// member refuses writes and raises the NOSPACE alarm (quota.go). 0 is
	// etcd's default, 2 GiB.
	QuotaBackendBytes int64
	// QuotaBackendBytesOf gives members their own --quota-backend-bytes,
	// by name, over QuotaBackendBytes (etcd's flag is per member).
	QuotaBackendBytesOf map[string]int64
	// InitialClusterVersion is the cluster version a restored cluster's
	// database holds ("" for a new cluster): its leader proposes none.
	InitialClusterVersion string
	// FromSnapshot is the snapshot file InitialKV was read from, as the
	// user named it (scenarios reads it; the simulator never does), so that
	// a saved session names it again.
	FromSnapshot string
}

// LinkOverride changes the properties of one link. Nil fields keep the default.
type LinkOverride struct {
	From, To  string
	Latency   *netmodel.Latency
	Loss      *netmodel.Ratio
	Duplicate *netmodel.Ratio
	// OneWay applies the override to From → To only.
	OneWay bool
}

// ClientConfig is an etcd client (etcdctl, a kube-apiserver, ...).
type ClientConfig struct {
	Name      string
	Endpoints []string // member names, in failover order
	Timeout   time.Duration
}

// DefaultClientTimeout is the request timeout of a client that names none
// (etcd's request timeout is 7s: 5s + 2 * election timeout by default).
const DefaultClientTimeout = 7 * time.Second

// DefaultConfig returns etcd's defaults: five members n1..n5, a 100ms
// heartbeat, a 1s election timeout, PreVote and CheckQuorum on, and a LAN
// with 5-15ms one-way latency.
func DefaultConfig() Config {
	return Config{
		Seed:                       1,
		Members:                    []string{"n1", "n2", "n3", "n4", "n5"},
		Tick:                       100 * time.Millisecond,
		ElectionTicks:              10,
		HeartbeatTicks:             1,
		PreVote:                    true,
		CheckQuorum:                true,
		MaxInflightMsgs:            512, // etcd's default (maxInflightMsgs = 4096 / 8)
		InitialElectionTickAdvance: true,
		MaxSizePerMsg:              1 << 20,
		Network:                    netmodel.LinkProps{Latency: netmodel.Latency{Min: 5 * time.Millisecond, Max: 15 * time.Millisecond}},
		ClientLatency:              time.Millisecond,
	}
}

// SandboxConfig is the default sandbox of the GUI and the console: five
// members etcd-1..5 and a stacked control plane of three kube-apiservers,
// on the hosts of etcd-1..3, each bound to its local member.
func SandboxConfig() Config {
	c := DefaultConfig()
	c.Members = []string{"etcd-1", "etcd-2", "etcd-3", "etcd-4", "etcd-5"}
	c.Topology = "stacked"
	c.Apiservers = 3
	return c
}
