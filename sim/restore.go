package sim

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/raftsim/raftsim/lincheck"
	"github.com/raftsim/raftsim/membership"
	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/snapshot"
)

// Disaster recovery as an operator does it: a snapshot saved from a member
// (etcdctl snapshot save), hosts lost for good with their disks, and
// etcdutl snapshot restore writing a new data directory on a host, from
// which its member is restarted (--data-dir). The restored members are a
// new cluster: new member IDs and a new cluster ID from --initial-cluster
// and --initial-cluster-token, a new raft log (a snapshot at index n, term
// 1, for n members, as etcdutl writes it), and the store's keys, revision,
// compaction and leases as the file holds them. What the old cluster did
// after the snapshot is gone, and the transcript says what.

// RestoreSpec is what etcdutl snapshot restore is given.
type RestoreSpec struct {
	File           string // the snapshot file, as the operator named it
	Name           string // --name: the member restored, on the host of that name
	InitialCluster string // --initial-cluster ("": NAME=the advertised peer URL)
	Token          string // --initial-cluster-token ("": etcd-cluster)
	PeerURL        string // --initial-advertise-peer-urls ("": the host's peer URL)
	DataDir        string // --data-dir ("": NAME.etcd)
	// KV and ClusterVersion are what the file holds (server.RestoreKV, and the
	// cluster version it records) when the world did not save it itself;
	// KV nil restores the snapshot the world saved as File.
	KV             []byte
	ClusterVersion string
}

// savedSnapshot is a snapshot a member saved (snapshot_save): what
// etcdutl snapshot restore reads back from its file.
type savedSnapshot struct {
	kv      []byte
	version string
	rev     int64
	leases  int
	group   int // the raft group it was saved from
}

// snapshotSave keeps m's backend as a snapshot file named file, as
// etcdctl snapshot save writes it (the console writes the real file too).
func (w *World) snapshotSave(m *member, file string) error {
	if file == "" {
		return fmt.Errorf("snapshot save needs a file name")
	}
	if err := w.needUp(m); err != nil {
		return err
	}
	st, records, err := w.SnapshotOf(m.name)
	if err != nil {
		return err
	}
	kv, err := server.RestoreKV(st, records)
	if err != nil {
		return err
	}
	if w.saved == nil {
		w.saved = map[string]savedSnapshot{}
	}
	w.saved[file] = savedSnapshot{kv: kv, version: st.ClusterVersion, rev: m.srv.KV.Revision(), leases: len(st.Leases), group: m.group}
	w.fault(m.id, fmt.Sprintf(snapshotSavedText, file, m.srv.KV.Revision()))
	return nil
}

// SavedSnapshot reports whether a member saved a snapshot named file in
// this run.
func (w *World) SavedSnapshot(file string) bool {
	_, ok := w.saved[file]
	return ok
}

