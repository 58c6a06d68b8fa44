package ui

import (
	"testing"

	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/sim"
)

// No two roles look alike even without colour: shape plus marks plus label
// differ, and so do the colours.
func TestRolesAreDistinctWithoutColour(t *testing.T) {
	type look struct {
		shape               Shape
		hollow, crown, x, p bool
	}
	looks := map[look]sim.Role{}
	labels := map[string]sim.Role{}
	fills := map[[3]uint8]sim.Role{}
	for _, r := range append(Roles, sim.RoleRemoved) {
		st := StyleOfRole(r)
		if st.Label != r.String() {
			t.Errorf("%s is labelled %q", r, st.Label)
		}
		lk := look{st.Shape, st.Hollow, st.Crown, st.Cross, st.Pause}
		if o, ok := looks[lk]; ok && r != sim.RolePreCandidate && o != sim.RolePreCandidate {
			t.Errorf("%s and %s have the same shape", r, o)
		}
		looks[lk] = r
		if o, ok := labels[st.Label]; ok {
			t.Errorf("%s and %s have the same label", r, o)
		}
		labels[st.Label] = r
		c := [3]uint8{st.Fill.R, st.Fill.G, st.Fill.B}
		if o, ok := fills[c]; ok {
			t.Errorf("%s and %s have the same colour", r, o)
		}
		fills[c] = r
	}
	if !StyleOfRole(sim.RoleLeader).Crown {
		t.Error("the leader has no crown")
	}
}

func TestMessageStyles(t *testing.T) {
	tests := []struct {
		typ    pb.MessageType
		glyph  Glyph
		hollow bool
	}{
		{pb.MsgApp, GlyphSquare, false},
		{pb.MsgAppResp, GlyphSquare, true},
		{pb.MsgHeartbeat, GlyphDot, false},
		{pb.MsgVote, GlyphDiamond, false},
		{pb.MsgPreVoteResp, GlyphHalfDiamond, true},
		{pb.MsgProp, GlyphStar, false},
		{pb.MsgReadIndex, GlyphTriangle, false},
		{pb.MsgSnap, GlyphHexagon, false},
		{pb.MsgTimeoutNow, GlyphBolt, false},
	}
	for _, tt := range tests {
		st := StyleOfMessage(tt.typ)
		if st.Glyph != tt.glyph || st.Hollow != tt.hollow {
			t.Errorf("%s: glyph %d hollow %v, want %d %v", tt.typ, st.Glyph, st.Hollow, tt.glyph, tt.hollow)
		}
	}
	// The four that must be told apart at a glance differ in glyph or colour.
	seen := map[[2]any]pb.MessageType{}
	for _, typ := range []pb.MessageType{pb.MsgHeartbeat, pb.MsgReadIndex, pb.MsgSnap, pb.MsgTimeoutNow, pb.MsgApp, pb.MsgVote, pb.MsgPreVote, pb.MsgProp} {
		st := StyleOfMessage(typ)
		k := [2]any{st.Glyph, st.Fill}
		if o, ok := seen[k]; ok {
			t.Errorf("%s looks like %s", typ, o)
		}
		seen[k] = typ
	}
}

func TestTermColorsOfNeighbouringTermsDiffer(t *testing.T) {
	for term := uint64(1); term < 30; term++ {
		if TermColor(term) == TermColor(term+1) {
			t.Errorf("terms %d and %d share a colour", term, term+1)
		}
	}
}
