package render

import (
	"bytes"
	"fmt"
	"math"

	"github.com/hajimehoshi/ebiten/v2/text/v2"
	"golang.org/x/image/font/gofont/gomono"

	"github.com/raftsim/raftsim/render/typeface"
	"github.com/raftsim/raftsim/render/ui"
)

// Fonts are the faces the window draws text with. The font is the one
// package typeface finds (and measures text in for the layout); a face is
// made for each size the layout asks for.
type Fonts struct {
	Font   *typeface.Font // the font file, and its measure
	Source *text.GoTextFaceSource
	Name   string // which font was found, for the screenshot's report and the tests
	CJK    bool   // it covers Chinese

	// Small, Normal and Big are the faces at the layout's three sizes,
	// and Mono the command box's: Go Mono, so that etcdctl's tables line
	// up, falling back to the main font for what it lacks (Chinese). Use
	// sets them for a layout.
	Small, Normal, Big *text.GoTextFace
	Mono               text.Face

	mono   *text.GoTextFaceSource
	layout ui.Layout // the layout of the last Use
	faces  map[float64]*text.GoTextFace
	monos  map[float64]text.Face
}

// LoadFonts loads the font package typeface finds: a CJK font
// (RAFTSIM_FONT names one explicitly), else the embedded Go font, which
// covers Latin only. latinOnly skips the search; the tests use it to draw
// what a missing CJK font looks like.
func LoadFonts(latinOnly bool) (*Fonts, error) {
	tf, err := typeface.Find(latinOnly)
	if err != nil {
		return nil, err
	}
	return LoadFontsFrom(tf)
}

// LoadFontsFrom makes the window's fonts of a font already read (the web
// page fetches its own).
func LoadFontsFrom(tf *typeface.Font) (*Fonts, error) {
	f := &Fonts{Font: tf, faces: map[float64]*text.GoTextFace{}, monos: map[float64]text.Face{}}
	if err := f.load(); err != nil {
		return nil, err
	}
	mono, err := text.NewGoTextFaceSource(bytes.NewReader(gomono.TTF))
	if err != nil {
		return nil, fmt.Errorf("loading the embedded Go Mono font: %w", err)
	}
	f.mono = mono
	f.Use(ui.ComputeLayout(1280, 800, 1))
	return f, nil
}

// load makes the face source of f.Font.
func (f *Fonts) load() error {
	tf := f.Font
	f.Name, f.CJK = tf.Name, tf.CJK
	var err error
	if tf.Index == 0 && !bytes.HasPrefix(tf.Data, []byte("ttcf")) {
		f.Source, err = text.NewGoTextFaceSource(bytes.NewReader(tf.Data))
	} else {
		var srcs []*text.GoTextFaceSource
		srcs, err = text.NewGoTextFaceSourcesFromCollection(bytes.NewReader(tf.Data))
		if err == nil && tf.Index < len(srcs) {
			f.Source = srcs[tf.Index]
		} else if err == nil {
			err = fmt.Errorf("%s: no face %d in the collection", tf.Name, tf.Index)
		}
	}
	if err != nil {
		return fmt.Errorf("loading %s: %w", tf.Name, err)
	}
	return nil
}

// Replace draws and measures with g from now on, in place of the font
// (see typeface.Font.Replace): the page's subset gives way to the whole
// font. Call it between frames.
func (f *Fonts) Replace(g *typeface.Font) error {
	f.Font.Replace(g)
	if err := f.load(); err != nil {
		return err
	}
	clear(f.faces)
	clear(f.monos)
	f.Use(f.layout)
	return nil
}

// Face returns the face at a size in pixels.
func (f *Fonts) Face(size float64) *text.GoTextFace {
	size = math.Round(size*4) / 4
	if fc, ok := f.faces[size]; ok {
		return fc
	}
	fc := &text.GoTextFace{Source: f.Source, Size: size}
	f.faces[size] = fc
	return fc
}

// MonoFace returns the command box's face at a size.
func (f *Fonts) MonoFace(size float64) text.Face {
	if fc, ok := f.monos[size]; ok {
		return fc
	}
	fc, err := text.NewMultiFace(&text.GoTextFace{Source: f.mono, Size: size}, f.Face(size))
	if err != nil {
		return f.Face(size)
	}
	f.monos[size] = fc
	return fc
}

// Use sets Small, Normal, Big and Mono to a layout's sizes.
func (f *Fonts) Use(l ui.Layout) {
	f.layout = l
	f.Small, f.Normal, f.Big = f.Face(l.Small), f.Face(l.Normal), f.Face(l.Big)
	f.Mono = f.MonoFace(l.MonoSize())
}
