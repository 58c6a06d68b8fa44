package ui

import (
	"image/color"

	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/sim"
)

// The Okabe-Ito palette: eight colours that people with the common forms
// of colour blindness can still tell apart, and a few from Paul Tol's
// colour-blind-safe schemes. Nothing is shown by colour alone: every role
// also has a shape and a label, every message a glyph, every log cell its
// term's number, every status its word. TestColoursStayApart checks every
// pair that must be told apart under simulated colour blindness.
var (
	Black         = color.RGBA{0x00, 0x00, 0x00, 0xff}
	Orange        = color.RGBA{0xe6, 0x9f, 0x00, 0xff}
	SkyBlue       = color.RGBA{0x56, 0xb4, 0xe9, 0xff}
	BluishGreen   = color.RGBA{0x00, 0x9e, 0x73, 0xff}
	Yellow        = color.RGBA{0xf0, 0xe4, 0x42, 0xff}
	Blue          = color.RGBA{0x00, 0x72, 0xb2, 0xff}
	Vermillion    = color.RGBA{0xd5, 0x5e, 0x00, 0xff}
	ReddishPurple = color.RGBA{0xcc, 0x79, 0xa7, 0xff}

	// From Paul Tol's schemes.
	Indigo = color.RGBA{0x33, 0x22, 0x88, 0xff}
	Wine   = color.RGBA{0x88, 0x22, 0x55, 0xff}
	Sand   = color.RGBA{0xdd, 0xcc, 0x77, 0xff}
	Green  = color.RGBA{0x11, 0x77, 0x33, 0xff}
	Purple = color.RGBA{0xaa, 0x44, 0x99, 0xff}
	Cyan   = color.RGBA{0x88, 0xcc, 0xee, 0xff}

	// Neutral tones for the background, panels and text.
	Background = color.RGBA{0xfa, 0xfa, 0xf7, 0xff}
	Panel      = color.RGBA{0xff, 0xff, 0xff, 0xff}
	PanelEdge  = color.RGBA{0xc8, 0xc8, 0xc0, 0xff}
	Ink        = color.RGBA{0x20, 0x20, 0x20, 0xff}
	Muted      = color.RGBA{0x70, 0x70, 0x70, 0xff}
	Grey       = color.RGBA{0x9a, 0x9a, 0x9a, 0xff}
	DarkGrey   = color.RGBA{0x50, 0x50, 0x50, 0xff} // a member that is down
	PaleGrey   = color.RGBA{0xbb, 0xbb, 0xbb, 0xff} // heartbeats
	LightGrey  = color.RGBA{0xe2, 0xe2, 0xdc, 0xff}
	White      = color.RGBA{0xff, 0xff, 0xff, 0xff}
)

// Shape is the outline a member is drawn with.
type Shape uint8

// The member shapes.
const (
	ShapeCircle     Shape = iota // follower
	ShapeDiamond                 // candidate (filled) and pre-candidate (hollow)
	ShapeRing                    // learner: a hollow circle
	ShapeSquare                  // down (with a cross) and stalled (with pause bars)
	ShapeDashedRing              // removed
)

// RoleStyle is how a member in a role is drawn.
type RoleStyle struct {
	Fill   color.RGBA
	Shape  Shape
	Hollow bool   // only the outline is drawn in Fill
	Crown  bool   // the leader wears a crown
	Cross  bool   // down: a cross over the square
	Pause  bool   // stalled: pause bars
	Label  string // the word under the name
	Dark   bool   // Fill is dark: draw text on it in white
}

// StyleOfRole maps a role to its colour, shape and label.
func StyleOfRole(r sim.Role) RoleStyle {
	switch r {
	case sim.RoleFollower:
		return RoleStyle{Fill: Blue, Shape: ShapeCircle, Label: i18n.N("follower"), Dark: true}
	case sim.RolePreCandidate:
		return RoleStyle{Fill: Yellow, Shape: ShapeDiamond, Hollow: true, Label: i18n.N("pre-candidate")}
	case sim.RoleCandidate:
		return RoleStyle{Fill: Vermillion, Shape: ShapeDiamond, Label: i18n.N("candidate"), Dark: true}
	case sim.RoleLeader:
		return RoleStyle{Fill: BluishGreen, Shape: ShapeCircle, Crown: true, Label: i18n.N("leader"), Dark: true}
	case sim.RoleLearner:
		return RoleStyle{Fill: SkyBlue, Shape: ShapeRing, Hollow: true, Label: i18n.N("learner")}
	case sim.RoleDown:
		return RoleStyle{Fill: DarkGrey, Shape: ShapeSquare, Cross: true, Label: i18n.N("down"), Dark: true}
	case sim.RoleStalled:
		return RoleStyle{Fill: ReddishPurple, Shape: ShapeSquare, Pause: true, Label: i18n.N("stalled")}
	case sim.RoleJoining:
		// Drawn as the learner it is about to become, and labelled.
		return RoleStyle{Fill: SkyBlue, Shape: ShapeRing, Hollow: true, Label: i18n.N("joining")}
	}
	return RoleStyle{Fill: LightGrey, Shape: ShapeDashedRing, Hollow: true, Label: i18n.N("removed")}
}

// Roles lists the roles in legend order.
var Roles = []sim.Role{sim.RoleFollower, sim.RolePreCandidate, sim.RoleCandidate, sim.RoleLeader,
	sim.RoleLearner, sim.RoleDown, sim.RoleStalled}

