package export_test

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"testing"
	"time"

	"github.com/raftsim/raftsim/export"
)

func TestGIFKeepsFramesAndColours(t *testing.T) {
	var frames []image.Image
	for i := range 3 {
		img := image.NewRGBA(image.Rect(0, 0, 40, 30))
		for y := range 30 {
			for x := range 40 {
				img.Set(x, y, color.RGBA{0xf8, 0xf8, 0xf8, 0xff})
			}
		}
		for x := 10 * i; x < 10*i+10; x++ { // a square that moves
			for y := 10; y < 20; y++ {
				img.Set(x, y, color.RGBA{0x00, 0x72, 0xb2, 0xff})
			}
		}
		frames = append(frames, img)
	}
	var b bytes.Buffer
	if err := export.GIF(&b, frames, 150*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Image) != 3 || g.Delay[0] != 15 {
		t.Fatalf("%d frames, delay %v", len(g.Image), g.Delay)
	}
	for i, img := range g.Image {
		r, gg, bb, _ := img.At(10*i+5, 15).RGBA()
		if r>>8 != 0x00 || gg>>8 != 0x73 || bb>>8 != 0xb5 { // 0x72, 0xb2 at 5 bits a channel
			t.Errorf("frame %d: the square is %02x%02x%02x", i, r>>8, gg>>8, bb>>8)
		}
		if r, _, _, _ := img.At(10*i+15, 5).RGBA(); r>>8 != 0xff {
			t.Errorf("frame %d: the background is not light: %x", i, r>>8)
		}
	}
}

// StreamGIF writes what gif.EncodeAll writes of the same frames with the
// same palette: the same images, delays and loop.
func TestStreamGIFIsAGIF(t *testing.T) {
	var frames []image.Image
	for i := range 5 {
		img := image.NewRGBA(image.Rect(0, 0, 33, 21))
		for y := range 21 {
			for x := range 33 {
				img.Set(x, y, color.RGBA{uint8(32 * ((x/2 + i) % 8)), uint8(64 * (y / 2 % 4)), uint8(40 * i), 0xff}) // 160 colours, in 2x2 blocks as the palette samples them
			}
		}
		frames = append(frames, img)
	}
	var b bytes.Buffer
	if err := export.GIF(&b, frames, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Image) != 5 || g.LoopCount != 0 || g.Config.Width != 33 || g.Config.Height != 21 {
		t.Fatalf("%d frames, loop %d, %dx%d", len(g.Image), g.LoopCount, g.Config.Width, g.Config.Height)
	}
	for i, img := range g.Image {
		if g.Delay[i] != 10 {
			t.Fatalf("frame %d: delay %d", i, g.Delay[i])
		}
		for y := range 21 {
			for x := range 33 {
				want := frames[i].At(x, y).(color.RGBA)
				r, gg, bb, _ := img.At(x, y).RGBA()
				if r>>11 != uint32(want.R)>>3 || gg>>11 != uint32(want.G)>>3 || bb>>11 != uint32(want.B)>>3 {
					t.Fatalf("frame %d (%d,%d): %x %x %x, want %v", i, x, y, r>>8, gg>>8, bb>>8, want)
				}
			}
		}
	}
}
