package render

import (
	"encoding/binary"
	"image"
	"image/color"
	"math"
	"slices"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/raftsim/raftsim/render/ui"
)

// A frame is drawn in two passes: the painters record every draw call,
// then the record is drawn onto the window, except for the panels that
// are drawn exactly as in the last frame drawn onto that image: their
// pixels are still there (ebiten keeps the screen between frames, see
// Run), so they are neither cleared nor drawn again. Software GL pays for
// every triangle; a paused window, and between events the logs, the state
// machines and the client requests, change little from frame to frame.
//
// The pixels are those of drawing everything, by construction: a panel is
// kept only if every triangle that covers any of its pixels, in this
// frame and in the frame that drew it, is one of its own, and its own
// are the same as then, in the same order, sampling the same pixels of
// the same images, onto the same image: the same pixels.

// surface is what a painter draws on: an image, or a frame's record.
type surface interface {
	DrawTriangles(vs []ebiten.Vertex, is []uint16, img *ebiten.Image, opt *ebiten.DrawTrianglesOptions)
	DrawImage(img *ebiten.Image, opt *ebiten.DrawImageOptions)
}

// recOp is one recorded draw call: triangles (is indexes vs from v0) or
// an image.
type recOp struct {
	src    *ebiten.Image
	v0, v1 int // the vertices, in recorder.vs
	i0, i1 int // the indices, in recorder.is
	opt    ebiten.DrawTrianglesOptions
	img    *ebiten.Image // DrawImage's
	imgOpt ebiten.DrawImageOptions
}

// recorder records a frame's draw calls, and remembers what it needs to
// know which panels of its image it may keep from one frame to the next.
type recorder struct {
	dst  *ebiten.Image
	fill color.Color // the Fill the frame starts with
	ops  []recOp
	vs   []ebiten.Vertex
	is   []uint16
	// direct: the record was drawn out (an atlas started again during the
	// frame, and what the record samples would be gone): the rest of the
	// frame goes straight to dst, and nothing is kept.
	direct bool

	// What the last frame drew onto kept.dst: the panels' rectangles and
	// each panel's triangles (nil: not drawn by its own alone).
	kept struct {
		dst    *ebiten.Image
		size   image.Point
		fill   color.Color
		epoch  int
		panels []image.Rectangle
		drawn  [][]byte
	}
	// markOp is where the underlay ends in ops (-1: none), under its
	// pixels, layer a copy of them (see mark).
	markOp int
	under  image.Rectangle
	layer  *ebiten.Image

	// ids names the images triangles sample, for the panels' records.
	ids map[*ebiten.Image]uint32

	// Scratch.
	owner []int  // each triangle's panel, or -1
	alone []bool // no other triangle covers a pixel of the panel
	keep  []bool
	sigs  [][]byte
	idx   []uint16
}

// recording is the recorder of the frame being drawn, if any: an atlas
// draws it out before it starts again (sprites.go).
var recording *recorder

// atlasEpoch counts the times an atlas started again: the pixels a
// kept panel's triangles sampled may be gone.
var atlasEpoch int

// begin starts recording a frame for dst, which is first filled with bg.
func (r *recorder) begin(dst *ebiten.Image, bg color.Color) {
	r.dst, r.fill, r.direct, r.markOp = dst, bg, false, -1
	r.ops, r.vs, r.is = r.ops[:0], r.vs[:0], r.is[:0]
	recording = r
}

// forget makes the next frame draw everything: dst was drawn on without
// the recorder.
func (r *recorder) forget() { r.kept.dst = nil }

// DrawTriangles records a draw call.
func (r *recorder) DrawTriangles(vs []ebiten.Vertex, is []uint16, img *ebiten.Image, opt *ebiten.DrawTrianglesOptions) {
	if r.direct {
		r.dst.DrawTriangles(vs, is, img, opt)
		return
	}
	op := recOp{src: img, v0: len(r.vs), i0: len(r.is)}
	if opt != nil {
		op.opt = *opt
	}
	r.vs = append(r.vs, vs...)
	r.is = append(r.is, is...)
	op.v1, op.i1 = len(r.vs), len(r.is)
	r.ops = append(r.ops, op)
}

// DrawImage records a draw call.
func (r *recorder) DrawImage(img *ebiten.Image, opt *ebiten.DrawImageOptions) {
	if r.direct {
		r.dst.DrawImage(img, opt)
		return
	}
	op := recOp{img: img}
	if opt != nil {
		op.imgOpt = *opt
	}
	r.ops = append(r.ops, op)
}