// Glyph is the mark a message is drawn with.
type Glyph uint8

// The message glyphs.
const (
	GlyphSquare      Glyph = iota // MsgApp (with its entry count), MsgSnap (large)
	GlyphDot                      // heartbeats
	GlyphDiamond                  // votes
	GlyphHalfDiamond              // pre-votes: a diamond, half filled
	GlyphTriangle                 // read index
	GlyphStar                     // a forwarded proposal
	GlyphBolt                     // timeout-now, transfer-leader
	GlyphHexagon                  // a snapshot
)

// MsgStyle is how a message type is drawn.
type MsgStyle struct {
	Fill   color.RGBA
	Glyph  Glyph
	Size   float64 // radius at scale 1
	Hollow bool    // responses are hollow
	Label  string  // legend text
}

// StyleOfMessage maps a message type to its colour and glyph. A response
// has the request's glyph, hollow.
func StyleOfMessage(t pb.MessageType) MsgStyle {
	switch t {
	case pb.MsgApp:
		return MsgStyle{Fill: Blue, Glyph: GlyphSquare, Size: 7, Label: i18n.N("append (entries)")}
	case pb.MsgAppResp:
		return MsgStyle{Fill: Blue, Glyph: GlyphSquare, Size: 6, Hollow: true, Label: i18n.N("append reply")}
	case pb.MsgHeartbeat:
		return MsgStyle{Fill: PaleGrey, Glyph: GlyphDot, Size: 4.5, Label: i18n.N("heartbeat")}
	case pb.MsgHeartbeatResp:
		return MsgStyle{Fill: PaleGrey, Glyph: GlyphDot, Size: 4.5, Hollow: true, Label: i18n.N("heartbeat reply")}
	case pb.MsgVote:
		return MsgStyle{Fill: Vermillion, Glyph: GlyphDiamond, Size: 8, Label: i18n.N("vote request")}
	case pb.MsgVoteResp:
		return MsgStyle{Fill: Vermillion, Glyph: GlyphDiamond, Size: 8, Hollow: true, Label: i18n.N("vote reply (✓ granted)")}
	case pb.MsgPreVote:
		return MsgStyle{Fill: Yellow, Glyph: GlyphHalfDiamond, Size: 8, Label: i18n.N("pre-vote request")}
	case pb.MsgPreVoteResp:
		return MsgStyle{Fill: Yellow, Glyph: GlyphHalfDiamond, Size: 8, Hollow: true, Label: i18n.N("pre-vote reply (✓ granted)")}
	case pb.MsgProp:
		return MsgStyle{Fill: ReddishPurple, Glyph: GlyphStar, Size: 10, Label: i18n.N("forwarded proposal")}
	case pb.MsgReadIndex:
		return MsgStyle{Fill: BluishGreen, Glyph: GlyphTriangle, Size: 8, Label: i18n.N("read index")}
	case pb.MsgReadIndexResp:
		return MsgStyle{Fill: BluishGreen, Glyph: GlyphTriangle, Size: 8, Hollow: true, Label: i18n.N("read index reply")}
	case pb.MsgSnap:
		return MsgStyle{Fill: Black, Glyph: GlyphHexagon, Size: 10, Label: i18n.N("snapshot")}
	case pb.MsgTimeoutNow:
		return MsgStyle{Fill: SkyBlue, Glyph: GlyphBolt, Size: 9, Label: i18n.N("timeout-now")}
	case pb.MsgTransferLeader:
		return MsgStyle{Fill: SkyBlue, Glyph: GlyphBolt, Size: 8, Hollow: true, Label: i18n.N("transfer leader")}
	}
	return MsgStyle{Fill: Muted, Glyph: GlyphDot, Size: 3, Label: t.String()}
}

// LegendMessages lists the message types in legend order.
var LegendMessages = []pb.MessageType{pb.MsgApp, pb.MsgAppResp, pb.MsgHeartbeat, pb.MsgPreVote,
	pb.MsgVote, pb.MsgProp, pb.MsgReadIndex, pb.MsgSnap, pb.MsgTimeoutNow}

// termPalette colours log entries by term, term%7: term 1 (the
// bootstrap's entries) wine, term 2 (the first leader's) sky blue, then
// yellow, green, purple, cyan, sand. In this order any two terms at most
// two apart stay far apart under every colour blindness simulated, solid
// and pale (see TestColoursStayApart); the term's number is also written
// in every cell.
var termPalette = []color.RGBA{Sand, Wine, SkyBlue, Yellow, Green, Purple, Cyan}

// TermColor returns the colour of log entries of a term.
func TermColor(term uint64) color.RGBA {
	if term == 0 {
		return LightGrey
	}
	return termPalette[term%uint64(len(termPalette))]
}

// UncommittedPale is how far an entry not yet committed is paled towards
// white (it also has a border of its term's colour).
const UncommittedPale = 0.45

// IsDark reports whether white text reads better than black on c.
func IsDark(c color.RGBA) bool {
	return 299*int(c.R)+587*int(c.G)+114*int(c.B) < 140_000
}

// OpStatusColor is the colour of a client operation's status.
func OpStatusColor(s sim.OpStatus) color.RGBA {
	switch s {
	case sim.OpOK:
		return BluishGreen
	case sim.OpError:
		return Vermillion
	case sim.OpTimeout:
		return Indigo
	}
	return Orange
}

// StaleColor is the colour of a serializable read that returned stale
// data.
var StaleColor = Black
