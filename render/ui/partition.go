package ui

import (
	"math"
	"slices"

	"github.com/raftsim/raftsim/sim"
)

// PartitionDraw is a partition drawn as two sides, instead of every cut
// link with its mark: the smaller side in a shaded hull around its
// members, their labels and client boxes (or, when no hull keeps clear
// of the other side, one dividing line between the sides). The links
// across are cut both ways and are not drawn; a message sent across is
// dropped where its lane meets the hull's edge or the line. Cuts within a
// side, and one-way cuts, are drawn one by one.
type PartitionDraw struct {
	Sides [2][]string // the members of each side, in View order
	// Hull, when set, is the shaded region of Sides[0] (a convex polygon,
	// clockwise on screen).
	Hull []Point
	// Otherwise A and B are the dividing line's ends, on the ring panel's
	// edge; it is the points p with N·p = C (N a unit vector).
	A, B Point
	N    Point
	C    float64
}

// Across reports whether a link between two members crosses from one side
// to the other.
func (p *PartitionDraw) Across(a, b string) bool {
	return slices.Contains(p.Sides[0], a) && slices.Contains(p.Sides[1], b) ||
		slices.Contains(p.Sides[1], a) && slices.Contains(p.Sides[0], b)
}

// Crossing returns where along the segment a→b (0 to 1) it meets the
// hull's edge or the line.
func (p *PartitionDraw) Crossing(a, b Point) float64 {
	if len(p.Hull) > 0 {
		best := 0.5
		for k := range p.Hull {
			if t, ok := segmentsMeet(a, b, p.Hull[k], p.Hull[(k+1)%len(p.Hull)]); ok {
				best = t
			}
		}
		return best
	}
	da, db := p.N.X*a.X+p.N.Y*a.Y-p.C, p.N.X*b.X+p.N.Y*b.Y-p.C
	if da == db {
		return 0.5
	}
	return math.Max(0, math.Min(1, da/(da-db)))
}

// Edges returns the segments drawn: the hull's edges, or the line.
func (p *PartitionDraw) Edges() [][2]Point {
	if len(p.Hull) == 0 {
		return [][2]Point{{p.A, p.B}}
	}
	var out [][2]Point
	for k := range p.Hull {
		out = append(out, [2]Point{p.Hull[k], p.Hull[(k+1)%len(p.Hull)]})
	}
	return out
}

// PartitionGap is how far a partition's edge keeps from every member's
// shape, labels, client box and host, at the least, at scale s (its
// dashes are 3s wide).
func PartitionGap(s float64) float64 { return 6 * s }

// sideStuff is what one side of a partition holds on screen: rectangles
// (labels, client boxes, hosts), and each member's shape with its timer
// and crown, a disc.
type sideStuff struct {
	rects []Rect
	discs []Point
	r     float64 // the discs' radius
}

// placePartition finds the sides of a partition: the members, grouped by
// the links that are cut both ways. When there are exactly two groups,
// the smaller is drawn in a hull that keeps PartitionGap from everything
// of the other side, or else a straight line between the sides that keeps
// it from both; with neither, the cut links are drawn one by one.
func (f *Frame) placePartition() {
	ms := f.View.Members
	group, groups := sidesOf(f.View)
	if groups != 2 {
		return
	}
	// Side 0 is the smaller (of two equal, the one without the first
	// member): the one cut off.
	n0 := 0
	for _, g := range group {
		if g == 0 {
			n0++
		}
	}
	if n0*2 > len(ms) || n0*2 == len(ms) {
		for i := range group {
			group[i] = 1 - group[i]
		}
	}
	p := &PartitionDraw{}
	var sides [2]sideStuff
	g := f.Ring
	for i, m := range ms {
		s := group[i]
		p.Sides[s] = append(p.Sides[s], m.Name)
		if g.Hosts {
			sides[s].rects = append(sides[s].rects, g.Footprint(i))
			continue
		}
		sides[s].discs = append(sides[s].discs, g.Pos[i])
		sides[s].r = g.Core / 2 // (a crown reaches a little above)
		sides[s].rects = append(sides[s].rects, f.labelPlate(i))
	}
	for _, c := range f.Clients {
		if i, ok := f.Names[c.Member]; ok && len(c.Endpoints) == 0 && !g.Hosts {
			sides[group[i]].rects = append(sides[group[i]].rects, c.R)
		}
	}
	gap := PartitionGap(f.L.S)
	if hull := clipPoly(hullOf(sides[0], gap), f.L.Ring); len(hull) >= 3 && clearOf(hull, sides[1], gap) {
		p.Hull = hull
		f.Partition = p
		return
	}
	best, bestGap, bestC := separate(sides)
	if bestGap < 2*gap {
		return // no clean picture: the cut links are drawn one by one
	}
	p.N, p.C = Point{math.Cos(best), math.Sin(best)}, bestC
	var ok bool
	if p.A, p.B, ok = clipLine(p.N, p.C, f.L.Ring.Inset(f.L.Px(4))); !ok {
		return
	}
	f.Partition = p
}

