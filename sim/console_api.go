package sim

import (
	"errors"
	"fmt"
	"slices"

	"github.com/raftsim/raftsim/mvcc"
	"github.com/raftsim/raftsim/server"
)

// Accessors the console (package console) needs and the rest of the
// world's API does not provide. They only read.

// MemberKV returns a copy of a member's state machine: its store revision
// and every key in key order, as `etcdctl snapshot save` streams them from
// that member. ok is false when there is no such member or it is down (its
// state machine is volatile and lost while it is down).
func (w *World) MemberKV(name string) (revision int64, kvs []*KeyValue, ok bool) {
	m := w.byName[name]
	if m == nil || !m.up || m.srv.KV == nil {
		return 0, nil, false
	}
	return m.srv.KV.Revision(), m.srv.KV.Range(""), true
}

// MemberConf returns the voters and learners of the configuration a member
// has applied, by name, in ID order: what that member answers to an etcd
// MemberList call. ok is false when there is no such member.
func (w *World) MemberConf(name string) (voters, learners []string, ok bool) {
	m := w.byName[name]
	if m == nil || m.conf == nil {
		return nil, nil, m != nil
	}
	for _, id := range m.conf.GetVoters() {
		voters = append(voters, w.fmtNode(id))
	}
	for _, id := range m.conf.GetLearners() {
		learners = append(learners, w.fmtNode(id))
	}
	return voters, learners, true
}

// LeaseAlive reports whether a member's lessor holds the lease: at the
// leader, whether it is still alive.
func (w *World) LeaseAlive(member string, id int64) bool {
	m := w.byName[member]
	return m != nil && m.up && m.srv.KV != nil && m.srv.KV.Lessor.Exists(id)
}

// HashKV returns what a member answers to etcd's HashKV call: the hash of
// its store's changes up to rev (0: its current revision), as etcd hashes
// them, and its current revision. A learner does not serve it.
func (w *World) HashKV(name string, rev int64) (mvcc.KeyValueHash, int64, error) {
	m := w.byName[name]
	if m == nil || !m.up || m.srv.KV == nil {
		return mvcc.KeyValueHash{}, 0, fmt.Errorf("%s is down", name)
	}
	if slices.Contains(m.conf.GetLearners(), m.id) {
		return mvcc.KeyValueHash{}, 0, errNotForLearner
	}
	h, cur, err := m.srv.KV.Store.HashByRev(rev)
	if err != nil {
		return h, cur, fmt.Errorf("etcdserver: %w", err)
	}
	return h, cur, nil
}

// errNotForLearner is etcd's answer to an RPC a learner does not serve.
var errNotForLearner = errors.New(server.ErrNotForLearner)

// Started reports whether the cluster has started as a real one a client
// talks to has: a leader is elected, and every member that is up has heard
// from it, published itself and applied everything the leader has.
func (w *World) Started() bool {
	l, ok := w.Leader()
	if !ok {
		return false
	}
	lead, _ := w.Info(l)
	for _, in := range w.Infos() {
		if in.Up && !in.Removed && (in.Lead != lead.ID || !in.Ready || in.Applied < lead.LastIndex) {
			return false
		}
	}
	return true
}
