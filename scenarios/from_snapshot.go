package scenarios

import (
	"fmt"

	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
	"github.com/raftsim/raftsim/snapshot"
)

// RestoreFrom makes cfg a cluster restored from the etcd v3.6 snapshot at
// path (cluster: {from_snapshot: FILE}, raftsim shell --from-snapshot), as
// etcdutl snapshot restore followed by a start of every member makes one:
// new member and cluster IDs (from the config's names, URLs and token),
// the store's keys, history, revision and compaction kept, the leases back
// with their TTLs, the cluster version already set. The file is read once
// and bounded (snapshot.MaxBytes); cfg keeps the path it was given.
func RestoreFrom(cfg *sim.Config, path string) error {
	s, err := snapshot.Open(path, snapshot.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	kv, err := server.RestoreShared(&s.State, s.Records)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	cfg.InitialKV, cfg.InitialStore, cfg.InitialClusterVersion = nil, kv, s.ClusterVersion
	return nil
}

// ReadSnapshot reads the etcd v3.6 snapshot at path as etcdutl snapshot
// restore does (its sha256 and its pages checked, bounded by
// snapshot.MaxBytes): the state machine a restored member starts with
// (server.RestoreKV) and the cluster version the file records.
func ReadSnapshot(path string) (kv []byte, clusterVersion string, err error) {
	s, err := snapshot.Open(path, snapshot.Options{})
	if err != nil {
		return nil, "", err
	}
	defer s.Close()
	kv, err = server.RestoreKV(&s.State, s.Records)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return kv, s.ClusterVersion, nil
}
