package sim

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"

	"github.com/raftsim/raftsim/mvcc"
	"github.com/raftsim/raftsim/server"
)

// What the console (etcdctl, package console) and the wire (raftsim
// serve) ask a member for beside requests: its store, configuration and
// leases (below), the Maintenance answers, and etcd's auth at the member.
// They only read.

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

// errNotForLearner is etcd's answer to an RPC a learner does not serve,
// as the value clientv3 sees (an rpctypes.EtcdError, whose Code is
// FailedPrecondition): a caller decides on the code, its text is printed.
var errNotForLearner = rpctypes.Error(rpctypes.ErrGRPCNotSupportedForLearner)

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

// What a member answers to etcd's Maintenance calls that it serves at once
// from its own state, without consensus: Status, and the checks of
// MoveLeader (server/status.go). The console (etcdctl) and the wire
// (raftsim serve) both ask here.

// Status returns what the named member answers to a Status call now: its
// own view, read at once. ok is false when there is no such member or it
// is down.
func (w *World) Status(name string) (r *pb.StatusResponse, ok bool) {
	m := w.byName[name]
	if m == nil || !m.up {
		return nil, false
	}
	in := m.info()
	s := server.MemberStatus{Header: w.header(m, true), RaftIndex: in.Commit, RaftTerm: in.Term, RaftAppliedIndex: in.Applied,
		IsLearner: in.Learner, Quota: w.cfg.quota(name), Alarms: m.cluster.Alarms, ClusterVersion: m.cluster.Version,
		Downgrade: m.cluster.Downgrade}
	s.DBSize, s.DBSizeInUse = w.DBSize(name)
	if in.Lead != 0 && int(in.Lead) <= len(w.members) {
		s.Leader = w.members[in.Lead-1].memberID
	}
	return server.Status(&s), true
}

// Header returns the response header the named member puts on an answer
// now: the cluster, itself, its store's revision (if withRevision) and its
// raft term.
func (w *World) Header(name string, withRevision bool) *pb.ResponseHeader {
	m := w.byName[name]
	if m == nil {
		return &pb.ResponseHeader{ClusterId: w.clusterID}
	}
	return w.header(m, withRevision)
}

func (w *World) header(m *member, withRevision bool) *pb.ResponseHeader {
	h := &pb.ResponseHeader{ClusterId: m.clusterID(), MemberId: m.memberID, RaftTerm: m.info().Term}
	if withRevision && m.up && m.srv.KV != nil {
		h.Revision = m.srv.KV.Revision()
	}
	return h
}

// CheckTransferee returns etcd's error for a MoveLeader to the named member
// when it cannot lead (server.CheckTransferee: a learner, a removed member,
// no such member); "" when it can.
func (w *World) CheckTransferee(name string) string {
	in, ok := w.Info(name)
	return server.CheckTransferee(server.Transferee{Known: ok, Learner: in.Learner, Removed: in.Removed, Voter: in.Voter})
}

// etcd's auth at a member: what the server layer's auth store
// (server.AuthStore) needs of the world. An Auth service call is an
// OpAuth, proposed and applied as any write; the checks of a key-value
// request are the apply path's for writes (server.KV.Apply) and, for a
// read, the member's server layer's as it answers it
// (server.Member.ReadPermitted), as etcd's doSerialize does after the read
// index.

// WatchRefused reports whether a watch failed because auth refused it
// (server.Member.WatchPermitted), which etcd answers as a canceled watch, not an error
// of the stream.
func WatchRefused(op *Op) bool {
	if op.Kind != OpWatch || op.Status != OpError {
		return false
	}
	switch op.Err {
	case server.ErrPermissionDenied, server.ErrUserEmpty, server.ErrInvalidAuthToken, server.ErrAuthOldRevision:
		return true
	}
	return false
}

// CheckPassword is what etcd's Authenticate checks at the member that
// receives it before anything goes to raft (AuthStore.CheckPassword): ""
// when the password is the user's, else the error the client gets.
func (w *World) CheckPassword(member, user, password string) string {
	m := w.byName[member]
	if m == nil || !m.up {
		return server.ErrAuthNotEnabled
	}
	return m.srv.KV.Auth.CheckPassword(user, password)
}

// authStream is the seeded stream a salt or a token prefix is drawn from:
// one for each command of the log, so that what a command carries (a
// bcrypt hash, a token prefix) is the same in every run of the same
// session, and a replay, which finds them in the commands, draws none.
func (w *World) authStream(what string) func(n int) int {
	r := stream(w.cfg.Seed, "auth/"+what+"/"+strconv.Itoa(w.CommandCount()))
	return func(n int) int { return r.IntN(n) }
}

// HashPassword hashes a password as etcd's UserAdd and UserChangePassword
// do at the member that receives them (bcrypt at etcd's default cost),
// with a salt from the world's seeded entropy: the command carries the
// hash, base64 as etcd's raft entry does, never the password.
func (w *World) HashPassword(password string) (string, error) {
	var salt [16]byte
	draw := w.authStream("salt")
	for i := range salt {
		salt[i] = byte(draw(256))
	}
	h, err := server.HashPassword([]byte(password), server.BcryptCost, salt)
	if err != nil {
		return "", err
	}
	return base64Std(h), nil
}

// TokenPrefix draws a simple token's prefix, as etcd's Authenticate does
// before it proposes (genTokenPrefix), from the world's seeded entropy.
func (w *World) TokenPrefix() string { return server.SimpleTokenPrefix(w.authStream("token")) }

// AuthEnabled reports whether auth is enabled at the member (as it has
// applied it).
func (w *World) AuthEnabled(member string) bool {
	m := w.byName[member]
	return m != nil && m.srv.KV != nil && m.srv.KV.Auth.Enabled()
}

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
