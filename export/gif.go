package export

import (
	"bufio"
	"bytes"
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
	return StreamGIF(out, len(frames), func(i int) (image.Image, error) { return frames[i], nil }, delay)
}

// StreamGIF is GIF for n frames that frame(i) reads, one at a time (from
// files, say), twice: once for the palette, once to encode. It holds one
// frame at a time, so that the GIF of thousands of frames takes the
// memory of one. Every frame must be the size of the first.
func StreamGIF(out io.Writer, n int, frame func(i int) (image.Image, error), delay time.Duration) error {
	if n == 0 {
		return fmt.Errorf("no frames")
	}
	counts := make([]int, 1<<15)
	var size image.Rectangle
	for i := range n {
		f, err := frame(i)
		if err != nil {
			return err
		}
		if i == 0 {
			size = f.Bounds()
		} else if f.Bounds() != size {
			return fmt.Errorf("frame %d is %v, not %v as the first", i, f.Bounds(), size)
		}
		countColours(counts, f)
	}
	pal := paletteOf(counts)
	index := make([]int16, 1<<15) // 15-bit colour → palette index + 1
	d := max(int(delay/(10*time.Millisecond)), 2)
	bw := bufio.NewWriter(out)
	var buf bytes.Buffer
	for i := range n {
		f, err := frame(i)
		if err != nil {
			return err
		}
		p := image.NewPaletted(size, pal)
		for y := size.Min.Y; y < size.Max.Y; y++ {
			for x := size.Min.X; x < size.Max.X; x++ {
				k := key15(f.At(x, y))
				if index[k] == 0 {
					index[k] = int16(pal.Index(unkey15(k))) + 1
				}
				p.Pix[p.PixOffset(x, y)] = uint8(index[k] - 1)
			}
		}
		// Each frame is encoded as a GIF of its own with the shared palette
		// as its global table, and its image block is spliced in: the
		// header, the screen and the table once, then the loop, then each
		// frame's block, then the trailer.
		buf.Reset()
		err = gif.EncodeAll(&buf, &gif.GIF{Image: []*image.Paletted{p}, Delay: []int{d},
			Config: image.Config{ColorModel: pal, Width: size.Dx(), Height: size.Dy()}})
		if err != nil {
			return err
		}
		b := buf.Bytes()
		start := 13 // "GIF89a" and the logical screen descriptor
		if packed := b[10]; packed&0x80 != 0 {
			start += 3 << (packed&7 + 1) // the global colour table
		}
		if i == 0 {
			bw.Write(b[:start])
			// NETSCAPE2.0: loop for ever.
			bw.Write([]byte{0x21, 0xff, 0x0b, 'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0', 0x03, 0x01, 0, 0, 0})
		}
		bw.Write(b[start : len(b)-1]) // less the trailer
	}
	bw.WriteByte(0x3b)
	return bw.Flush()
}

// countColours counts the colours of f, every other pixel of every other
// row, at 5 bits a channel.
func countColours(counts []int, f image.Image) {
	b := f.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			counts[key15(f.At(x, y))]++
		}
	}
}

// paletteOf returns the 256 colours counted most.
func paletteOf(counts []int) color.Palette {
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