// drawOut draws the record so far onto dst, all of it, and sends the rest
// of the frame straight there: an atlas the record samples is about to
// start again.
func (r *recorder) drawOut() {
	if r.direct {
		return
	}
	r.dst.Fill(r.fill)
	for _, op := range r.ops {
		r.drawOp(op, nil)
	}
	r.direct, r.markOp = true, -1
	r.kept.dst = nil
}

// drawOp draws a recorded call; is, if not nil, are the indices to draw in
// place of the call's own.
func (r *recorder) drawOp(op recOp, is []uint16) {
	if op.img != nil {
		r.dst.DrawImage(op.img, &op.imgOpt)
		return
	}
	if is == nil {
		is = r.is[op.i0:op.i1]
	}
	if len(is) > 0 {
		r.dst.DrawTriangles(r.vs[op.v0:op.v1], is, op.src, &op.opt)
	}
}

// coverEps is how far beyond a triangle's corners the rasterizer may
// cover a pixel's centre: it rounds positions to a fraction of a pixel.
const coverEps = 1.0 / 64

// pixels returns the pixels whose centres a shape within x0..x1, y0..y1
// may cover (empty if none).
func pixels(x0, y0, x1, y1 float64) image.Rectangle {
	return image.Rect(int(math.Ceil(x0-0.5-coverEps)), int(math.Ceil(y0-0.5-coverEps)),
		int(math.Floor(x1-0.5+coverEps))+1, int(math.Floor(y1-0.5+coverEps))+1)
}

// mark says that what has been recorded so far lies under what follows
// in under (the ring: the hosts, links and members under the messages),
// so that a frame whose record up to here covers under's pixels as the
// last one's did copies them from the last one (see finish).
func (r *recorder) mark(under image.Rectangle) {
	if !r.direct {
		r.markOp, r.under = len(r.ops), under
	}
}

// finish draws the frame onto dst, keeping from the last frame drawn
// there the panels (whole-pixel rectangles) drawn alike. The marked
// underlay is a panel of its own, for the triangles before the mark: if
// they are as in the last frame, its pixels as they were at the mark are
// copied back from the layer, else they are drawn and copied there.
func (r *recorder) finish(panels []image.Rectangle) {
	recording = nil
	markOp := r.markOp
	r.markOp = -1
	if r.direct {
		return
	}
	u := -1 // the underlay's panel
	if markOp >= 0 {
		panels = append(slices.Clip(panels), r.under)
		u = len(panels) - 1
	}
	r.forgetKeptIfChanged(panels)
	r.claimTriangles(panels, markOp, u)
	r.signPanels(len(panels))
	kept := r.keepPanelsDrawnAlike(len(panels))
	// The underlay is copied to the layer at the mark, if it is drawn
	// alone this frame and not kept.
	snap := u >= 0 && r.alone[u] && !r.keep[u]
	if snap && (r.layer == nil || r.layer.Bounds().Size() != r.under.Size()) {
		if r.layer != nil {
			r.layer.Deallocate()
		}
		r.layer = ebiten.NewImageWithOptions(image.Rectangle{Max: r.under.Size()}, &ebiten.NewImageOptions{Unmanaged: true})
	}
	r.fillUnkept(panels, kept, u)
	r.drawUnkept(markOp, snap)
}

// forgetKeptIfChanged forgets the last frame's panels when this frame is
// not drawn where it was, or alike: another image or size, fill, atlas or
// panels (or too many images seen).
func (r *recorder) forgetKeptIfChanged(panels []image.Rectangle) {
	dst := r.dst
	if r.kept.dst != dst || r.kept.size != dst.Bounds().Size() || r.kept.fill != r.fill || r.kept.epoch != atlasEpoch ||
		!slices.Equal(r.kept.panels, panels) || len(r.ids) > 4096 {
		r.kept.dst, r.kept.size, r.kept.fill, r.kept.epoch = dst, dst.Bounds().Size(), r.fill, atlasEpoch
		r.kept.panels = slices.Clone(panels)
		r.kept.drawn = make([][]byte, len(panels))
		r.ids = map[*ebiten.Image]uint32{}
	}
}

