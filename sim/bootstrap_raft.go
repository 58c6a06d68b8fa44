package sim

// The ways a new cluster can start (Config.Bootstrap).
const (
	// BootstrapEtcd starts as etcd does (the default, also ""): one
	// configuration change per member at indexes 1..n in term 1, then each
	// member publishes itself and the leader sets the cluster version.
	BootstrapEtcd = "etcd"
	// BootstrapRaft starts as the Raft paper's figures do: every member's
	// log begins with the same entry at index 1 in term 1 (here a snapshot
	// of the configuration, as raftsim's first core did), and the members
	// are plain raft nodes: no election tick advance, no publication, no
	// cluster version. The first leader is elected in term 2 and appends
	// its empty entry at index 2, so a lesson can follow the paper's
	// indexes (Figure 8).
	BootstrapRaft = "raft"
)
