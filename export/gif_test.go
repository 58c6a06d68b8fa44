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
