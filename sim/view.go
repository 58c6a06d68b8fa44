package sim

import (
	"cmp"
	"math"
	"reflect"
	"slices"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"go.etcd.io/raft/v3/tracker"

	"github.com/raftsim/raftsim/server"
)

// Role is what a member is doing, as a person would name it.
type Role uint8

// The roles a member can be seen in.
const (
	RoleFollower Role = iota
	RolePreCandidate
	RoleCandidate
	RoleLeader
	RoleLearner
	RoleDown
	RoleStalled
	RoleRemoved
	RoleJoining // added, but not yet in any configuration it has applied
)

var roleNames = [...]string{"follower", "pre-candidate", "candidate", "leader", "learner", "down", "stalled", "removed", "joining"}

func (r Role) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return "role(?)"
}

// ParseRole reads a role name.
func ParseRole(s string) (Role, bool) {
	i := slices.Index(roleNames[:], s)
	return Role(i), i >= 0
}

// MemberInfo is a member's live state, cheap to read.
type MemberInfo struct {
	ID      uint64
	Name    string
	Role    Role
	Raft    raft.StateType // raft's own state, also when stalled
	Up      bool
	Stalled bool
	Removed bool
	Learner bool
	Voter   bool // in the configuration it has applied, as a voter
	// Ready: it has published itself through raft since it started, and
	// serves clients (etcd's ReadyNotify).
	Ready bool
	// MemberID is etcd's member ID (ID is the raft ID inside the simulator).
	MemberID uint64
	// PeerURL and ClientURL are the URLs it advertises.
	PeerURL, ClientURL string

	Term, Vote, Lead      uint64
	Commit, Applied       uint64
	LastIndex, FirstIndex uint64 // the durable log: entries FirstIndex..LastIndex
	// SnapshotIndex and SnapshotTerm are the last entry its snapshot
	// holds: raft keeps that entry's term, so it is an entry of the log
	// still (the one before FirstIndex), whose data the snapshot holds.
	SnapshotIndex, SnapshotTerm uint64
	ElectionElapsed             int // ticks since the election timer was reset
	ElectionTimeout             int // the randomized timeout raft drew, in ticks
	ClockRate                   float64
	DiskBusy                    bool // a write is waiting for the disk
	QueuedWhileStalled          int
	// NoData: down with no data directory to start from (lost with its
	// disk, lose:), until a restore gives it one.
	NoData bool
}

// Info returns the live state of the member with the name.
func (w *World) Info(name string) (MemberInfo, bool) {
	m := w.byName[name]
	if m == nil {
		return MemberInfo{}, false
	}
	return m.info(), true
}

// Infos returns every member's live state, in ID order.
func (w *World) Infos() []MemberInfo {
	out := make([]MemberInfo, len(w.members))
	for i, m := range w.members {
		out[i] = m.info()
	}
	return out
}

func (m *member) info() MemberInfo {
	in := MemberInfo{
		ID: m.id, Name: m.name, Up: m.up, Stalled: m.stalled, Removed: m.removed,
		Learner: slices.Contains(m.conf.GetLearners(), m.id),
		Voter:   slices.Contains(m.conf.GetVoters(), m.id),
		Term:    m.hard.GetTerm(), Vote: m.hard.GetVote(), Commit: m.hard.GetCommit(),
		LastIndex: m.lastIndex(), FirstIndex: m.log.first, SnapshotIndex: m.snap.Index, SnapshotTerm: m.snap.Term,
		ClockRate: m.rate, DiskBusy: m.diskBusy, QueuedWhileStalled: len(m.queue),
		Applied: m.applied, Ready: m.ready && m.up, MemberID: m.memberID,
		PeerURL: m.peerURL, ClientURL: m.clientURL, NoData: m.noData && !m.up,
	}
	switch {
	case m.removed:
		in.Role = RoleRemoved
	case !m.up:
		in.Role = RoleDown
	}
	if m.rn == nil {
		return in
	}
	st := m.status()
	in.Raft, in.Lead = st.state, st.lead
	in.Term, in.Vote, in.Commit = st.term, st.vote, st.commit
	in.ElectionElapsed, in.ElectionTimeout = st.electionElapsed, m.timeoutTicks
	switch {
	case m.stalled:
		in.Role = RoleStalled
	case st.state == raft.StateLeader:
		in.Role = RoleLeader
	case st.state == raft.StateCandidate:
		in.Role = RoleCandidate
	case st.state == raft.StatePreCandidate:
		in.Role = RolePreCandidate
	case in.Learner:
		in.Role = RoleLearner
	case !in.Voter:
		in.Role = RoleJoining
	default:
		in.Role = RoleFollower
	}
	return in
}

