package ui

import (
	"sync"

	"github.com/raftsim/raftsim/render/typeface"
)

var (
	fontOnce sync.Once
	font     *typeface.Font
)

// WindowFont returns the font the window draws with (see package
// typeface), loaded once: the layout measures text in it.
func WindowFont() *typeface.Font {
	fontOnce.Do(func() {
		f, err := typeface.Find(false)
		if err != nil {
			// The embedded font is compiled in; it cannot fail to load
			// unless the binary is broken.
			panic(err)
		}
		font = f
	})
	return font
}
