package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/raftsim/raftsim/server"
)

// forcedWorld runs --force-new-cluster on the disk of a survivor: a=1 and
// b=2 are committed on all three members; then the leader is cut off and
// appends x=tail, which it cannot commit, while the other two elect a new
// leader and commit c=3; the two are lost for good, the old leader is
// crashed and restarted with --force-new-cluster. It returns the world and
// the survivor's name.
func forcedWorld(t *testing.T, seed uint64) (*World, string) {
	t.Helper()
	cfg := SandboxConfig()
	cfg.Seed, cfg.Members, cfg.Clients = seed, cfg.Members[:3], nil
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	step := func(c Command) *Op {
		t.Helper()
		op, err := w.Do(c)
		if err != nil {
			t.Fatalf("%s: %v", c.Kind, err)
		}
		return op
	}
	runFor := func(d time.Duration) {
		t.Helper()
		if err := w.RunUntil(w.Now().Add(d)); err != nil {
			t.Fatal(err)
		}
	}
	runFor(2 * time.Second)
	lead, _, ok := w.FollowedLeader()
	if !ok {
		t.Fatal("no leader")
	}
	var others []string
	for _, n := range w.MemberNames() {
		if n != lead {
			others = append(others, n)
		}
	}
	step(Command{Kind: CmdPut, Via: lead, Req: server.Put("a", "1")})
	step(Command{Kind: CmdPut, Via: lead, Req: server.Put("b", "2")})
	runFor(time.Second)
	step(Command{Kind: CmdIsolate, Node: lead})
	step(Command{Kind: CmdPut, Via: lead, Req: server.Put("x", "tail")})
	runFor(3 * time.Second) // the two elect a leader of their own
	c := step(Command{Kind: CmdPut, Via: others[0], Req: server.Put("c", "3")})
	runFor(time.Second)
	if c.Status != OpOK {
		t.Fatalf("put c at the majority: %s", c.Status)
	}
	for _, n := range others {
		step(Command{Kind: CmdLose, Node: n})
	}
	step(Command{Kind: CmdHeal})
	step(Command{Kind: CmdCrash, Node: lead})
	step(Command{Kind: CmdRestart, Node: lead, ForceNewCluster: true})
	runFor(3 * time.Second)
	return w, lead
}

// TestForceNewClusterIsEtcds: the survivor keeps its member ID, its
// cluster ID, its committed data and revision (a, b, revision 3); the
// entry it never committed (x) is dropped, and the write the lost
// majority acknowledged (c) is gone, which the transcript says; it commits
// one removal per other member at the indexes after its commit index, and
// is a cluster of one that elects itself and takes writes; a member added
// back with member add joins it and is caught up. The linearizability
// check, which checks the forced cluster apart from the old one, passes.
// (Seen to fail with the forced member left in its old raft group: State
// Machine Safety breaks at the first removal's index, which the old
// leader of the majority filled with another entry.)
func TestForceNewClusterIsEtcds(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			w, lead := forcedWorld(t, seed)
			m := w.byName[lead]
			memberID, clusterID := m.memberID, w.groups[0].clusterID
			if m.memberID != memberID || m.clusterID() != clusterID {
				t.Errorf("member %x of cluster %x, want %x of %x", m.memberID, m.clusterID(), memberID, clusterID)
			}
			if got, _, ok := w.FollowedLeader(); !ok || got != lead {
				t.Fatalf("leader %q, want the survivor %s alone", got, lead)
			}
			list, _ := w.MemberList(lead)
			if len(list) != 1 || list[0].ID != memberID || list[0].Name != lead {
				t.Errorf("member list %+v, want %s (%x) alone", list, lead, memberID)
			}
			if voters, _, _ := w.Membership(); len(voters) != 1 || voters[0] != lead {
				t.Errorf("voters %v, want [%s]", voters, lead)
			}
			for k, want := range map[string]string{"a": "1", "b": "2", "c": "", "x": ""} {
				if got, _ := w.KVGet(lead, k); got != want {
					t.Errorf("%s=%q, want %q", k, got, want)
				}
			}
			if rev := m.srv.KV.Revision(); rev != 3 {
				t.Errorf("revision %d, want the survivor's 3", rev)
			}
			var told []string
			for _, e := range w.History() {
				if e.Kind == EvFault && (strings.Contains(e.Text, "force-new-cluster") || strings.Contains(e.Text, "forced cluster")) {
					told = append(told, e.Text)
				}
			}
			if len(told) != 3 || !strings.Contains(told[0], "discards") || !strings.Contains(told[1], "commits the removal of") ||
				!strings.Contains(told[2], "acknowledged writes it never committed here, gone: 1 (c)") {
				t.Errorf("the transcript says %q, want the discarded tail, the removals and the lost write c", told)
			}
			put, err := w.Do(Command{Kind: CmdPut, Via: lead, Req: server.Put("d", "4")})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.RunUntil(w.Now().Add(time.Second)); err != nil {
				t.Fatal(err)
			}
			if put.Status != OpOK || put.Revision() != 4 {
				t.Fatalf("put d: %s at revision %d, want OK at 4", put.Status, put.Revision())
			}
			back := "etcd-1"
			if lead == back {
				back = "etcd-2"
			}
			add, err := w.Do(Command{Kind: CmdAddMember, Via: lead, Node: back, Start: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.RunUntil(w.Now().Add(3 * time.Second)); err != nil {
				t.Fatal(err)
			}
			if add.Status != OpOK {
				t.Fatalf("member add %s: %s %s", back, add.Status, add.Err)
			}
			if got, _ := w.KVGet(back, "d"); got != "4" {
				t.Errorf("the member added back has d=%q, want 4", got)
			}
			if list, _ := w.MemberList(lead); len(list) != 2 {
				t.Errorf("member list after member add: %+v", list)
			}
			if l := w.CheckLinearizability(); !l.OK {
				t.Errorf("linearizability: %s %s", l.Result, l.Detail)
			}
			if v := w.Violation(); v != nil {
				t.Errorf("violation: %v", v)
			}
		})
	}
}