// claimTriangles says whose each triangle is: a panel's if every pixel
// it may cover is in that panel (r.owner). A panel that any other
// triangle or image may cover a pixel of is not drawn by its own alone
// (r.alone; the underlay u: before the mark; what comes after is drawn
// over it).
func (r *recorder) claimTriangles(panels []image.Rectangle, markOp, u int) {
	r.alone = r.alone[:0]
	for range len(panels) {
		r.alone = append(r.alone, true)
	}
	r.owner = r.owner[:0]
	for o, op := range r.ops {
		skip := -1
		if o >= markOp {
			skip = u
		}
		if op.img != nil {
			b := op.img.Bounds()
			x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
			for _, c := range [4]image.Point{{0, 0}, {b.Dx(), 0}, {b.Dx(), b.Dy()}, {0, b.Dy()}} {
				x, y := op.imgOpt.GeoM.Apply(float64(c.X), float64(c.Y))
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			}
			r.claim(panels, pixels(x0, y0, x1, y1), false, skip)
			continue
		}
		vs := r.vs[op.v0:op.v1]
		is := r.is[op.i0:op.i1]
		own := plainColorM(&op.opt.ColorM)
		for t := 0; t+2 < len(is); t += 3 {
			a, b, c := vs[is[t]], vs[is[t+1]], vs[is[t+2]]
			px := pixels(float64(min(a.DstX, b.DstX, c.DstX)), float64(min(a.DstY, b.DstY, c.DstY)),
				float64(max(a.DstX, b.DstX, c.DstX)), float64(max(a.DstY, b.DstY, c.DstY)))
			r.owner = append(r.owner, r.claim(panels, px, own, skip))
		}
	}
}

// signPanels writes what each of the n panels drawn alone is drawn with
// (r.sigs): its triangles in order, what they sample and how.
func (r *recorder) signPanels(n int) {
	for len(r.sigs) < n {
		r.sigs = append(r.sigs, nil)
	}
	last := make([]int, n)
	for k := range n {
		r.sigs[k] = r.sigs[k][:0]
		last[k] = -1
	}
	t := 0
	for o, op := range r.ops {
		if op.img != nil {
			continue
		}
		vs := r.vs[op.v0:op.v1]
		is := r.is[op.i0:op.i1]
		for j := 0; j+2 < len(is); j, t = j+3, t+1 {
			k := r.owner[t]
			if k < 0 || !r.alone[k] {
				continue
			}
			if last[k] != o {
				last[k] = o
				r.sigs[k] = r.appendState(r.sigs[k], op)
			}
			r.sigs[k] = appendTriangle(r.sigs[k], vs[is[j]], vs[is[j+1]], vs[is[j+2]])
		}
	}
}

// keepPanelsDrawnAlike keeps the panels drawn alike (r.keep) and
// remembers how the others are drawn; it reports whether any is kept.
func (r *recorder) keepPanelsDrawnAlike(n int) (kept bool) {
	r.keep = r.keep[:0]
	for k := range n {
		same := r.alone[k] && r.kept.drawn[k] != nil && string(r.kept.drawn[k]) == string(r.sigs[k])
		r.keep = append(r.keep, same)
		switch {
		case same:
			kept = true
		case r.alone[k]:
			r.kept.drawn[k] = append([]byte{}, r.sigs[k]...)
		default:
			r.kept.drawn[k] = nil
		}
	}
	return kept
}

// fillUnkept fills what is not kept, and copies back a kept underlay u.
func (r *recorder) fillUnkept(panels []image.Rectangle, kept bool, u int) {
	dst := r.dst
	if !kept {
		dst.Fill(r.fill)
		return
	}
	for _, rect := range outside(dst.Bounds(), panels, r.keep) {
		dst.SubImage(rect).(*ebiten.Image).Fill(r.fill)
	}
	if u >= 0 && r.keep[u] {
		op := &ebiten.DrawImageOptions{Blend: ebiten.BlendCopy}
		op.GeoM.Translate(float64(r.under.Min.X), float64(r.under.Min.Y))
		dst.DrawImage(r.layer, op)
	}
}

// drawUnkept draws every triangle but the kept panels', and every image;
// with snap, it copies the underlay to the layer at the mark.
func (r *recorder) drawUnkept(markOp int, snap bool) {
	t := 0
	for o, op := range r.ops {
		if o == markOp && snap {
			r.snapshot()
		}
		if op.img != nil {
			r.drawOp(op, nil)
			continue
		}
		is := r.is[op.i0:op.i1]
		r.idx = r.idx[:0]
		for j := 0; j+2 < len(is); j, t = j+3, t+1 {
			if k := r.owner[t]; k >= 0 && r.keep[k] {
				continue
			}
			r.idx = append(r.idx, is[j], is[j+1], is[j+2])
		}
		if len(r.idx) > 0 {
			r.drawOp(op, r.idx)
		}
	}
	if markOp == len(r.ops) && snap {
		r.snapshot()
	}
}

// snapshot copies the underlay's pixels of dst, as drawn so far, to the
// layer.
func (r *recorder) snapshot() {
	r.layer.DrawImage(r.dst.SubImage(r.under).(*ebiten.Image), &ebiten.DrawImageOptions{Blend: ebiten.BlendCopy})
}

