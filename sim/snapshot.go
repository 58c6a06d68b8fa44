package sim

import (
	"encoding/binary"
	"fmt"
	"maps"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/server"
)

// A member's raft snapshot holds what etcd v3.6's does: the membership
// (etcd's v2 store), here the member's cluster state. The key-value store
// is not in it: etcd keeps it in the backend, and a leader streams its
// backend beside the raft snapshot (etcdserver/api/snap's Message, the
// MsgSnap and the db's ReadCloser). Here the snapshot data ends with a
// reference to the store as it stood at the snapshot's index: the world
// keeps it frozen (server.FrozenKV: a copy-on-write fork that shares the
// live store's records and key index), by number, in World.snapKVs. A
// snapshot of a store of hundreds of megabytes then costs a fork, where
// encoding the store cost a copy of every record at every snapshot, and
// once per member (issue 30).
//
// raft copies snapshots (MemoryStorage clones what it is given and what
// it hands out), so the reference is a number in the data, and the world
// forgets a frozen store only once nothing can refer to it
// (pruneSnapshots).

// snapshotter is a member's raft snapshots: taking one of its applied
// state (and compacting its log to it), installing one a leader sent, and
// holding on to the frozen stores its raft may still hand out.
type snapshotter struct {
	m *member
	// snapHeld: the frozen stores its raft may refer to beside its disk's,
	// until raft next has nothing to hand out.
	snapHeld    []uint64
	confSnapDue bool // a configuration change's snapshot waits for its commit to be durable
}

// snapshotData is what a member's snapshot of its state now holds.
func (sn *snapshotter) snapshotData() []byte {
	m := sn.m
	m.holdDiskSnapshot() // it may replace the disk's
	return m.w.snapshotData(m.cluster.Encode(), m.srv.KV.Freeze())
}

// snapshotData is snapshot data of a cluster state and a frozen store:
// the cluster state after its length, then the store's number.
func (w *World) snapshotData(cluster []byte, kv *server.FrozenKV) []byte {
	if w.snapKVs == nil {
		w.snapKVs = map[uint64]*server.FrozenKV{}
	}
	w.snapSeq++
	w.snapKVs[w.snapSeq] = kv
	if len(w.snapKVs) > 2*w.snapKept+64 {
		w.snapPruneDue = true
	}
	b := binary.AppendUvarint(nil, uint64(len(cluster)))
	b = append(b, cluster...)
	return binary.AppendUvarint(b, w.snapSeq)
}

// splitSnapshotData returns the cluster state's encoding and the frozen
// store's number of snapshot data.
func splitSnapshotData(b []byte) (cluster []byte, ref uint64, err error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, 0, server.ErrCorrupt
	}
	cluster, b = b[k:k+int(n)], b[k+int(n):]
	ref, k = binary.Uvarint(b)
	if k <= 0 || k != len(b) {
		return nil, 0, server.ErrCorrupt
	}
	return cluster, ref, nil
}

// snapshotKV returns a state machine of its own that begins as the store
// snapshot data refers to.
func (w *World) snapshotKV(ref uint64) (*server.KV, error) {
	f := w.snapKVs[ref]
	if f == nil {
		return nil, fmt.Errorf("sim: a raft snapshot refers to store %d, which the world no longer keeps", ref)
	}
	return f.Thaw(w.cfg.minLeaseTTL())
}

// holdDiskSnapshot keeps the store the member's disk snapshot refers to
// while its raft may hold messages made of it: until raft next has
// nothing to hand out (flush), a MsgSnap raft made from the disk may still
// be inside it after the disk's snapshot is replaced.
func (sn *snapshotter) holdDiskSnapshot() {
	m := sn.m
	if m.disk == nil {
		return
	}
	s, _ := m.disk.Snapshot()
	m.hold(s)
}

// hold keeps the store a snapshot refers to until the member's raft next
// has nothing to hand out: one it received (raft keeps it until it is
// installed), or its disk's.
func (sn *snapshotter) hold(s *pb.Snapshot) {
	if _, ref, err := splitSnapshotData(s.GetData()); err == nil {
		sn.snapHeld = append(sn.snapHeld, ref)
	}
}