// votes reads the votes a (pre-)candidate has received in its current
// election from raft's unexported progress tracker (trk.Votes): by voter
// ID, granted or refused; a voter not in it has not answered yet. Pinned
// to raft v3.7.0 by TestVotesReflection.
func votes(rn *raft.RawNode) map[uint64]bool {
	r := reflect.ValueOf(rn).Elem().FieldByName("raft")
	if !r.IsValid() || r.IsNil() {
		return nil
	}
	v := r.Elem().FieldByName("trk").FieldByName("Votes")
	if !v.IsValid() || v.Kind() != reflect.Map {
		return nil
	}
	out := make(map[uint64]bool, v.Len())
	for it := v.MapRange(); it.Next(); {
		out[it.Key().Uint()] = it.Value().Bool()
	}
	return out
}

// Leader returns the name of the up member in StateLeader with the highest
// term, if there is one.
func (w *World) Leader() (string, bool) {
	if m := w.leader(); m != nil {
		return m.name, true
	}
	return "", false
}

// KVGet returns a key from a member's state machine.
func (w *World) KVGet(member, key string) (string, bool) {
	m := w.byName[member]
	if m == nil || m.srv.KV == nil {
		return "", false
	}
	kv, ok := m.srv.KV.Get(key)
	if !ok {
		return "", false
	}
	return string(kv.Value), true
}

// Membership returns the voters and learners the leader applies, by name.
func (w *World) Membership() (voters, learners []string, ok bool) {
	lead := w.leader()
	if lead == nil {
		return nil, nil, false
	}
	for _, id := range lead.conf.GetVoters() {
		voters = append(voters, w.fmtNode(id))
	}
	for _, id := range lead.conf.GetLearners() {
		learners = append(learners, w.fmtNode(id))
	}
	return voters, learners, true
}

// Converged reports whether every up member has the same commit index,
// applied index and KV contents.
func (w *World) Converged() bool {
	var ref *member
	for _, m := range w.members {
		if !m.up || m.srv.KV == nil {
			continue
		}
		if ref == nil {
			ref = m
			continue
		}
		if m.hard.GetCommit() != ref.hard.GetCommit() || m.applied != ref.applied || m.srv.KV.Revision() != ref.srv.KV.Revision() ||
			!sameKVs(m.srv.KV.Range(""), ref.srv.KV.Range("")) {
			return false
		}
	}
	return true
}

// View is the whole cluster at one instant: what the GUI draws.
type View struct {
	Now      Time
	Seed     uint64
	Leader   string
	Members  []MemberView
	Clients  []ClientConfig
	InFlight []MessageView // in send order
	Cuts     []LinkView    // cut directed links
	Ops      []Op          // every client operation so far
}

// MemberView is one member in a View.
type MemberView struct {
	MemberInfo
	Log      []LogEntryView // the durable log, FirstIndex..LastIndex
	KV       []*KeyValue    // nil when down
	Progress []ProgressView // the leader's view of each peer
	Voters   []string
	Learners []string
	// Votes, for a candidate or a pre-candidate, are the answers it has
	// had in this election, in voter order (its own vote included); a
	// voter missing from them has not answered yet.
	Votes []VoteView
	// DBSize and DBInUse are its database file's DB SIZE and IN USE, as
	// endpoint status reports them (0 for a member never started), and
	// Quota its --quota-backend-bytes.
	DBSize, DBInUse, Quota int64
	// Alarms are the alarms its state machine has applied (up members
	// only), as alarm list prints them: "NOSPACE".
	Alarms []string
}

// VoteView is one voter's answer to a candidate.
type VoteView struct {
	Name    string
	Granted bool
}

