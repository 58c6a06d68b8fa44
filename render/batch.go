package render

import (
	"image"
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/raftsim/raftsim/render/ui"
)

// whiteImage is the source of the triangles that draw a glyph into the
// atlas (sprites.go), whose white corner is the source of every other
// untextured triangle: the middle pixel of a 3×3 white image, so that
// sampling never bleeds in a neighbour.
var (
	whiteBase  = ebiten.NewImage(3, 3)
	whiteImage = whiteBase.SubImage(image.Rect(1, 1, 2, 2)).(*ebiten.Image)
)

func init() { whiteBase.Fill(color.White) }

// batch collects plain (not anti-aliased) filled shapes and draws them in
// one DrawTriangles call. Software GL draws a few large batches far faster
// than many small vector paths.
type batch struct {
	vs []ebiten.Vertex
	is []uint16
	// src is the image the vertices sample: the atlas, unless set.
	src *ebiten.Image
}

func (b *batch) vertex(p ui.Point, c color.RGBA) uint16 {
	b.vs = append(b.vs, ebiten.Vertex{
		DstX: float32(p.X), DstY: float32(p.Y), SrcX: 1.5, SrcY: 1.5,
		ColorR: float32(c.R) / 255, ColorG: float32(c.G) / 255, ColorB: float32(c.B) / 255, ColorA: float32(c.A) / 255,
	})
	return uint16(len(b.vs) - 1)
}

// room makes sure n more vertices fit in one draw call, flushing to dst
// if they would not.
func (b *batch) room(dst surface, n int) {
	if len(b.vs)+n > math.MaxUint16-1 {
		b.flush(dst)
	}
}

// flush draws what was collected onto dst and empties the batch.
func (b *batch) flush(dst surface) {
	if len(b.is) > 0 {
		src := b.src
		if src == nil {
			src = atlas.img
		}
		dst.DrawTriangles(b.vs, b.is, src, &ebiten.DrawTrianglesOptions{})
	}
	b.vs, b.is = b.vs[:0], b.is[:0]
}

// sprite copies the atlas's pixels in r to dst with r's top-left at x, y
// (whole pixels), as they are.
func (b *batch) sprite(dst surface, r image.Rectangle, x, y float64) {
	b.room(dst, 4)
	w, h := float32(r.Dx()), float32(r.Dy())
	sx, sy, dx, dy := float32(r.Min.X), float32(r.Min.Y), float32(x), float32(y)
	first := uint16(len(b.vs))
	for _, c := range [4][2]float32{{0, 0}, {1, 0}, {1, 1}, {0, 1}} {
		b.vs = append(b.vs, ebiten.Vertex{DstX: dx + c[0]*w, DstY: dy + c[1]*h, SrcX: sx + c[0]*w, SrcY: sy + c[1]*h, ColorR: 1, ColorG: 1, ColorB: 1, ColorA: 1})
	}
	b.is = append(b.is, first, first+1, first+2, first, first+2, first+3)
}

// poly fills a convex polygon.
func (b *batch) poly(dst surface, pts []ui.Point, c color.RGBA) {
	if len(pts) < 3 {
		return
	}
	b.room(dst, len(pts))
	first := b.vertex(pts[0], c)
	prev := b.vertex(pts[1], c)
	for _, p := range pts[2:] {
		cur := b.vertex(p, c)
		b.is = append(b.is, first, prev, cur)
		prev = cur
	}
}

// rect fills a rectangle.
func (b *batch) rect(dst surface, r ui.Rect, c color.RGBA) {
	b.poly(dst, []ui.Point{{X: r.X, Y: r.Y}, {X: r.X + r.W, Y: r.Y}, {X: r.X + r.W, Y: r.Y + r.H}, {X: r.X, Y: r.Y + r.H}}, c)
}