// snapshotRestore writes the data directory etcdutl snapshot restore
// writes on the host named s.Name. The member runs from it once restarted
// with --data-dir.
func (w *World) snapshotRestore(s *RestoreSpec) error {
	if s == nil {
		return fmt.Errorf("snapshot restore: nothing to restore")
	}
	kvBytes, version, saved := s.KV, s.ClusterVersion, -1
	if kvBytes == nil {
		sv, ok := w.saved[s.File]
		if !ok {
			return fmt.Errorf("open %s: no such file or directory", s.File)
		}
		kvBytes, version, saved = sv.kv, sv.version, sv.group
	}
	if s.Name == "" {
		return fmt.Errorf("snapshot restore needs --name: the member it restores")
	}
	host := w.byName[s.Name]
	if host == nil {
		return fmt.Errorf("--name %s: no host of that name (the hosts are %s)", s.Name, strings.Join(w.MemberNames(), ", "))
	}
	dir := cmp.Or(s.DataDir, s.Name+".etcd")
	if host.hasDir(dir) {
		return fmt.Errorf("data-dir %q not empty or could not be read", dir)
	}
	nc, err := membership.Restore(s.Name, cmp.Or(s.PeerURL, host.peerURL), s.InitialCluster, s.Token)
	if err != nil {
		return err
	}
	cluster := membership.Cluster{Version: version}
	var voters []uint64
	for _, p := range nc.Peers {
		h := w.byName[p.Name]
		if h == nil {
			return fmt.Errorf("--initial-cluster: %s is not a host of this simulation (the hosts are %s)", p.Name, strings.Join(w.MemberNames(), ", "))
		}
		if slices.Contains(voters, h.id) {
			return fmt.Errorf("--initial-cluster names %s twice", p.Name)
		}
		voters = append(voters, h.id)
		cluster.Members = append(cluster.Members, membership.Member{ID: h.id, Name: p.Name, PeerURL: p.PeerURL}) // the raft ID, as everywhere in membership.Cluster
	}
	kv, err := server.DecodeKV(kvBytes, w.cfg.minLeaseTTL())
	if err != nil {
		return fmt.Errorf("%s: %v", s.File, err)
	}
	cid := nc.ClusterID
	gi, fresh := w.restoredGroup(cid, kv)
	n := uint64(len(nc.Peers))
	disk := raft.NewMemoryStorage()
	snap := &pb.Snapshot{Data: w.snapshotData(cluster.Encode(), kv.Freeze()),
		Metadata: &pb.SnapshotMetadata{Index: new(n), Term: new(uint64(1)), ConfState: &pb.ConfState{Voters: voters}}}
	if err := disk.ApplySnapshot(snap); err != nil {
		return err
	}
	hard := &pb.HardState{Term: new(uint64(1)), Vote: new(voters[0]), Commit: new(n)}
	if err := disk.SetHardState(hard); err != nil {
		return err
	}
	d := &dataDir{disk: disk, snap: w.groups[gi].safety.snapshotID(n, 1), hard: hard, commitSeen: n, memberID: nc.IDs[nc.Self], group: gi}
	d.log.reset(n + 1)
	if host.dirs == nil {
		host.dirs = map[string]*dataDir{}
	}
	host.dirs[dir] = d
	rev := kv.Revision()
	w.fault(host.id, fmt.Sprintf(restoredText, s.File, dir, nc.IDs[nc.Self], cid, rev))
	if fresh {
		old := host.group
		if saved >= 0 {
			old = saved
		}
		w.tellLosses(host, old, rev, len(kv.Lessor.Leases()))
	}
	return nil
}

// restoredGroup returns the raft group of the restored cluster cid, made
// (fresh) the first time a member of it is restored.
func (w *World) restoredGroup(cid uint64, kv *server.KV) (int, bool) {
	for i, g := range w.groups {
		if i > 0 && g.clusterID == cid && g.restored {
			return i, false
		}
	}
	g := w.newGroup(cid, kv)
	g.restored = true
	return len(w.groups) - 1, true
}

// tellLosses says, once per restored cluster, what the restore leaves
// behind of the cluster the snapshot came from (group old): the
// acknowledged writes above the snapshot's revision, the leases granted
// since, and the watches, which must start again.
func (w *World) tellLosses(host *member, old int, rev int64, leases int) {
	lost, seen, list := w.lostWrites(old, rev)
	if lost == 0 {
		w.fault(host.id, fmt.Sprintf(lostNothingText, rev, seen))
	} else {
		w.fault(host.id, fmt.Sprintf(lostWritesText, rev, seen, lost, list))
	}
	w.fault(host.id, fmt.Sprintf(lostLeasesText, leases))
}