// claim returns the panel whose pixels are all that px may cover, or -1
// (none, or mine is false: the draw call's colour matrix is not plain);
// the other panels px overlaps are not drawn alone. Panel skip is left
// out.
func (r *recorder) claim(panels []image.Rectangle, px image.Rectangle, mine bool, skip int) int {
	if px.Empty() {
		return -1
	}
	own := -1
	for k, p := range panels {
		switch {
		case k == skip:
		case mine && own < 0 && px.In(p):
			own = k
		case px.Overlaps(p):
			r.alone[k] = false
		}
	}
	return own
}

// appendState appends what a draw call's triangles sample and how.
func (r *recorder) appendState(b []byte, op recOp) []byte {
	id, ok := r.ids[op.src]
	if !ok {
		id = uint32(len(r.ids) + 1)
		r.ids[op.src] = id
	}
	o := op.opt
	b = append(b, 'S')
	for _, v := range []int{int(id), int(o.ColorScaleMode), int(o.CompositeMode),
		int(o.Blend.BlendFactorSourceRGB), int(o.Blend.BlendFactorSourceAlpha), int(o.Blend.BlendFactorDestinationRGB),
		int(o.Blend.BlendFactorDestinationAlpha), int(o.Blend.BlendOperationRGB), int(o.Blend.BlendOperationAlpha),
		int(o.Filter), int(o.Address), int(o.FillRule), boolInt(o.AntiAlias), boolInt(o.DisableMipmaps)} {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return b
}

// appendTriangle appends a triangle's vertices.
func appendTriangle(b []byte, vs ...ebiten.Vertex) []byte {
	b = append(b, 'T')
	for _, v := range vs {
		for _, f := range [...]float32{v.DstX, v.DstY, v.SrcX, v.SrcY, v.ColorR, v.ColorG, v.ColorB, v.ColorA, v.Custom0, v.Custom1, v.Custom2, v.Custom3} {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
		}
	}
	return b
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// plainColorM reports whether m is the identity (raftsim sets none).
func plainColorM(m *ebiten.ColorM) bool {
	for i := range 4 {
		for j := range 5 {
			want := 0.0
			if i == j {
				want = 1
			}
			if m.Element(i, j) != want {
				return false
			}
		}
	}
	return true
}

// outside returns rectangles that cover bounds but the kept panels.
func outside(bounds image.Rectangle, panels []image.Rectangle, keep []bool) []image.Rectangle {
	var in []image.Rectangle
	ys := []int{bounds.Min.Y, bounds.Max.Y}
	for k, p := range panels {
		if keep[k] {
			p = p.Intersect(bounds)
			in = append(in, p)
			ys = append(ys, p.Min.Y, p.Max.Y)
		}
	}
	slices.Sort(ys)
	ys = slices.Compact(ys)
	var out []image.Rectangle
	for i := 0; i+1 < len(ys); i++ {
		y0, y1 := ys[i], ys[i+1]
		if y0 < bounds.Min.Y || y1 > bounds.Max.Y {
			continue
		}
		var xs [][2]int
		for _, p := range in {
			if p.Min.Y <= y0 && p.Max.Y >= y1 {
				xs = append(xs, [2]int{p.Min.X, p.Max.X})
			}
		}
		slices.SortFunc(xs, func(a, b [2]int) int { return a[0] - b[0] })
		x := bounds.Min.X
		for _, s := range xs {
			if s[0] > x {
				out = append(out, image.Rect(x, y0, s[0], y1))
			}
			x = max(x, s[1])
		}
		if x < bounds.Max.X {
			out = append(out, image.Rect(x, y0, bounds.Max.X, y1))
		}
	}
	return out
}

// panelsOf returns the panels a frame may keep: the window's parts but
// the ring, whose messages move in every frame while time runs, each as
// the whole pixels it lies on.
func panelsOf(l ui.Layout) []image.Rectangle {
	var ps []image.Rectangle
	for _, r := range []ui.Rect{l.Toolbar, l.Logs, l.State, l.Clients, l.Caption, l.Timeline} {
		if r.W <= 0 || r.H <= 0 {
			continue
		}
		ps = append(ps, pixelRect(r))
	}
	return ps
}

// pixelRect returns the whole pixels r lies on.
func pixelRect(r ui.Rect) image.Rectangle {
	return image.Rect(int(math.Floor(r.X)), int(math.Floor(r.Y)), int(math.Ceil(r.X+r.W)), int(math.Ceil(r.Y+r.H)))
}