// sidesOf groups the members of a view by the links cut both ways: each
// member's group, and how many groups there are (1 when nothing is cut).
func sidesOf(v sim.View) (group []int, groups int) {
	ms := v.Members
	group = make([]int, len(ms))
	if len(v.Cuts) == 0 {
		return group, min(1, len(ms))
	}
	cut := map[[2]string]bool{}
	for _, c := range v.Cuts {
		cut[[2]string{c.From, c.To}] = true
	}
	for i := range group {
		group[i] = -1
	}
	for i := range ms {
		if group[i] >= 0 {
			continue
		}
		stack := []int{i}
		group[i] = groups
		for len(stack) > 0 {
			k := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for j := range ms {
				both := cut[[2]string{ms[k].Name, ms[j].Name}] && cut[[2]string{ms[j].Name, ms[k].Name}]
				if group[j] < 0 && !both {
					group[j] = groups
					stack = append(stack, j)
				}
			}
		}
		groups++
	}
	return group, groups
}

// hullOf returns the convex hull of a side's rectangles and discs, grown
// by margin, clockwise on screen.
func hullOf(s sideStuff, margin float64) []Point {
	var pts []Point
	for _, r := range s.rects {
		r = r.Inset(-margin)
		pts = append(pts, Point{r.X, r.Y}, Point{r.Right(), r.Y}, Point{r.X, r.Bottom()}, Point{r.Right(), r.Bottom()})
	}
	for _, c := range s.discs {
		for k := range 24 {
			a := 2 * math.Pi * float64(k) / 24
			// A polygon around the disc (its edges' middles touch it).
			rr := (s.r + margin) / math.Cos(math.Pi/24)
			pts = append(pts, Point{c.X + rr*math.Cos(a), c.Y + rr*math.Sin(a)})
		}
	}
	if len(pts) < 3 {
		return nil
	}
	slices.SortFunc(pts, func(a, b Point) int {
		if a.X != b.X {
			return cmpF(a.X, b.X)
		}
		return cmpF(a.Y, b.Y)
	})
	cross := func(o, a, b Point) float64 { return (a.X-o.X)*(b.Y-o.Y) - (a.Y-o.Y)*(b.X-o.X) }
	var lower, upper []Point
	for _, p := range pts {
		for len(lower) >= 2 && cross(lower[len(lower)-2], lower[len(lower)-1], p) <= 0 {
			lower = lower[:len(lower)-1]
		}
		lower = append(lower, p)
	}
	for i := len(pts) - 1; i >= 0; i-- {
		p := pts[i]
		for len(upper) >= 2 && cross(upper[len(upper)-2], upper[len(upper)-1], p) <= 0 {
			upper = upper[:len(upper)-1]
		}
		upper = append(upper, p)
	}
	return append(lower[:len(lower)-1], upper[:len(upper)-1]...)
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// clearOf reports whether a hull keeps gap from everything of a side.
func clearOf(hull []Point, s sideStuff, gap float64) bool {
	for k := range hull {
		a, b := hull[k], hull[(k+1)%len(hull)]
		for _, r := range s.rects {
			if SegmentNear(a, b, r, gap) {
				return false
			}
		}
		for _, c := range s.discs {
			if segmentDist(a, b, c) < s.r+gap {
				return false
			}
		}
	}
	for _, r := range s.rects {
		if inPolygon(hull, r.Center()) {
			return false
		}
	}
	for _, c := range s.discs {
		if inPolygon(hull, c) {
			return false
		}
	}
	return true
}

// clipPoly clips a convex polygon to a rectangle (Sutherland–Hodgman).
func clipPoly(poly []Point, r Rect) []Point {
	edges := []struct {
		in  func(Point) bool
		cut func(a, b Point) Point
	}{
		{func(p Point) bool { return p.X >= r.X }, func(a, b Point) Point { return a.Lerp(b, (r.X-a.X)/(b.X-a.X)) }},
		{func(p Point) bool { return p.X <= r.Right() }, func(a, b Point) Point { return a.Lerp(b, (r.Right()-a.X)/(b.X-a.X)) }},
		{func(p Point) bool { return p.Y >= r.Y }, func(a, b Point) Point { return a.Lerp(b, (r.Y-a.Y)/(b.Y-a.Y)) }},
		{func(p Point) bool { return p.Y <= r.Bottom() }, func(a, b Point) Point { return a.Lerp(b, (r.Bottom()-a.Y)/(b.Y-a.Y)) }},
	}
	for _, e := range edges {
		var out []Point
		for k := range poly {
			a, b := poly[k], poly[(k+1)%len(poly)]
			switch {
			case e.in(a) && e.in(b):
				out = append(out, b)
			case e.in(a):
				out = append(out, e.cut(a, b))
			case e.in(b):
				out = append(out, e.cut(a, b), b)
			}
		}
		poly = out
		if len(poly) == 0 {
			return nil
		}
	}
	return poly
}

// inPolygon reports whether p lies inside a convex polygon.
func inPolygon(poly []Point, p Point) bool {
	sign := 0.0
	for k := range poly {
		a, b := poly[k], poly[(k+1)%len(poly)]
		c := (b.X-a.X)*(p.Y-a.Y) - (b.Y-a.Y)*(p.X-a.X)
		if c == 0 {
			continue
		}
		if sign == 0 {
			sign = c
		} else if c*sign < 0 {
			return false
		}
	}
	return true
}

// segmentDist is the distance from p to the segment a–b.
func segmentDist(a, b, p Point) float64 {
	d := b.Sub(a)
	l2 := d.X*d.X + d.Y*d.Y
	t := 0.0
	if l2 > 0 {
		t = math.Max(0, math.Min(1, ((p.X-a.X)*d.X+(p.Y-a.Y)*d.Y)/l2))
	}
	return p.Sub(a.Lerp(b, t)).Len()
}

// segmentsMeet returns where along a→b it meets c–d (0 to 1), if it does.
func segmentsMeet(a, b, c, d Point) (float64, bool) {
	r, s := b.Sub(a), d.Sub(c)
	den := r.X*s.Y - r.Y*s.X
	if den == 0 {
		return 0, false
	}
	q := c.Sub(a)
	t := (q.X*s.Y - q.Y*s.X) / den
	u := (q.X*r.Y - q.Y*r.X) / den
	return t, t >= 0 && t <= 1 && u >= 0 && u <= 1
}

// separate finds the straight line that keeps farthest from both sides:
// its direction (the angle of its normal, pointing to side 1), the gap
// between the sides along that normal (negative if no line separates
// them), and where its middle is.
func separate(sides [2]sideStuff) (angle, gap, c float64) {
	gap = math.Inf(-1)
	for deg := 0; deg < 360; deg++ {
		a := float64(deg) * math.Pi / 180
		n := Point{math.Cos(a), math.Sin(a)}
		hi0, lo1 := math.Inf(-1), math.Inf(1)
		for _, r := range sides[0].rects {
			_, hi := project(r, n)
			hi0 = math.Max(hi0, hi)
		}
		for _, d := range sides[0].discs {
			hi0 = math.Max(hi0, n.X*d.X+n.Y*d.Y+sides[0].r)
		}
		for _, r := range sides[1].rects {
			lo, _ := project(r, n)
			lo1 = math.Min(lo1, lo)
		}
		for _, d := range sides[1].discs {
			lo1 = math.Min(lo1, n.X*d.X+n.Y*d.Y-sides[1].r)
		}
		if lo1-hi0 > gap {
			angle, gap, c = a, lo1-hi0, (lo1+hi0)/2
		}
	}
	return angle, gap, c
}

// project returns the extent of a rectangle's projection on n.
func project(r Rect, n Point) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, c := range []Point{{r.X, r.Y}, {r.Right(), r.Y}, {r.X, r.Bottom()}, {r.Right(), r.Bottom()}} {
		v := n.X*c.X + n.Y*c.Y
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi
}

// clipLine returns where the line n·p = c enters and leaves r.
func clipLine(n Point, c float64, r Rect) (a, b Point, ok bool) {
	var pts []Point
	add := func(p Point) {
		if p.X >= r.X-1e-6 && p.X <= r.Right()+1e-6 && p.Y >= r.Y-1e-6 && p.Y <= r.Bottom()+1e-6 {
			pts = append(pts, p)
		}
	}
	if math.Abs(n.Y) > 1e-9 {
		for _, x := range []float64{r.X, r.Right()} {
			add(Point{x, (c - n.X*x) / n.Y})
		}
	}
	if math.Abs(n.X) > 1e-9 {
		for _, y := range []float64{r.Y, r.Bottom()} {
			add(Point{(c - n.Y*y) / n.X, y})
		}
	}
	if len(pts) < 2 {
		return Point{}, Point{}, false
	}
	a, b = pts[0], pts[0]
	for _, p := range pts[1:] {
		if p.Sub(a).Len() > b.Sub(a).Len() {
			b = p
		}
	}
	return a, b, b.Sub(a).Len() > 0
}
