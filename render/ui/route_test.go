package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// TestOpPath: a write and a linearizable read at a follower go through the
// leader; a serializable read there does not; a write sent to a member
// that is down is refused there and goes no further.
func TestOpPath(t *testing.T) {
	s, err := NewSession(sim.SandboxConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AdvanceTo(sim.Time(3e9)); err != nil {
		t.Fatal(err)
	}
	lead, _ := s.World().Leader()
	var follower, other string
	for _, in := range s.World().Infos() {
		if in.Role == sim.RoleFollower {
			if follower == "" {
				follower = in.Name
			} else if other == "" {
				other = in.Name
			}
		}
	}
	put, _ := s.Do(sim.Command{Kind: sim.CmdPut, Via: follower, Req: server.Put("k", "v")})
	lin, _ := s.Do(sim.Command{Kind: sim.CmdGet, Via: follower, Req: server.Get("k", false)})
	ser, _ := s.Do(sim.Command{Kind: sim.CmdGet, Via: follower, Req: server.Get("k", true)})
	if _, err := s.Do(sim.Command{Kind: sim.CmdCrash, Node: other}); err != nil {
		t.Fatal(err)
	}
	// A client on the dead host sends nothing; the operator's etcdctl
	// reaches the member and is refused there.
	if _, err := s.Do(sim.Command{Kind: sim.CmdPut, Via: other, Req: server.Put("k", "lost")}); err == nil {
		t.Errorf("a put from %s's dead host was sent", other)
	}
	refused, err := s.Do(sim.Command{Kind: sim.CmdPut, Via: other, By: "etcdctl", Req: server.Put("k", "lost")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AdvanceTo(sim.Time(4e9)); err != nil {
		t.Fatal(err)
	}
	hops := func(op *sim.Op) []string {
		var out []string
		for _, h := range s.OpPath(op.ID) {
			out = append(out, h.Member)
		}
		return out
	}
	for _, tc := range []struct {
		op   *sim.Op
		want []string
	}{{put, []string{follower, lead}}, {lin, []string{follower, lead}}, {ser, []string{follower}}, {refused, []string{other}}} {
		if got := hops(tc.op); !slices.Equal(got, tc.want) {
			t.Errorf("%s (serializable=%v) at %s, status %s %q: path %v, want %v", tc.op.Kind, tc.op.Req.Serializable(), tc.op.Member, tc.op.Status, tc.op.Err, got, tc.want)
		}
	}
	if p := s.OpPath(put.ID); !p[0].Forwarded || p[1].Forwarded {
		t.Errorf("the put's path %+v: want the first hop forwarded to the leader", p)
	}
}

// A client with several endpoints that fails over shows each member it
// tried, the ones that refused it marked.
func TestOpPathFailsOver(t *testing.T) {
	cfg := sim.SandboxConfig()
	cfg.Members, cfg.Topology, cfg.Apiservers = []string{"etcd-1", "etcd-2", "etcd-3"}, "external", 1
	s, err := NewSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	must(t, s.Seek(sec(3)))
	// The balancer skips a member that is down; one that goes down while
	// the request is on its way refuses it.
	op, err := s.Do(sim.Command{Kind: sim.CmdPut, Via: "apiserver-1", Req: server.Put("k", "v")})
	if err != nil {
		t.Fatal(err)
	}
	mustDo(t, s, sim.Command{Kind: sim.CmdCrash, Node: "etcd-1"})
	must(t, s.Seek(sec(4)))
	p := s.OpPath(op.ID)
	if len(p) < 2 || p[0].Member != "etcd-1" || !p[0].Failed || p[1].Member != "etcd-2" || p[1].Failed {
		t.Errorf("path %+v: want etcd-1 refused, then etcd-2", p)
	}
}

// TestOpPathDroppedAtCut is the split-brain student's case: the leader cut
// off in the minority, a write through a member of the majority. The
// member forwards the proposal to the leader it knew, and the partition
// drops it: the path must say so, and never show a hop that reached the
// leader (it showed "etcd-2 → leader etcd-5" before).
func TestOpPathDroppedAtCut(t *testing.T) {
	s, err := NewSession(sim.SandboxConfig())
	if err != nil {
		t.Fatal(err)
	}
	must(t, s.Seek(sec(3)))
	lead, _ := s.World().Leader()
	var minority, majority []string
	for _, in := range s.World().Infos() {
		switch {
		case in.Name == lead:
			minority = append(minority, in.Name)
		case len(minority) < 2:
			minority = append(minority, in.Name)
		default:
			majority = append(majority, in.Name)
		}
	}
	mustDo(t, s, sim.Command{Kind: sim.CmdPartition, Groups: [][]string{minority, majority}})
	// Before the majority elects its own leader: its members still know
	// the old one and forward to it.
	op, err := s.Do(sim.Command{Kind: sim.CmdPut, Via: majority[0], Req: server.Put("/x", "from-majority")})
	if err != nil {
		t.Fatal(err)
	}
	must(t, s.Seek(sec(6)))
	p := s.OpPath(op.ID)
	line := opPath(0, *s.World().Ops()[op.ID-1], p)
	dropped := false
	for k, h := range p {
		if h.Member == lead && k > 0 && p[k-1].Forwarded && h.Reached {
			t.Errorf("path %q %+v: a hop reached the cut-off leader %s", line, p, lead)
		}
		dropped = dropped || h.Dropped != ""
	}
	if !dropped || !strings.Contains(line, "dropped") || strings.Contains(line, "leader "+lead) {
		t.Errorf("path %q %+v: want the proposal to %s marked dropped at the partition, no \"leader %s\"", line, p, lead, lead)
	}
	// And every path of the session holds to the messages that carry it.
	checkRequestPaths(t, "split brain", s.World())
}
