package ui

import (
	"testing"

	"github.com/raftsim/raftsim/sim"
)

// TestOpRoute: a write and a linearizable read at a follower go through the
// leader; a serializable read there does not.
func TestOpRoute(t *testing.T) {
	s, err := NewSession(sim.SandboxConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AdvanceTo(sim.Time(3e9)); err != nil {
		t.Fatal(err)
	}
	lead, _ := s.World().Leader()
	var follower string
	for _, in := range s.World().Infos() {
		if in.Role == sim.RoleFollower {
			follower = in.Name
			break
		}
	}
	put, _ := s.Do(sim.Command{Kind: sim.CmdPut, Via: follower, Key: "k", Value: "v"})
	lin, _ := s.Do(sim.Command{Kind: sim.CmdGet, Via: follower, Key: "k"})
	ser, _ := s.Do(sim.Command{Kind: sim.CmdGet, Via: follower, Key: "k", Serializable: true})
	if _, err := s.AdvanceTo(sim.Time(4e9)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		op   *sim.Op
		want bool
	}{{put, true}, {lin, true}, {ser, false}} {
		got, fwd := s.OpRoute(tc.op.ID)
		if fwd != tc.want || fwd && got != lead {
			t.Errorf("%s (serializable=%v): route %q %v, want forwarded=%v to %s", tc.op.Kind, tc.op.Serializable, got, fwd, tc.want, lead)
		}
	}
}