// lostWrites counts the writes group old acknowledged above revision rev,
// and lists the keys they wrote (the first six); seen is the highest
// revision it acknowledged.
func (w *World) lostWrites(old int, rev int64) (lost int, seen int64, list string) {
	var keys []string
	seen = rev
	note := func(status OpStatus, g int32, r int64, in *lincheck.Operation) {
		if int(g) != old || status != OpOK {
			return
		}
		seen = max(seen, r)
		written := writtenKeys(in)
		if r <= rev || len(written) == 0 {
			return
		}
		lost++
		for _, k := range written {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	w.eachDone(func(d *doneOp) { note(d.status, d.group, d.rev, &d.in) })
	for _, op := range w.ops {
		if op != nil && op.Status != OpPending {
			in, _ := checkedOp(op)
			note(op.Status, op.group, op.Revision(), &in)
		}
	}
	slices.Sort(keys)
	list = strings.Join(keys[:min(len(keys), 6)], ", ")
	if len(keys) > 6 {
		list += ", …"
	}
	return lost, seen, list
}

// writtenKeys returns the keys a checked operation wrote: a put's or a
// delete's key, a transaction's puts' and deletes'.
func writtenKeys(in *lincheck.Operation) []string {
	switch in.Kind {
	case lincheck.Put, lincheck.Delete:
		return []string{in.Key}
	case lincheck.Txn:
		var out []string
		for i := range in.Steps {
			out = append(out, writtenKeys(&in.Steps[i])...)
		}
		return out
	}
	return nil
}

// DataDirs returns the data directories the named member's host holds:
// the one it runs from first (if it has one), then the others in order.
func (w *World) DataDirs(name string) []string {
	m := w.byName[name]
	if m == nil {
		return nil
	}
	var out []string
	if !m.noData {
		out = append(out, m.dataDir)
	}
	var others []string
	for p := range m.dirs {
		others = append(others, p)
	}
	slices.Sort(others)
	return append(out, others...)
}

// destroy loses the member's host for good, its disks included: the
// process is gone, and so is every data directory.
func (w *World) destroy(m *member) {
	if m.up {
		m.crash()
	}
	m.clearDir()
	w.fault(m.id, destroyText)
}

// forceNewCluster rewrites the raft log of m's data directory as etcd's
// --force-new-cluster does, before m starts from it, and moves m to a new
// raft group. It returns the group m left.
func (w *World) forceNewCluster(m *member) int {
	hs, cs, _ := m.disk.InitialState()
	snap, _ := m.disk.Snapshot()
	first, _ := m.disk.FirstIndex()
	last, _ := m.disk.LastIndex()
	commit := hs.GetCommit()
	var kept []*pb.Entry
	if commit >= first {
		kept, _ = m.disk.Entries(first, commit+1, math.MaxUint64)
	}
	ids := effectiveIDs(cs, kept)
	term := hs.GetTerm()
	next := commit + 1
	var removals []*pb.Entry
	var removed []string
	for _, id := range ids {
		if id == m.id {
			continue
		}
		data, err := proto.Marshal(&pb.ConfChange{Type: pb.ConfChangeRemoveNode.Enum(), NodeId: new(id)})
		if err != nil {
			panic("sim: " + err.Error())
		}
		removals = append(removals, &pb.Entry{Type: pb.EntryConfChange.Enum(), Term: new(term), Index: new(next), Data: data})
		removed = append(removed, w.fmtNode(id))
		next++
	}
	disk := raft.NewMemoryStorage()
	if err := disk.ApplySnapshot(snap); err != nil {
		panic("sim: " + m.name + ": " + err.Error())
	}
	for _, ents := range [][]*pb.Entry{kept, removals} {
		if len(ents) > 0 {
			if err := disk.Append(ents); err != nil {
				panic("sim: " + m.name + ": " + err.Error())
			}
		}
	}
	hard := &pb.HardState{Term: new(term), Vote: new(hs.GetVote()), Commit: new(next - 1)}
	if err := disk.SetHardState(hard); err != nil {
		panic("sim: " + m.name + ": " + err.Error())
	}
	// The entries mirror: the uncommitted tail goes, the removals follow.
	m.log.truncate(commit + 1)
	prev, _ := m.entryAt(commit)
	h := prev.Chain
	for _, e := range removals {
		h = chain(h, e.GetTerm(), e.GetType(), e.GetData())
		m.log.append(logEntry{Term: e.GetTerm(), Chain: h, Type: e.GetType()})
	}
	m.disk, m.hard, m.commitSeen = disk, *cloneHard(hard), next-1
	m.unsynced = nil
	old := m.group
	g := w.newGroup(m.clusterID(), nil)
	g.forced = true
	m.group = len(w.groups) - 1
	// The new group knows m's log as its own: a member that joins later
	// and installs m's snapshot chains on from the same hashes.
	g.safety.logMatching(m, m.snap.Index, m.snap.Term, m.snap.Chain)
	for i := m.log.first; i <= m.log.last(); i++ {
		e := m.log.at(i)
		g.safety.logMatching(m, i, e.Term, e.Chain)
	}
	if last > commit {
		w.fault(m.id, fmt.Sprintf(forceDiscardText, last-commit, commit+1, last, commit))
	}
	if len(removed) == 0 {
		w.fault(m.id, fmt.Sprintf(forceAloneText, m.memberID, m.clusterID()))
	} else {
		w.fault(m.id, fmt.Sprintf(forceRemoveText, m.memberID, m.clusterID(), strings.Join(removed, ", "), commit+1, next-1))
	}
	return old
}

// forcedStarted finishes a restart with --force-new-cluster once m has
// applied what its log commits: the new group's linearizability check
// starts from m's store, and the transcript says what the old cluster
// (group old) acknowledged that m's store lacks.
func (w *World) forcedStarted(m *member, old int) {
	g := w.groups[m.group]
	g.setInitial(m.srv.KV)
	rev := m.srv.KV.Revision()
	lost, seen, keys := w.lostWrites(old, rev)
	if lost == 0 {
		w.fault(m.id, fmt.Sprintf(forceLostNothingText, rev, seen))
	} else {
		w.fault(m.id, fmt.Sprintf(forceLostWritesText, rev, seen, lost, keys))
	}
}

// SnapshotOf returns what `etcdctl snapshot save` streams from the named
// member: its backend as etcd's would hold it (the consistent index and
// term of the entry it applied last, its raft configuration and
// membership, and what server.KV.Snapshot adds of its state machine: its
// leases and, through records, its key bucket). It fails when the member
// is down (its state machine is volatile).
//
// Members are named by etcd member ID, as etcd's raft names them; the
// members_removed bucket stays empty (the simulator keeps no list of
// removed members; docs/semantics.md).
func (w *World) SnapshotOf(name string) (*snapshot.State, server.Records, error) {
	m := w.byName[name]
	if m == nil {
		return nil, nil, fmt.Errorf("no member %q", name)
	}
	if !m.up || m.srv.KV == nil {
		return nil, nil, fmt.Errorf("%s is down", name)
	}
	st := &snapshot.State{ConsistentIndex: m.applied, ClusterVersion: m.cluster.Version}
	if e, ok := m.entryAt(m.applied); ok {
		st.Term = e.Term
	} else {
		st.Term = m.snap.Term
	}
	toMemberIDs := func(ids []uint64) []uint64 {
		var out []uint64
		for _, id := range ids {
			out = append(out, w.members[id-1].memberID)
		}
		slices.Sort(out)
		return out
	}
	st.ConfState.Voters = toMemberIDs(m.conf.GetVoters())
	st.ConfState.Learners = toMemberIDs(m.conf.GetLearners())
	members, _ := w.MemberList(name)
	for _, cm := range members {
		st.Members = append(st.Members, snapshot.Member{ID: cm.ID, PeerURLs: cm.PeerURLs, IsLearner: cm.IsLearner,
			Name: cm.Name, ClientURLs: cm.ClientURLs})
	}
	return st, m.srv.KV.Snapshot(st), nil
}
