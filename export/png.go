package export

import (
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
)

// ReadPNG reads a PNG file as RGBA, the form the window's frames are
// compared and encoded in. The one PNG reader of the module: the GIF
// export's frames, the GUI tests' screenshots and make screens-same all
// use it.
func ReadPNG(path string) (*image.RGBA, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if rgba, ok := img.(*image.RGBA); ok {
		return rgba, nil
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	return rgba, nil
}
