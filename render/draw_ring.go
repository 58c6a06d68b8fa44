package render

import (
	"image/color"
	"math"
	"strconv"

	"github.com/hajimehoshi/ebiten/v2/text/v2"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/render/ui"
	"github.com/raftsim/raftsim/sim"
)

// ring draws the hosts, links, cuts, client boxes, members, messages and
// drops. The members' and clients' words are in the frame's texts; what
// it returns draws the words that go with messages and drops.
func (r *Renderer) ring(p *painter, a *ui.App, f *ui.Frame) []func() {
	s := f.L.S
	g := f.Ring
	ms := f.View.Members
	var texts []func()
	// Hosts: a shaded box for each machine, under everything on it. A host
	// whose member is down is drawn dashed: all on it is down.
	for _, h := range f.Hosts {
		p.b.rect(p.dst, h.R, hostFill)
		if h.Down {
			dashedFrame(p, h.R, math.Max(1, 1.5*s), 5*s, ui.Grey)
		} else {
			p.b.frame(p.dst, h.R, math.Max(1, s), ui.PanelEdge)
		}
	}
	// An external client's line to the member it is pinned to.
	for _, c := range f.Clients {
		if len(c.Endpoints) == 0 {
			continue
		}
		if i, ok := f.Names[c.Member]; ok {
			p.b.dashed(p.dst, ui.Point{X: c.R.Center().X, Y: c.R.Y}, g.Pos[i], math.Max(1, s), 4*s, ui.SkyBlue)
		}
	}
	// Links: a thin line between every two members still in the cluster,
	// but those across a partition, whose line stands for them all.
	for i := range ms {
		for j := i + 1; j < len(ms); j++ {
			if ms[i].Role == sim.RoleRemoved || ms[j].Role == sim.RoleRemoved {
				continue
			}
			if f.Partition != nil && f.Partition.Across(ms[i].Name, ms[j].Name) {
				continue
			}
			p.b.line(p.dst, g.Pos[i], g.Pos[j], math.Max(1, s), ui.LightGrey)
		}
	}
	// A partition: one dividing line between its sides.
	if pt := f.Partition; pt != nil {
		if len(pt.Hull) > 0 {
			p.b.poly(p.dst, pt.Hull, alpha(ui.Vermillion, 0.1))
		}
		for _, e := range pt.Edges() {
			p.b.dashed(p.dst, e[0], e[1], 3*s, 10*s, ui.Vermillion)
		}
	}
	// Cuts: a dashed red link with a ✕ on it, or for a one-way cut a dashed
	// red lane with an arrow ending in a bar.
	for _, c := range f.Cuts {
		if c.Both {
			p.b.dashed(p.dst, c.A, c.B, 2*s, 6*s, ui.Vermillion)
			p.b.circle(p.dst, c.P, ui.CutMarkR(s), ui.Vermillion)
			p.b.cross(p.dst, c.P, 4.5*s, 2*s, white)
			continue
		}
		p.b.dashed(p.dst, c.A, c.P, 2*s, 5*s, ui.Vermillion)
		dir := c.B.Sub(c.A)
		p.b.arrowHead(p.dst, c.P, dir, ui.CutMarkR(s), ui.Vermillion)
		l := dir.Len()
		if l > 0 {
			n := ui.Point{X: -dir.Y / l, Y: dir.X / l}
			p.b.line(p.dst, c.P.Add(n.Scale(7*s)), c.P.Sub(n.Scale(7*s)), 3*s, ui.Vermillion)
		}
	}
	// The client boxes, their connections and their endpoints.
	for _, c := range f.Clients {
		if i, ok := f.Names[c.Member]; ok && len(c.Endpoints) == 0 && !g.Hosts {
			p.b.line(p.dst, g.Pos[i], c.R.Center(), math.Max(1, s), ui.PanelEdge)
		}
	}
	for _, c := range f.Clients {
		p.b.rect(p.dst, c.R, ui.Background)
		if c.Down {
			dashedFrame(p, c.R, math.Max(1, s), 4*s, ui.Grey)
		} else {
			p.b.frame(p.dst, c.R, math.Max(1, s), ui.Muted)
		}
		for k, ch := range c.Chips {
			ep := c.Endpoints[k]
			if ep == c.Member {
				p.b.rect(p.dst, ch, ui.Blue)
			} else {
				p.b.frame(p.dst, ch, 1, ui.PanelEdge)
			}
			if i, ok := f.Names[ep]; ok && !f.View.Members[i].Up {
				p.b.line(p.dst, ui.Point{X: ch.X + 2*s, Y: ch.Bottom() - 2*s}, ui.Point{X: ch.Right() - 2*s, Y: ch.Y + 2*s}, math.Max(1, 1.5*s), ui.Vermillion)
			}
		}
		if c.Pending > 0 {
			p.b.circle(p.dst, ui.PendingBadge(c, f.L), f.L.SmallH()*0.45, ui.Orange)
		}
	}
	// Members.
	for i, m := range ms {
		r.member(p, a, f, i, m)
	}
	// Messages, in send order so that the newest is on top. What is drawn
	// so far is under them: a frame that draws it as the last did copies
	// it back (record.go).
	if rec, ok := p.dst.(*recorder); ok {
		p.flush()
		rec.mark(pixelRect(f.L.Ring))
	}
	sel := a.Message
	for _, md := range f.Msgs {
		r.message(p, md, sel != nil && sel.ID == md.M.ID && sel.Duplicate == md.M.Duplicate)
	}
	// Dropped messages end in a ✕.
	for _, d := range f.Drops {
		op := math.Max(0.25, 1-d.Age)
		p.b.cross(p.dst, d.P, 5*s, 2.5*s, alpha(ui.Vermillion, op))
	}
	// A drag between members shows the cut it will make.
	if from, at, shift, ok := a.Dragging(); ok {
		if i, ok := f.Names[from]; ok {
			p.b.dashed(p.dst, g.Pos[i], at, 3*s, 6*s, ui.Vermillion)
			p.b.arrowHead(p.dst, at, at.Sub(g.Pos[i]), 12*s, ui.Vermillion)
			what := f.L.Lang.T("release on a member: cut both ways")
			if shift {
				what = f.L.Lang.T("release on a member: cut one way (→)")
			}
			texts = append(texts, func() { p.text(what, r.Fonts.Small, at.X+10*s, at.Y+6*s, ui.Vermillion, text.AlignStart) })
		}
	}
	texts = append(texts, func() {
		small := r.Fonts.Small
		for _, md := range f.Msgs {
			if md.M.Type == pb.MsgApp && md.M.Entries > 0 {
				p.text(strconv.Itoa(md.M.Entries), small, md.P.X+md.Style.Size*s+2*s, md.P.Y-md.Style.Size*s-f.L.SmallH()*0.6, ui.Blue, text.AlignStart)
			}
		}
		n := 0
		for _, d := range f.Drops {
			if !d.Labelled {
				continue
			}
			if n++; n > 12 {
				break
			}
			p.text(f.L.Lang.T(ui.DropWord(d.Reason)), small, d.P.X+7*s, d.P.Y-2*s, ui.Vermillion, text.AlignStart)
		}
	})
	return texts
}