// frame outlines a rectangle with a border of width w inside it.
func (b *batch) frame(dst surface, r ui.Rect, w float64, c color.RGBA) {
	b.rect(dst, ui.Rect{X: r.X, Y: r.Y, W: r.W, H: w}, c)
	b.rect(dst, ui.Rect{X: r.X, Y: r.Y + r.H - w, W: r.W, H: w}, c)
	b.rect(dst, ui.Rect{X: r.X, Y: r.Y + w, W: w, H: r.H - 2*w}, c)
	b.rect(dst, ui.Rect{X: r.X + r.W - w, Y: r.Y + w, W: w, H: r.H - 2*w}, c)
}

// line draws a segment of width w.
func (b *batch) line(dst surface, p, q ui.Point, w float64, c color.RGBA) {
	d := q.Sub(p)
	l := d.Len()
	if l == 0 {
		return
	}
	n := ui.Point{X: -d.Y / l * w / 2, Y: d.X / l * w / 2}
	b.poly(dst, []ui.Point{p.Add(n), q.Add(n), q.Sub(n), p.Sub(n)}, c)
}

// dashed draws a dashed segment.
func (b *batch) dashed(dst surface, p, q ui.Point, w, dash float64, c color.RGBA) {
	l := q.Sub(p).Len()
	if l == 0 {
		return
	}
	for t := 0.0; t < l; t += 2 * dash {
		b.line(dst, p.Lerp(q, t/l), p.Lerp(q, math.Min(l, t+dash)/l), w, c)
	}
}

// segments is how many sides a circle of radius r gets.
func segments(r float64) int { return max(10, min(40, int(r*1.2))) }

// circle fills a circle.
func (b *batch) circle(dst surface, ctr ui.Point, r float64, c color.RGBA) {
	n := segments(r)
	pts := make([]ui.Point, n)
	for i := range pts {
		a := 2 * math.Pi * float64(i) / float64(n)
		pts[i] = ui.Point{X: ctr.X + r*math.Cos(a), Y: ctr.Y + r*math.Sin(a)}
	}
	b.poly(dst, pts, c)
}

// arc strokes the part of a circle from angle a0 to a1 (radians, clockwise
// on screen from the +x axis) with width w.
func (b *batch) arc(dst surface, ctr ui.Point, r, w, a0, a1 float64, c color.RGBA) {
	n := max(2, int(float64(segments(r))*math.Abs(a1-a0)/(2*math.Pi))+1)
	b.room(dst, 2*(n+1))
	var pi, po uint16
	for i := 0; i <= n; i++ {
		a := a0 + (a1-a0)*float64(i)/float64(n)
		cos, sin := math.Cos(a), math.Sin(a)
		ci := b.vertex(ui.Point{X: ctr.X + (r-w/2)*cos, Y: ctr.Y + (r-w/2)*sin}, c)
		co := b.vertex(ui.Point{X: ctr.X + (r+w/2)*cos, Y: ctr.Y + (r+w/2)*sin}, c)
		if i > 0 {
			b.is = append(b.is, pi, po, co, pi, co, ci)
		}
		pi, po = ci, co
	}
}

// ring strokes a whole circle.
func (b *batch) ring(dst surface, ctr ui.Point, r, w float64, c color.RGBA) {
	b.arc(dst, ctr, r, w, 0, 2*math.Pi, c)
}

// outline strokes a closed polygon.
func (b *batch) outline(dst surface, pts []ui.Point, w float64, c color.RGBA) {
	for i := range pts {
		b.line(dst, pts[i], pts[(i+1)%len(pts)], w, c)
	}
}

// diamond returns the corners of a diamond of radius r.
func diamond(c ui.Point, r float64) []ui.Point {
	return []ui.Point{{X: c.X, Y: c.Y - r}, {X: c.X + r, Y: c.Y}, {X: c.X, Y: c.Y + r}, {X: c.X - r, Y: c.Y}}
}

// square returns the corners of a square of half-side r.
func square(c ui.Point, r float64) []ui.Point {
	return []ui.Point{{X: c.X - r, Y: c.Y - r}, {X: c.X + r, Y: c.Y - r}, {X: c.X + r, Y: c.Y + r}, {X: c.X - r, Y: c.Y + r}}
}

