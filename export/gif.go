package export

import (
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"io"
	"slices"
	"time"
)

// GIF writes frames as an animated GIF, each shown for delay (at least
// 20ms, in GIF's hundredths of a second), looping. The window draws in
// flat colours, so one palette of the 256 colours the frames use most (at
// 5 bits a channel), shared by all frames, shows them without dithering.
func GIF(out io.Writer, frames []image.Image, delay time.Duration) error {
	if len(frames) == 0 {
		return fmt.Errorf("no frames")
	}
	pal := palette(frames)
	index := make([]int16, 1<<15) // 15-bit colour → palette index + 1
	anim := &gif.GIF{LoopCount: 0}
	d := max(int(delay/(10*time.Millisecond)), 2)
	for _, f := range frames {
		b := f.Bounds()
		p := image.NewPaletted(b, pal)
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				k := key15(f.At(x, y))
				if index[k] == 0 {
					index[k] = int16(pal.Index(unkey15(k))) + 1
				}
				p.Pix[p.PixOffset(x, y)] = uint8(index[k] - 1)
			}
		}
		anim.Image = append(anim.Image, p)
		anim.Delay = append(anim.Delay, d)
	}
	return gif.EncodeAll(out, anim)
}

// palette returns the 256 colours that the frames use most.
func palette(frames []image.Image) color.Palette {
	counts := make([]int, 1<<15)
	for _, f := range frames {
		b := f.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y += 2 {
			for x := b.Min.X; x < b.Max.X; x += 2 {
				counts[key15(f.At(x, y))]++
			}
		}
	}
	var used []int
	for k, n := range counts {
		if n > 0 {
			used = append(used, k)
		}
	}
	// Most used first; ties by colour, so that the palette is the same
	// every time.
	slices.SortFunc(used, func(a, b int) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		return a - b
	})
	pal := color.Palette{}
	for _, k := range used[:min(len(used), 256)] {
		pal = append(pal, unkey15(k))
	}
	return pal
}

func key15(c color.Color) int {
	r, g, b, _ := c.RGBA()
	return int(r>>11)<<10 | int(g>>11)<<5 | int(b>>11)
}

func unkey15(k int) color.RGBA {
	ch := func(v int) uint8 { return uint8(v<<3 | v>>2) }
	return color.RGBA{ch(k >> 10 & 31), ch(k >> 5 & 31), ch(k & 31), 0xff}
}