// member draws one member: its shape in its role's colour, the crown, the
// election timer arc, a candidate's votes, and a ring if it is selected.
func (r *Renderer) member(p *painter, a *ui.App, f *ui.Frame, i int, m sim.MemberView) {
	s := f.L.S
	pos := f.Ring.Pos[i]
	R := f.Ring.NodeR
	st := ui.StyleOfRole(m.Role)
	dst := p.dst
	if a.Selected == m.Name {
		p.b.ring(dst, pos, R*1.2+11*s, 3*s, ui.Ink)
	}
	// The election timer fills as ticks pass without hearing from a leader;
	// a full arc is the randomized timeout raft drew for this term.
	if m.Up && m.Role != sim.RoleLeader && m.Role != sim.RoleRemoved && m.ElectionTimeout > 0 && m.ElectionElapsed >= 0 {
		frac := math.Min(1, float64(m.ElectionElapsed)/float64(m.ElectionTimeout))
		rr := R + 5*s
		if st.Shape == ui.ShapeDiamond {
			rr = R*1.2 + 3*s
		}
		p.b.ring(dst, pos, rr, 3*s, ui.LightGrey)
		if frac > 0 {
			p.b.arc(dst, pos, rr, 3*s, -math.Pi/2, -math.Pi/2+2*math.Pi*frac, ui.Orange)
		}
	}
	drawRole(p, st, pos, R, math.Max(1.5, 2*s))
	if st.Crown {
		c, w := ui.CrownAt(pos, R, s)
		p.b.crown(dst, c, w, ui.Yellow, ui.Ink)
	}
	if len(m.Votes) > 0 {
		r.tally(p, f, pos, R, m)
	}
}