// TestForceNewClusterForksAndReplays: a world after a forced restart forks
// (the survivor runs its rewritten log, a cluster of one) and its command
// log replays to the same history.
func TestForceNewClusterForksAndReplays(t *testing.T) {
	w, lead := forcedWorld(t, 3)
	f, err := w.Fork(w.Config())
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Advance(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	if name, _, ok := f.FollowedLeader(); !ok || name != lead {
		t.Fatalf("the fork's leader is %q, want %s alone", name, lead)
	}
	if voters, _, _ := f.Membership(); len(voters) != 1 {
		t.Errorf("the fork's voters: %v", voters)
	}
	if err := w.Advance(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	checkReplaysEventForEvent(t, w)
}

// TestForceNewClusterRefuses: a member that is up, a member added but
// never started, and a member removed from the cluster are refused, and
// nothing changes. (Seen to fail without checkForce: the removed member
// was restarted into a new group, and the unstarted one as "a cluster of
// one already" with no configuration at all.)
func TestForceNewClusterRefuses(t *testing.T) {
	cfg := SandboxConfig()
	cfg.Members, cfg.Clients = cfg.Members[:3], nil
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.RunUntil(w.Now().Add(6 * time.Second)); err != nil { // etcd's strict reconfiguration check: 5s connected
		t.Fatal(err)
	}
	if _, err := w.Do(Command{Kind: CmdRestart, Node: "etcd-1", ForceNewCluster: true}); err == nil || !strings.Contains(err.Error(), "not down") {
		t.Errorf("a member up: %v", err)
	}
	add, err := w.Do(Command{Kind: CmdAddMember, Node: "etcd-4", Via: "etcd-2"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.RunUntil(w.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if add.Status != OpOK {
		t.Fatalf("member add: %s %s", add.Status, add.Err)
	}
	before := w.CommandCount()
	if _, err := w.Do(Command{Kind: CmdRestart, Node: "etcd-4", ForceNewCluster: true}); err == nil || !strings.Contains(err.Error(), "never started") {
		t.Errorf("a member added, never started: %v", err)
	}
	if w.CommandCount() != before {
		t.Errorf("a refused restart was logged")
	}
	rm, err := w.Do(Command{Kind: CmdRemoveMember, Node: "etcd-1", Via: "etcd-2"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.RunUntil(w.Now().Add(2 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if rm.Status != OpOK {
		t.Fatalf("member remove: %s %s", rm.Status, rm.Err)
	}
	before, groups := w.CommandCount(), len(w.groups)
	// Named, its own data directory passes the restart's own check of a
	// removed member: --force-new-cluster's must refuse it.
	if _, err := w.Do(Command{Kind: CmdRestart, Node: "etcd-1", DataDir: DefaultDataDir, ForceNewCluster: true}); err == nil || !strings.Contains(err.Error(), "its log has no member of its own") {
		t.Errorf("a member removed: %v", err)
	}
	if w.CommandCount() != before || len(w.groups) != groups {
		t.Errorf("a refused restart changed the world: %d commands (was %d), %d groups (was %d)", w.CommandCount(), before, len(w.groups), groups)
	}
}