// pruneSnapshots forgets the frozen stores nothing can refer to any more.
// Snapshot data lives on the members' disks (the one each runs from and
// its host's others), in a write in progress, in messages on their way or
// queued at a stalled member, and inside raft, which holds what it was
// sent and what it made of its disk only until it next has nothing to hand
// out (snapshotter.snapHeld). It runs between events (runEvents), when no
// Ready is in hand. The set it builds is only read, so the order it
// visits the directories in does not matter.
func (w *World) pruneSnapshots() {
	w.snapPruneDue = false
	live := map[uint64]bool{}
	mark := func(s *pb.Snapshot) {
		if _, ref, err := splitSnapshotData(s.GetData()); err == nil {
			live[ref] = true
		}
	}
	markDisk := func(d *raft.MemoryStorage) {
		if d != nil {
			s, _ := d.Snapshot()
			mark(s)
		}
	}
	markMsg := func(msg *pb.Message) {
		if msg.GetType() == pb.MsgSnap {
			mark(msg.GetSnapshot())
		}
	}
	for _, m := range w.members {
		markDisk(m.disk)
		for _, d := range m.dirs {
			markDisk(d.disk)
		}
		mark(m.pending.Snapshot)
		for _, msg := range m.pending.Messages {
			markMsg(msg)
		}
		for i := range m.queue {
			markMsg(m.queue[i].msg)
		}
		for _, ref := range m.snapHeld {
			live[ref] = true
		}
	}
	for i := range w.sched.slots {
		markMsg(w.sched.slots[i].msg) // freed slots too: keeping more is safe
	}
	maps.DeleteFunc(w.snapKVs, func(ref uint64, _ *server.FrozenKV) bool { return !live[ref] })
	w.snapKept = len(w.snapKVs)
}

// snapshotDurable reports whether a snapshot at index i may be taken now:
// not while a write is in progress (raft still has to hand out what its
// Ready holds), and not above the commit index on the disk. Entries are
// applied while their commit index is still being written
// (applyBeforeWriting); a snapshot of them that a crash then left above
// the durable commit made raft panic at the restart (DESIGN.md: never
// snapshot beyond the durable commit; found by raftsim swarm, seeds 1874,
// 6543 and 8037).
func (sn *snapshotter) snapshotDurable(i uint64) bool {
	m := sn.m
	return !m.diskBusy && i <= m.hard.GetCommit()
}

// takeDueSnapshot takes the snapshot that a configuration change applied
// during a write put off, once the write is done.
func (sn *snapshotter) takeDueSnapshot() {
	m := sn.m
	if !sn.confSnapDue || !m.snapshotDurable(m.applied) {
		return
	}
	sn.confSnapDue = false
	if _, err := m.disk.CreateSnapshot(m.applied, m.conf, m.snapshotData()); err == nil {
		m.snap, _ = m.entryAt(m.applied)
	}
}

// snapshot writes a snapshot of the applied state and compacts the log up to it.
func (sn *snapshotter) snapshot(why string) {
	m := sn.m
	if m.appliedAhead() || !m.snapshotDurable(m.applied) {
		return
	}
	if m.applied <= m.snap.Index && (m.snap.Index < m.log.first || m.applied < m.snap.Index) {
		return // nothing new to snapshot, and the log is compacted up to the last one
	}
	// NB: a configuration change's snapshot may already stand at the
	// applied index, uncompacted; then it is that one that is compacted.
	if m.applied > m.snap.Index {
		if _, err := m.disk.CreateSnapshot(m.applied, m.conf, m.snapshotData()); err != nil {
			panic("sim: snapshot: " + err.Error())
		}
	}
	s, _ := m.disk.Snapshot()
	if err := m.disk.Compact(m.applied); err != nil {
		panic("sim: compact: " + err.Error())
	}
	id, _ := m.entryAt(m.applied)
	m.log.compact(m.applied + 1)
	m.snap = id
	m.safety().forgetBelow()
	m.w.record(Event{Kind: EvSnapshot, Node: m.id, Index: s.GetMetadata().GetIndex(), Term: s.GetMetadata().GetTerm(), Text: why})
}

// installSnapshot takes a snapshot a leader sent: the disk, the mirror and
// the KV jump to it.
func (sn *snapshotter) installSnapshot(s *pb.Snapshot) {
	m := sn.m
	if err := m.disk.ApplySnapshot(s); err != nil {
		panic("sim: apply snapshot: " + err.Error())
	}
	md := s.GetMetadata()
	m.holdDiskSnapshot()     // replaced: raft may still hold a MsgSnap made of it
	m.srv.Backend.File = nil // etcd replaces its database file with the leader's
	if err := m.restoreData(s.GetData()); err != nil {
		panic("sim: " + m.name + ": " + err.Error())
	}
	m.applied = md.GetIndex()
	m.conf = md.GetConfState()
	// A snapshot carries the leader's whole MVCC store, history included:
	// restoreData gave the watches the new store (WatchableStore.Restore).
	m.snap = m.safety().snapshotID(md.GetIndex(), md.GetTerm())
	m.log.reset(md.GetIndex() + 1)
	m.w.record(Event{Kind: EvSnapshot, Node: m.id, Index: md.GetIndex(), Term: md.GetTerm(), Text: "installed"})
}