// triangle returns the corners of an upward triangle of radius r.
func triangle(c ui.Point, r float64, up bool) []ui.Point {
	k := 1.0
	if !up {
		k = -1
	}
	return []ui.Point{{X: c.X, Y: c.Y - k*r}, {X: c.X + r*0.9, Y: c.Y + k*r*0.7}, {X: c.X - r*0.9, Y: c.Y + k*r*0.7}}
}

// star fills a five-pointed star as five triangles around a pentagon.
func (b *batch) star(dst surface, c ui.Point, r float64, col color.RGBA) {
	var outer, inner [5]ui.Point
	for i := range 5 {
		a := -math.Pi/2 + 2*math.Pi*float64(i)/5
		outer[i] = ui.Point{X: c.X + r*math.Cos(a), Y: c.Y + r*math.Sin(a)}
		a += math.Pi / 5
		inner[i] = ui.Point{X: c.X + r*0.45*math.Cos(a), Y: c.Y + r*0.45*math.Sin(a)}
	}
	b.poly(dst, inner[:], col)
	for i := range 5 {
		b.poly(dst, []ui.Point{inner[(i+4)%5], outer[i], inner[i]}, col)
	}
}

// crown draws the leader's crown centred at c, w wide.
func (b *batch) crown(dst surface, c ui.Point, w float64, col, edge color.RGBA) {
	h := w * 0.55
	x0, x1, y0, y1 := c.X-w/2, c.X+w/2, c.Y-h/2, c.Y+h/2
	pts := []ui.Point{{X: x0, Y: y1}, {X: x0, Y: y0}, {X: x0 + w*0.25, Y: c.Y}, {X: c.X, Y: y0 - h*0.1}, {X: x1 - w*0.25, Y: c.Y}, {X: x1, Y: y0}, {X: x1, Y: y1}}
	b.poly(dst, []ui.Point{{X: x0, Y: y1}, {X: x0, Y: c.Y}, {X: x1, Y: c.Y}, {X: x1, Y: y1}}, col)
	b.poly(dst, []ui.Point{{X: x0, Y: c.Y}, {X: x0, Y: y0}, {X: x0 + w*0.25, Y: c.Y}}, col)
	b.poly(dst, []ui.Point{{X: x0 + w*0.2, Y: c.Y}, {X: c.X, Y: y0 - h*0.1}, {X: x1 - w*0.2, Y: c.Y}}, col)
	b.poly(dst, []ui.Point{{X: x1 - w*0.25, Y: c.Y}, {X: x1, Y: y0}, {X: x1, Y: c.Y}}, col)
	b.outline(dst, pts, math.Max(1, w/14), edge)
}

// check draws a tick mark.
func (b *batch) check(dst surface, c ui.Point, r, w float64, col color.RGBA) {
	b.line(dst, ui.Point{X: c.X - r, Y: c.Y}, ui.Point{X: c.X - r*0.3, Y: c.Y + r*0.7}, w, col)
	b.line(dst, ui.Point{X: c.X - r*0.3, Y: c.Y + r*0.7}, ui.Point{X: c.X + r, Y: c.Y - r*0.8}, w, col)
}

// cross draws an ×.
func (b *batch) cross(dst surface, c ui.Point, r, w float64, col color.RGBA) {
	b.line(dst, ui.Point{X: c.X - r, Y: c.Y - r}, ui.Point{X: c.X + r, Y: c.Y + r}, w, col)
	b.line(dst, ui.Point{X: c.X - r, Y: c.Y + r}, ui.Point{X: c.X + r, Y: c.Y - r}, w, col)
}

// arrowHead draws a filled arrow head at tip, pointing along dir.
func (b *batch) arrowHead(dst surface, tip, dir ui.Point, size float64, col color.RGBA) {
	l := dir.Len()
	if l == 0 {
		return
	}
	u := dir.Scale(1 / l)
	n := ui.Point{X: -u.Y, Y: u.X}
	base := tip.Sub(u.Scale(size))
	b.poly(dst, []ui.Point{tip, base.Add(n.Scale(size * 0.6)), base.Sub(n.Scale(size * 0.6))}, col)
}