// LogEntryView is one entry of a member's log.
type LogEntryView struct {
	Index, Term uint64
	Type        pb.EntryType
	Summary     string // "put /k = v", "conf change", "publish etcd-1", "" for the leader's empty entry
}

// ProgressView is the leader's replication state for one peer.
type ProgressView struct {
	ID          uint64
	Name        string
	Match, Next uint64
	State       string // probe, replicate or snapshot
	Learner     bool
}

// MessageView is a message on the wire, or queued at a stalled member.
type MessageView struct {
	MsgSummary
	From, To  string
	SentAt    Time
	Lost      bool // it vanishes at ArriveAt
	Duplicate bool
	Queued    bool // waiting at a stalled member
}

// LinkView is one directed link.
type LinkView struct{ From, To string }

// View returns the cluster as it is now.
func (w *World) View() View {
	v := View{Now: w.now, Seed: w.cfg.Seed, Clients: w.Clients()}
	v.Leader, _ = w.Leader()
	for _, m := range w.members {
		v.Members = append(v.Members, m.view())
	}
	w.sched.pending(func(e *event) {
		if e.kind == evDeliver {
			v.InFlight = append(v.InFlight, w.messageView(*e, false))
		}
	})
	for _, m := range w.members {
		for _, e := range m.queue {
			if e.kind == evDeliver {
				v.InFlight = append(v.InFlight, w.messageView(e, true))
			}
		}
	}
	slices.SortFunc(v.InFlight, func(a, b MessageView) int {
		if a.SentAt != b.SentAt {
			return int(a.SentAt - b.SentAt)
		}
		if a.ID != b.ID {
			return int(a.ID) - int(b.ID)
		}
		if a.Duplicate != b.Duplicate {
			if a.Duplicate {
				return 1
			}
			return -1
		}
		return 0
	})
	for _, l := range w.net.Cuts() {
		v.Cuts = append(v.Cuts, LinkView{From: w.fmtNode(l.From), To: w.fmtNode(l.To)})
	}
	v.Ops = make([]Op, len(w.ops))
	for i, op := range w.ops {
		if op != nil { // nil: given back by a headless run (history_forget.go)
			v.Ops[i] = *op
		}
	}
	return v
}

func (w *World) messageView(e event, queued bool) MessageView {
	s := summarize(e.id, e.msg, e.at)
	s.Forwarded = e.msg.GetType() == pb.MsgProp
	return MessageView{MsgSummary: s, From: w.fmtNode(e.peer), To: w.fmtNode(e.node), SentAt: e.sent,
		Lost: e.lost, Duplicate: e.flag, Queued: queued}
}

func (m *member) view() MemberView {
	v := MemberView{MemberInfo: m.info()}
	// The mirror keeps what the safety checks need; what the entries say
	// is on the disk, which holds the same entries (an error would leave
	// the summaries empty, not wrong).
	var ents []*pb.Entry
	if m.log.n > 0 {
		ents, _ = m.disk.Entries(m.log.first, m.lastIndex()+1, math.MaxUint64)
	}
	v.Log = make([]LogEntryView, 0, m.log.n)
	for i := range m.log.n {
		var data []byte
		if i < len(ents) {
			data = ents[i].GetData()
		}
		index := m.log.first + uint64(i)
		e := m.log.at(index)
		v.Log = append(v.Log, LogEntryView{Index: index, Term: e.Term, Type: e.Type, Summary: summarizeEntry(e.Type, data)})
	}
	if m.srv.KV != nil {
		v.KV = m.srv.KV.Range("")
	}
	v.DBSize, v.DBInUse = m.w.DBSize(m.name)
	v.Quota = m.w.cfg.quota(m.name)
	v.Alarms = m.w.Alarms(m.name)
	for _, id := range m.conf.GetVoters() {
		v.Voters = append(v.Voters, m.w.fmtNode(id))
	}
	for _, id := range m.conf.GetLearners() {
		v.Learners = append(v.Learners, m.w.fmtNode(id))
	}
	if m.rn != nil && m.up && (v.Raft == raft.StateCandidate || v.Raft == raft.StatePreCandidate) {
		got := votes(m.rn)
		for _, id := range m.conf.GetVoters() {
			if g, ok := got[id]; ok {
				v.Votes = append(v.Votes, VoteView{Name: m.w.fmtNode(id), Granted: g})
			}
		}
	}
	if m.rn != nil && v.Raft == raft.StateLeader {
		m.rn.WithProgress(func(id uint64, typ raft.ProgressType, pr tracker.Progress) {
			v.Progress = append(v.Progress, ProgressView{ID: id, Name: m.w.fmtNode(id), Match: pr.Match, Next: pr.Next,
				State: pr.State.String(), Learner: typ == raft.ProgressTypeLearner || pr.IsLearner})
		})
	}
	return v
}

