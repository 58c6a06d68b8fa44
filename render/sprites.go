package render

import (
	"image"
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/raftsim/raftsim/render/ui"
)

// Message glyphs are drawn once into an atlas and then copied, one quad
// each, because software GL pays for every triangle: a busy ring has
// hundreds of messages in flight, and a heartbeat's three circles are 24
// triangles. The atlas is also the batch's source of white (its corner),
// so that a glyph stays in the batch, in its place among the shapes.
//
// A glyph is drawn into the atlas at the position of its centre within a
// pixel (to a quarter pixel) and copied pixel for pixel to a whole-pixel
// offset, so that it covers the pixels its triangles would have covered
// (to a quarter pixel), and the frame looks as before.

// spritePhases is how many positions within a pixel, on each axis, a
// glyph is drawn at.
const spritePhases = 4

// atlasSize is the atlas's side in pixels. When it is full it starts
// again (a window whose scale keeps changing).
const atlasSize = 1024

// spriteKey names a glyph as drawn: the style, its fill, its radius and
// the scale, and the centre's position within a pixel.
type spriteKey struct {
	st     ui.MsgStyle
	fill   color.RGBA
	rad, s float64
	fx, fy float64
}

// spriteAtlas holds the drawn glyphs, packed in rows.
type spriteAtlas struct {
	img        *ebiten.Image
	at         map[spriteKey]image.Point     // the top-left of each glyph's square
	letters    map[*ebiten.Image]image.Point // the top-left of each letter's copy
	x, y, rowH int
	full       bool // a letter found no room: reset before the next text
}

// atlas is the batch's source image; see above.
var atlas = newSpriteAtlas()

// letters holds copies of the text's letters (the images package text
// draws them from), so that a text is drawn in one call, not one a
// letter: the letters of a frame are many, each call through ebiten's
// layers costs, and a letter's copy is drawn pixel for pixel as text.Draw
// would draw the letter.
var letters = newSpriteAtlas()

func newSpriteAtlas() *spriteAtlas {
	a := &spriteAtlas{img: ebiten.NewImage(atlasSize, atlasSize)}
	a.reset()
	return a
}

// reset empties the atlas but for its white corner, the batch's plain
// source (batch.vertex samples its middle pixel, 1.5, 1.5).
func (a *spriteAtlas) reset() {
	if recording != nil {
		// The frame's record samples what is there: drawn out first.
		recording.drawOut()
	}
	atlasEpoch++
	a.img.Clear()
	a.img.SubImage(image.Rect(0, 0, 3, 3)).(*ebiten.Image).Fill(color.White)
	a.at = map[spriteKey]image.Point{}
	a.letters = map[*ebiten.Image]image.Point{}
	a.x, a.y, a.rowH = 4, 0, 4
	a.full = false
}

// spriteHalf is half the side of a glyph's square, in whole pixels: room
// for the largest glyph (a star's ring, 2*s beyond its radius) and a
// margin.
func spriteHalf(rad, s float64) int { return int(math.Ceil(math.Abs(rad)+2*s)) + 2 }

// glyph draws a message type's glyph at c into p's batch: copied from
// the atlas, drawn there first if it is not yet.
func (p *painter) glyph(st ui.MsgStyle, c ui.Point, rad float64, fill color.RGBA) {
	qx := math.Round(c.X*spritePhases) / spritePhases
	qy := math.Round(c.Y*spritePhases) / spritePhases
	ix, iy := math.Floor(qx), math.Floor(qy)
	key := spriteKey{st: st, fill: fill, rad: rad, s: p.s, fx: qx - ix, fy: qy - iy}
	h := spriteHalf(rad, p.s)
	side := 2*h + 1
	if side+1 > atlasSize/4 {
		drawGlyph(p, st, c, rad, fill) // far too large to keep
		return
	}
	at, ok := atlas.at[key]
	if !ok {
		at, ok = atlas.place(side)
		if !ok {
			// Full: the batch may still use what is there, so it is
			// drawn out first.
			p.flush()
			atlas.reset()
			at, _ = atlas.place(side)
		}
		atlas.at[key] = at
		sp := &painter{dst: atlas.img, s: p.s, fonts: p.fonts}
		sp.b.src = whiteImage
		drawGlyph(sp, st, ui.Point{X: float64(at.X+h) + key.fx, Y: float64(at.Y+h) + key.fy}, rad, fill)
		sp.flush()
	}
	p.b.sprite(p.dst, image.Rect(at.X, at.Y, at.X+side, at.Y+side), ix-float64(h), iy-float64(h))
}

// place finds room for a side×side square, a pixel apart from the
// others; false if the atlas is full.
func (a *spriteAtlas) place(side int) (image.Point, bool) { return a.placeRect(side, side) }

// placeRect finds room for a w×h rectangle, a pixel apart from the
// others; false if the atlas is full.
func (a *spriteAtlas) placeRect(w, h int) (image.Point, bool) {
	if a.x+w+1 > atlasSize {
		a.x, a.y, a.rowH = 0, a.y+a.rowH, 0
	}
	if a.y+h+1 > atlasSize {
		return image.Point{}, false
	}
	at := image.Point{X: a.x, Y: a.y}
	a.x += w + 1
	a.rowH = max(a.rowH, h+1)
	return at, true
}

// letter returns where the letter image img is copied in the atlas,
// copying it there first if it is not yet; false if it is too large.
func (a *spriteAtlas) letter(img *ebiten.Image) (image.Rectangle, bool) {
	size := img.Bounds().Size()
	if at, ok := a.letters[img]; ok {
		return image.Rectangle{Min: at, Max: at.Add(size)}, true
	}
	if max(size.X, size.Y)+1 > atlasSize/4 {
		return image.Rectangle{}, false
	}
	at, ok := a.placeRect(size.X, size.Y)
	if !ok {
		// Full: the caller draws this letter itself, and the atlas starts
		// again before the next text (the vertices of this one use it).
		a.full = true
		return image.Rectangle{}, false
	}
	a.letters[img] = at
	op := &ebiten.DrawImageOptions{Blend: ebiten.BlendCopy}
	op.GeoM.Translate(float64(at.X-img.Bounds().Min.X), float64(at.Y-img.Bounds().Min.Y))
	a.img.DrawImage(img, op)
	return image.Rectangle{Min: at, Max: at.Add(size)}, true
}
