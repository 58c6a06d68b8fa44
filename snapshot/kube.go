package snapshot

import "fmt"

// Test data for measuring raftsim on production-sized snapshots (issue
// 30): the scenarios' tests and `make limits` open what it writes.

// WriteKubeShaped writes, with the project's own writer, a snapshot
// shaped as a Kubernetes cluster's: keys /registry/<kind>/<ns>/<name>,
// values of about 2 kB, each key created, then updated twice (history),
// a tenth of them deleted, a compaction finished at a third of the
// history, and a lease for every 50th key, until the records' bytes reach
// about size. It returns the file's size and the records written.
func WriteKubeShaped(path string, size int64) (written int64, records int, err error) {
	kinds := []string{"pods", "configmaps", "secrets", "events", "leases"}
	value := make([]byte, 2000)
	for i := range value {
		value[i] = byte('a' + i%26)
	}
	keys := int(size / (3 * 2 * 2100))
	st := &State{ConsistentIndex: 10, Term: 2, StorageVersion: "3.6.0", ClusterVersion: "3.6.0", AuthRevision: 1,
		Members:   []Member{{ID: 1, Name: "etcd-1", PeerURLs: []string{"https://10.0.0.1:2380"}, ClientURLs: []string{"https://10.0.0.1:2379"}}},
		ConfState: ConfState{Voters: []uint64{1}}}
	for i := 0; i < keys; i += 50 {
		st.Leases = append(st.Leases, Lease{ID: int64(0x7000 + i), TTL: 3600})
	}
	key := func(i int) []byte {
		return fmt.Appendf(nil, "/registry/%s/ns-%d/object-%07d", kinds[i%len(kinds)], i%97, i)
	}
	n := 0
	recs := func(yield func(*Record) error) error {
		rev := int64(1)
		var r Record
		put := func(i int, version int64, create int64) error {
			rev++
			r = Record{Rev: Revision{Main: rev}}
			r.KV.Key, r.KV.Value, r.KV.CreateRevision, r.KV.ModRevision, r.KV.Version = key(i), value, create, rev, version
			if i%50 == 0 {
				r.KV.Lease = int64(0x7000 + i)
			}
			n++
			return yield(&r)
		}
		for round := int64(1); round <= 3; round++ {
			for i := range keys {
				if err := put(i, round, int64(2+i)); err != nil {
					return err
				}
			}
			if round == 1 {
				st.ScheduledCompact, st.FinishedCompact = rev, rev
			}
		}
		for i := 0; i < keys; i += 10 {
			rev++
			r = Record{Rev: Revision{Main: rev}, Tombstone: true}
			r.KV.Key, r.KV.ModRevision = key(i), rev
			n++
			if err := yield(&r); err != nil {
				return err
			}
		}
		return nil
	}
	// the compaction's revisions are known before the file is written
	st.ScheduledCompact, st.FinishedCompact = int64(1+keys), int64(1+keys)
	w, err := Write(path, st, recs)
	if err != nil {
		return 0, 0, err
	}
	return w.Size, n, nil
}

// WriteSmallKeys writes a snapshot of keys keys, /registry/configmaps/
// ns-<i%97>/small-<i>, each put once with a value of 16 bytes: a store of
// many small keys, whose cost is in the key index rather than the values.
// It returns the file's size and the records written.
func WriteSmallKeys(path string, keys int) (written int64, records int, err error) {
	st := &State{ConsistentIndex: 10, Term: 2, StorageVersion: "3.6.0", ClusterVersion: "3.6.0", AuthRevision: 1,
		Members:   []Member{{ID: 1, Name: "etcd-1", PeerURLs: []string{"https://10.0.0.1:2380"}, ClientURLs: []string{"https://10.0.0.1:2379"}}},
		ConfState: ConfState{Voters: []uint64{1}}}
	value := []byte("0123456789abcdef")
	recs := func(yield func(*Record) error) error {
		var r Record
		for i := range keys {
			rev := int64(2 + i)
			r = Record{Rev: Revision{Main: rev}}
			r.KV.Key = fmt.Appendf(nil, "/registry/configmaps/ns-%d/small-%08d", i%97, i)
			r.KV.Value, r.KV.CreateRevision, r.KV.ModRevision, r.KV.Version = value, rev, rev, 1
			if err := yield(&r); err != nil {
				return err
			}
		}
		return nil
	}
	w, err := Write(path, st, recs)
	if err != nil {
		return 0, 0, err
	}
	return w.Size, keys, nil
}