func summarizeEntry(typ pb.EntryType, data []byte) string {
	switch typ {
	case pb.EntryConfChange, pb.EntryConfChangeV2:
		return "conf change"
	}
	if len(data) == 0 {
		return ""
	}
	return server.Summary(data)
}

// DBSize returns the named member's DB SIZE and IN USE, in bytes, as
// etcd's Status reports them; 0, 0 for a member that has never started.
func (w *World) DBSize(name string) (size, inUse int64) {
	m := w.byName[name]
	if m == nil {
		return 0, 0
	}
	return m.srv.Backend.Size(int64(w.now))
}

// LogTerms returns the member's durable log as terms: terms[i-1] is the
// term of its entry at index i, for every index from 1 to its last. An
// index it has compacted away, below its snapshot, has term 0 (raft's
// terms start at 1). It is what the Raft paper's figures draw.
func (w *World) LogTerms(name string) ([]uint64, bool) {
	m := w.byName[name]
	if m == nil {
		return nil, false
	}
	terms := make([]uint64, m.lastIndex())
	for i := range terms {
		if e, ok := m.entryAt(uint64(i + 1)); ok {
			terms[i] = e.Term
		}
	}
	return terms, true
}

// FollowedLeader returns the member that every up member follows, with its
// term: the leader that all of them have heard from. It reads what the
// members have persisted and recorded, so it costs no more than a look at
// each member.
func (w *World) FollowedLeader() (name string, term uint64, ok bool) {
	var lead *member
	for _, m := range w.members {
		if m.up && !m.removed && m.soft.RaftState == raft.StateLeader {
			lead = m
			break
		}
	}
	if lead == nil {
		return "", 0, false
	}
	term = lead.hard.GetTerm()
	for _, m := range w.members {
		if m.up && !m.removed && (m.soft.Lead != lead.id || m.hard.GetTerm() != term) {
			return "", 0, false
		}
	}
	return lead.name, term, true
}

// Alarms returns the kinds of the alarms the named member has applied
// ("NOSPACE"), raised by any member, in the order raised; nil if it is
// down.
func (w *World) Alarms(name string) []string {
	m := w.byName[name]
	if m == nil || !m.up {
		return nil
	}
	return m.cluster.Alarms.Kinds()
}

// Quota returns the named member's --quota-backend-bytes.
func (w *World) Quota(name string) int64 { return w.cfg.quota(name) }

// MemberList returns the membership the named member has applied, sorted
// by ID as etcd sorts it: what that member answers to a MemberList call.
// ok is false when there is no such member or it is down.
func (w *World) MemberList(name string) (members []ClusterMember, ok bool) {
	m := w.byName[name]
	if m == nil || !m.up {
		return nil, false
	}
	for _, cm := range m.cluster.Members {
		o := w.members[cm.ID-1]
		x := ClusterMember{ID: o.memberID, Name: cm.Name, PeerURLs: []string{w.peerURLOf(cm)}, IsLearner: cm.Learner}
		if cm.Published {
			x.ClientURLs = []string{o.clientURL}
		}
		members = append(members, x)
	}
	slices.SortFunc(members, func(a, b ClusterMember) int { return cmp.Compare(a.ID, b.ID) })
	return members, true
}

// ClusterVersion returns the cluster version the named member has applied
// ("" until the leader has set it).
func (w *World) ClusterVersion(name string) string {
	if m := w.byName[name]; m != nil {
		return m.cluster.Version
	}
	return ""
}
