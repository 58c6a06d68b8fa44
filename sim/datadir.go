package sim

import (
	"fmt"
	"slices"
	"strings"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/dbsize"
)

// A member runs from a data directory on its host: its raft log and hard
// state (etcd's WAL and snap files) and its backend. A host may hold
// other data directories beside the one its member runs from (one that
// etcdutl snapshot restore wrote, or the one it ran from before), and a
// host lost for good has none. What a data directory holds also says
// which member of which cluster it is: etcd reads its member and cluster
// IDs from it.

// DefaultDataDir is the data directory a member runs from unless told
// otherwise: kubeadm's.
const DefaultDataDir = "/var/lib/etcd"

// dataDir is a data directory a member does not run from now.
type dataDir struct {
	disk                   *raft.MemoryStorage
	db                     *dbsize.Model
	log                    entryLog
	snap                   entryID
	hard                   *pb.HardState
	commitSeen             uint64
	leaderTerm, leaderHigh uint64
	memberID               uint64
	group                  int
	removed                bool
}

// dataDirs are the data directories on a member's host: the one it runs
// from, and the others.
type dataDirs struct {
	m *member
	// dataDir is the data directory it runs from; noData: its host holds
	// nothing there (the host was lost with its disk). dirs are the host's
	// other data directories, by path.
	dataDir string
	noData  bool
	dirs    map[string]*dataDir
}

// takeDir packs what the member's current data directory holds.
func (h *dataDirs) takeDir() *dataDir {
	m := h.m
	return &dataDir{disk: m.disk, db: m.srv.Backend.File, log: m.log, snap: m.snap, hard: cloneHard(&m.hard), commitSeen: m.commitSeen,
		leaderTerm: m.leaderTerm, leaderHigh: m.leaderHigh, memberID: m.memberID, group: m.group,
		removed: m.removed}
}

// putDir makes d the data directory the member runs from.
func (h *dataDirs) putDir(d *dataDir) {
	m := h.m
	m.disk, m.srv.Backend.File, m.log, m.snap, m.commitSeen = d.disk, d.db, d.log, d.snap, d.commitSeen
	m.hard = pb.HardState{Term: new(d.hard.GetTerm()), Vote: new(d.hard.GetVote()), Commit: new(d.hard.GetCommit())}
	m.leaderTerm, m.leaderHigh, m.memberID = d.leaderTerm, d.leaderHigh, d.memberID
	m.group, m.removed = d.group, d.removed
	h.noData = false
}

// cloneHard returns a copy of a hard state.
func cloneHard(h *pb.HardState) *pb.HardState {
	return &pb.HardState{Term: new(h.GetTerm()), Vote: new(h.GetVote()), Commit: new(h.GetCommit())}
}

// clearDir leaves the member with no data directory: its host lost its
// disk.
func (h *dataDirs) clearDir() {
	m := h.m
	m.disk, m.srv.Backend.File = raft.NewMemoryStorage(), nil
	m.log.reset(1)
	m.snap, m.hard, m.commitSeen = entryID{}, pb.HardState{}, 0
	m.leaderTerm, m.leaderHigh, m.checkLeader = 0, 0, false
	m.unsynced = nil
	h.noData, h.dirs = true, nil
}

// hasDir reports whether the member's host holds a data directory at path.
func (h *dataDirs) hasDir(path string) bool {
	if path == h.dataDir {
		return !h.noData
	}
	_, ok := h.dirs[path]
	return ok
}

// useDir makes the member run from the data directory at path (it is
// down); the one it ran from stays on the host.
func (h *dataDirs) useDir(path string) error {
	m := h.m
	if path == "" || path == h.dataDir {
		if h.noData {
			return m.noDataError()
		}
		return nil
	}
	d := h.dirs[path]
	if d == nil {
		return fmt.Errorf("%s: no data directory %s on its host", m.name, path)
	}
	if !h.noData {
		if h.dirs == nil {
			h.dirs = map[string]*dataDir{}
		}
		h.dirs[h.dataDir] = m.takeDir()
	}
	delete(h.dirs, path)
	m.putDir(d)
	h.dataDir = path
	return nil
}

// noDataError says that a member has no data directory to start from,
// and what the operator can do.
func (h *dataDirs) noDataError() error {
	m := h.m
	var others []string
	for p := range h.dirs {
		others = append(others, p)
	}
	slices.Sort(others)
	if len(others) > 0 {
		return fmt.Errorf("%s has no data directory %s (its host holds %s: restart it with --data-dir)", m.name, h.dataDir, strings.Join(others, ", "))
	}
	return fmt.Errorf("%s has no data directory %s: its disk is gone (restore a snapshot onto its host, or add it anew)", m.name, h.dataDir)
}