// drawRole draws a member's shape for its role, at radius R.
func drawRole(p *painter, st ui.RoleStyle, pos ui.Point, R, edge float64) {
	dst := p.dst
	switch st.Shape {
	case ui.ShapeCircle:
		p.b.circle(dst, pos, R, st.Fill)
		p.b.ring(dst, pos, R, edge, ui.Ink)
	case ui.ShapeDiamond:
		if st.Hollow {
			// A pre-candidate: a thick outline of its colour on white.
			p.b.poly(dst, diamond(pos, R*1.2), ui.Ink)
			p.b.poly(dst, diamond(pos, R*1.2-edge), st.Fill)
			p.b.poly(dst, diamond(pos, R*1.0), ui.Panel)
			p.b.outline(dst, diamond(pos, R*1.0), edge*0.6, ui.Ink)
		} else {
			p.b.poly(dst, diamond(pos, R*1.2), st.Fill)
			p.b.outline(dst, diamond(pos, R*1.2), edge, ui.Ink)
		}
	case ui.ShapeRing:
		p.b.circle(dst, pos, R, ui.Panel)
		p.b.ring(dst, pos, R-R*0.1, R*0.2, st.Fill)
	case ui.ShapeSquare:
		p.b.poly(dst, square(pos, R*0.9), st.Fill)
		p.b.outline(dst, square(pos, R*0.9), edge, ui.Ink)
	case ui.ShapeDashedRing:
		p.b.circle(dst, pos, R, ui.Panel)
		for k := 0; k < 12; k += 2 {
			a0 := 2 * math.Pi * float64(k) / 12
			p.b.arc(dst, pos, R, math.Max(1, R/12), a0, a0+2*math.Pi/12, ui.Grey)
		}
	}
	if st.Cross {
		p.b.cross(dst, ui.Point{X: pos.X, Y: pos.Y + R*0.55}, R*0.25, math.Max(1.5, R/9), ui.Ink)
	}
	if st.Pause {
		p.b.rect(dst, ui.Rect{X: pos.X - R*0.3, Y: pos.Y + R*0.3, W: R * 0.18, H: R * 0.45}, ui.Ink)
		p.b.rect(dst, ui.Rect{X: pos.X + R*0.12, Y: pos.Y + R*0.3, W: R * 0.18, H: R * 0.45}, ui.Ink)
	}
}

// tally draws a candidate's votes under its name, one mark per voter in
// voter order: a filled dot for a vote granted, a hollow one for a voter
// that has not answered, a cross for a vote refused. A majority of
// filled dots makes a leader.
func (r *Renderer) tally(p *painter, f *ui.Frame, pos ui.Point, R float64, m sim.MemberView) {
	got := map[string]bool{}
	answered := map[string]bool{}
	for _, v := range m.Votes {
		got[v.Name], answered[v.Name] = v.Granted, true
	}
	voters := m.Voters
	if len(voters) == 0 {
		return
	}
	n := float64(len(voters))
	step := math.Min(R*0.36, 1.2*R/n)
	rad := step * 0.38
	x := pos.X - step*(n-1)/2
	y := pos.Y + R*0.5
	ink := ui.TextOn(ui.StyleOfRole(m.Role).Fill)
	if ui.StyleOfRole(m.Role).Hollow {
		ink = ui.Ink
	}
	for k, v := range voters {
		c := ui.Point{X: x + float64(k)*step, Y: y}
		switch {
		case !answered[v]:
			p.b.ring(p.dst, c, rad, math.Max(1, rad*0.35), ink)
		case got[v]:
			p.b.circle(p.dst, c, rad, ink)
		default:
			p.b.cross(p.dst, c, rad*0.9, math.Max(1.2, rad*0.4), ink)
		}
	}
}

// message draws one message glyph, and a chevron before it pointing the
// way it travels.
func (r *Renderer) message(p *painter, md ui.MsgDraw, selected bool) {
	s := p.s
	st := md.Style
	c := md.P
	rad := st.Size * s
	fill := st.Fill
	if md.M.Lost {
		fill = pale(fill, 0.55)
	}
	dst := p.dst
	if selected {
		p.b.ring(dst, c, rad+5*s, 2.5*s, ui.Ink)
	}
	if md.Dir != (ui.Point{}) && !md.M.Queued {
		// Direction: a trail behind the glyph, fading towards the sender,
		// and an arrowhead just ahead of it.
		for k := 3; k >= 1; k-- {
			a := c.Sub(md.Dir.Scale(rad * (0.6 + 0.7*float64(k))))
			b := c.Sub(md.Dir.Scale(rad * (0.6 + 0.7*float64(k-1))))
			p.b.line(dst, a, b, math.Max(2, rad*0.75*(1-0.2*float64(k))), alpha(ui.Ink, 0.15+0.15*float64(3-k)))
		}
		p.b.arrowHead(dst, c.Add(md.Dir.Scale(rad+rad*0.9)), md.Dir, rad*0.9, ui.Ink)
	}
	p.glyph(st, c, rad, fill)
	// A vote reply, and an append reply that was rejected, say so: ✓ or ✗.
	switch md.M.Type {
	case pb.MsgVoteResp, pb.MsgPreVoteResp:
		if md.M.Reject {
			p.b.cross(dst, c, rad*0.45, 1.8*s, ui.Vermillion)
		} else {
			p.b.check(dst, c, rad*0.5, 1.8*s, ui.BluishGreen)
		}
	case pb.MsgAppResp:
		if md.M.Reject {
			p.b.cross(dst, c, rad*0.6, 1.8*s, ui.Vermillion)
		}
	}
}

