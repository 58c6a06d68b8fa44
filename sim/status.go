package sim

import (
	"reflect"
	"unsafe"

	"go.etcd.io/raft/v3"
)

// raftStatus is what the world reads of a member's raft state machine to
// say who leads and what each member is doing: raft's in-memory role, term,
// vote and commit, and its election timer.
//
// NB: these facts change only inside a call into the RawNode, and every
// such call is bracketed by enter/leave. So a member caches its status and
// enter drops the cache: reading the status any number of times between two
// calls into raft costs one BasicStatus (four allocations) and one
// reflective read. The scenario runner asks at every instant, for @leader,
// @follower and most conditions.
type raftStatus struct {
	state            raft.StateType
	lead, term, vote uint64
	commit, applied  uint64
	leadTransferee   uint64
	electionElapsed  int
}

// status returns m's raft status; m.rn must not be nil.
func (m *member) status() *raftStatus {
	if !m.statusValid {
		st := m.rn.BasicStatus()
		m.st = raftStatus{
			state: st.RaftState, lead: st.Lead, term: st.GetTerm(), vote: st.GetVote(),
			commit: st.GetCommit(), applied: st.Applied, leadTransferee: st.LeadTransferee,
			electionElapsed: electionElapsed(m.rn),
		}
		m.statusValid = true
	}
	return &m.st
}

// raftFieldIndex locates raft's unexported fields once, by name, so that
// reading them is a walk by index rather than a search by name. A nil
// index means the field is gone (a raft upgrade; TestRaftVersionPinned and
// the reflection tests in timer_test.go fail loudly then).
var raftFieldIndex = func() (idx struct{ raft, electionElapsed, randomizedElectionTimeout []int }) {
	rn, ok := reflect.TypeFor[raft.RawNode]().FieldByName("raft")
	if !ok || rn.Type.Kind() != reflect.Pointer {
		return idx
	}
	idx.raft = rn.Index
	r := rn.Type.Elem()
	if f, ok := r.FieldByName("electionElapsed"); ok && f.Type.Kind() == reflect.Int {
		idx.electionElapsed = f.Index
	}
	if f, ok := r.FieldByName("randomizedElectionTimeout"); ok && f.Type.Kind() == reflect.Int {
		idx.randomizedElectionTimeout = f.Index
	}
	return idx
}()

// raftInternals returns the unexported *raft inside rn, or an invalid Value.
func raftInternals(rn *raft.RawNode) reflect.Value {
	if raftFieldIndex.raft == nil {
		return reflect.Value{}
	}
	r := reflect.ValueOf(rn).Elem().FieldByIndex(raftFieldIndex.raft)
	if r.IsNil() {
		return reflect.Value{}
	}
	return r.Elem()
}

// electionElapsed reads raft's unexported electionElapsed (ticks since the
// election timer was reset), or -1. It is pinned to raft v3.7.0 by
// TestElectionTimerReflection, which fails loudly if an upgrade moves it.
func electionElapsed(rn *raft.RawNode) int {
	r := raftInternals(rn)
	if !r.IsValid() || raftFieldIndex.electionElapsed == nil {
		return -1
	}
	return int(r.FieldByIndex(raftFieldIndex.electionElapsed).Int())
}

// raftTimer reads raft's election timer: electionElapsed and
// randomizedElectionTimeout, or -1s. Pinned as electionElapsed is.
func raftTimer(rn *raft.RawNode) (elapsed, timeout int) {
	r := raftInternals(rn)
	if !r.IsValid() || !raftTimerWritable() {
		return -1, -1
	}
	return int(r.FieldByIndex(raftFieldIndex.electionElapsed).Int()),
		int(r.FieldByIndex(raftFieldIndex.randomizedElectionTimeout).Int())
}

// raftTimerWritable reports whether this raft has the fields setRaftTimer
// writes.
func raftTimerWritable() bool {
	return raftFieldIndex.raft != nil && raftFieldIndex.electionElapsed != nil && raftFieldIndex.randomizedElectionTimeout != nil
}

// setRaftTimer writes raft's election timer, as raftTimer reads it. Only
// TimerRuleLogCabin uses it, to put back a timer that raft reset (both
// fields are plain ints that only raft's own goroutine, ours, touches; raft
// reads them on its next tick). Pinned to raft v3.7.0 by
// TestRaftVersionPinned and TestSetRaftTimer.
func setRaftTimer(rn *raft.RawNode, elapsed, timeout int) {
	r := raftInternals(rn)
	if !r.IsValid() || !raftTimerWritable() {
		panic("sim: raft's election timer is not where v3.7.0 keeps it")
	}
	for _, f := range []struct {
		idx []int
		v   int
	}{{raftFieldIndex.electionElapsed, elapsed}, {raftFieldIndex.randomizedElectionTimeout, timeout}} {
		field := r.FieldByIndex(f.idx)
		// An unexported field is read-only through reflect; its address is not.
		reflect.NewAt(field.Type(), unsafe.Pointer(field.UnsafeAddr())).Elem().SetInt(int64(f.v))
	}
}
