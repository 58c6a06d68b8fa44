package sim

import (
	"github.com/raftsim/raftsim/server"
	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/lincheck"
	"github.com/raftsim/raftsim/mvcc"
)

// A world runs one raft group at first: the cluster it bootstrapped. A
// cluster restored from a snapshot (etcdutl snapshot restore) is a raft
// group of its own, with its own log from index 1, its own terms and its
// own store, even where it runs on the same hosts. What holds within one
// group need not hold between two: the safety checks and the
// linearizability check are each group's own.

// group is one raft group the world has run.
type group struct {
	clusterID uint64
	restored  bool // made by etcdutl snapshot restore (restore.go)
	forced    bool // made by a restart with --force-new-cluster (forcenew.go)
	safety    *safety
	// initial is what its store held when it began, by key (a cluster
	// restored from a snapshot); the linearizability check starts from
	// it. Keys with a lease are left out and untracked: their lease may
	// be revoked at any time.
	initial   map[string]string
	untracked []keyRange
	// check is its stream of a run that forgets its history (history_forget.go).
	check *lincheck.Stream[doneOp]
}

// setInitial makes kv's keys what the group's store begins with, for its
// linearizability check (nil: empty).
func (g *group) setInitial(kv *server.KV) {
	g.initial, g.untracked = nil, nil
	if kv != nil {
		r, _ := kv.Store.Range(&etcdserverpb.RangeRequest{Key: mvcc.GteEnd, RangeEnd: mvcc.GteEnd})
		for _, x := range r.Kvs {
			if x.Lease != 0 {
				g.untracked = append(g.untracked, rangeOf(x.Key, nil))
				continue
			}
			if g.initial == nil {
				g.initial = map[string]string{}
			}
			g.initial[string(x.Key)] = string(x.Value)
		}
	}
}

// clusterID returns the ID of the cluster m's data directory belongs to.
func (m *member) clusterID() uint64 { return m.w.groups[m.group].clusterID }

// safety returns the safety checks of m's raft group.
func (m *member) safety() *safety { return m.w.groups[m.group].safety }

// stream returns the group's stream of a run that forgets its history,
// made the first time it is needed.
func (g *group) stream(w *World) *lincheck.Stream[doneOp] {
	if g.check == nil {
		g.check = lincheck.NewStream[doneOp](lincheck.Options{Initial: g.initial})
		for _, r := range append(g.untracked, w.untracked...) {
			g.check.Untrack(r.key, r.end)
		}
	}
	return g.check
}