// drawGlyph draws a message type's glyph at c.
func drawGlyph(p *painter, st ui.MsgStyle, c ui.Point, rad float64, fill color.RGBA) {
	s := p.s
	dst := p.dst
	inner := fill
	if st.Hollow {
		inner = ui.Panel
	}
	switch st.Glyph {
	case ui.GlyphSquare:
		p.b.poly(dst, square(c, rad), ui.Ink)
		p.b.poly(dst, square(c, rad-1.2*s), fill)
		if st.Hollow {
			p.b.poly(dst, square(c, rad-2.5*s), inner)
		}
	case ui.GlyphDot:
		p.b.circle(dst, c, rad, ui.Grey)
		p.b.circle(dst, c, rad-math.Max(1, 0.8*s), fill)
		if st.Hollow {
			p.b.circle(dst, c, rad-2*s, inner)
		}
	case ui.GlyphDiamond:
		p.b.poly(dst, diamond(c, rad), ui.Ink)
		p.b.poly(dst, diamond(c, rad-1.2*s), fill)
		if st.Hollow {
			p.b.poly(dst, diamond(c, rad-3*s), inner)
		}
	case ui.GlyphHalfDiamond:
		// A pre-vote: a diamond, its lower half only outlined (it asks
		// without counting yet).
		p.b.poly(dst, diamond(c, rad), ui.Ink)
		p.b.poly(dst, diamond(c, rad-1.2*s), ui.Panel)
		p.b.poly(dst, []ui.Point{{X: c.X, Y: c.Y - rad + 1.2*s}, {X: c.X + rad - 1.2*s, Y: c.Y}, {X: c.X - rad + 1.2*s, Y: c.Y}}, fill)
		if st.Hollow {
			p.b.poly(dst, diamond(c, rad-3*s), inner)
		}
	case ui.GlyphTriangle:
		p.b.poly(dst, triangle(c, rad, !st.Hollow), ui.Ink)
		p.b.poly(dst, triangle(c, rad-1.5*s, !st.Hollow), fill)
		if st.Hollow {
			p.b.poly(dst, triangle(c, rad-3.5*s, false), inner)
		}
	case ui.GlyphHexagon:
		var hex []ui.Point
		for k := range 6 {
			a := math.Pi / 6 * float64(2*k+1)
			hex = append(hex, ui.Point{X: c.X + rad*math.Cos(a), Y: c.Y + rad*math.Sin(a)})
		}
		p.b.poly(dst, hex, fill)
		if st.Hollow {
			p.b.circle(dst, c, rad*0.45, inner)
		}
	case ui.GlyphStar:
		p.b.circle(dst, c, rad+2*s, ui.Ink)
		p.b.star(dst, c, rad, fill)
	case ui.GlyphBolt:
		// A lightning bolt: two triangles in a zigzag.
		p.b.poly(dst, []ui.Point{{X: c.X + rad*0.5, Y: c.Y - rad}, {X: c.X - rad*0.5, Y: c.Y + rad*0.2}, {X: c.X + rad*0.2, Y: c.Y + rad*0.2}}, fill)
		p.b.poly(dst, []ui.Point{{X: c.X - rad*0.2, Y: c.Y - rad*0.2}, {X: c.X + rad*0.5, Y: c.Y - rad*0.2}, {X: c.X - rad*0.5, Y: c.Y + rad}}, fill)
		if st.Hollow {
			p.b.circle(dst, c, rad*0.25, inner)
		}
	}
}

// hostFill shades a host: a machine, and everything drawn on it.
var hostFill = color.RGBA{0xf0, 0xf0, 0xea, 0xff}

// dashedFrame outlines r with dashes.
func dashedFrame(p *painter, r ui.Rect, w, dash float64, c color.RGBA) {
	a, b, cc, d := ui.Point{X: r.X, Y: r.Y}, ui.Point{X: r.Right(), Y: r.Y}, ui.Point{X: r.Right(), Y: r.Bottom()}, ui.Point{X: r.X, Y: r.Bottom()}
	p.b.dashed(p.dst, a, b, w, dash, c)
	p.b.dashed(p.dst, b, cc, w, dash, c)
	p.b.dashed(p.dst, cc, d, w, dash, c)
	p.b.dashed(p.dst, d, a, w, dash, c)
}
