// Package typeface finds the font the window draws its text with, and
// measures text in it, without a display. The window (package render)
// draws with the same font file through ebiten, which shapes text with
// the same shaper (go-text's HarfBuzz port), so a width measured here is
// the width drawn there; the layout (package render/ui) and its tests
// measure text here, for real, instead of estimating it.
package typeface

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/go-text/typesetting/di"
	"github.com/go-text/typesetting/font"
	"github.com/go-text/typesetting/font/opentype"
	glanguage "github.com/go-text/typesetting/language"
	"github.com/go-text/typesetting/shaping"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/math/fixed"
)

// CJKFontPaths are where a font covering Chinese, Japanese and Korean is
// looked for, in order. fonts-noto-cjk (installed by .ci/deps.sh) puts
// Noto Sans CJK at the first path.
var CJKFontPaths = []string{
	"/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
	"/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
	"/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
	"/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
	"/System/Library/Fonts/PingFang.ttc",
	"C:\\Windows\\Fonts\\msyh.ttc",
}

// Font is the font the window draws with: a font file (or one face of a
// collection), and a measure of text in it.
type Font struct {
	Name  string // the file it came from, or the embedded Go font
	CJK   bool   // it covers Chinese
	Data  []byte // the file's bytes, for ebiten to draw with
	Index int    // which face of a collection (.ttc) it is

	mu     sync.Mutex
	face   *font.Face
	shaper shaping.HarfbuzzShaper
	cache  map[cacheKey]float64
}

type cacheKey struct {
	s    string
	size float64
}

// Find returns the font the window draws with: the file RAFTSIM_FONT
// names, else the first CJK font of CJKFontPaths, else the embedded Go
// font, which covers Latin only. latinOnly skips the search (to see what
// a machine without a CJK font shows).
func Find(latinOnly bool) (*Font, error) {
	if !latinOnly {
		paths := CJKFontPaths
		if p := os.Getenv("RAFTSIM_FONT"); p != "" {
			paths = append([]string{p}, paths...)
		}
		for _, p := range paths {
			if f, err := Load(p); err == nil {
				return f, nil
			}
		}
	}
	return Embedded()
}

// Embedded returns the embedded Go font.
func Embedded() (*Font, error) {
	face, err := font.ParseTTF(bytes.NewReader(goregular.TTF))
	if err != nil {
		return nil, fmt.Errorf("loading the embedded Go font: %w", err)
	}
	return newFont("Go Regular (embedded, Latin only)", goregular.TTF, 0, face, false), nil
}

// Load reads a font file, or from a collection (.ttc) its Simplified
// Chinese face if it has one.
func Load(path string) (*Font, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(strings.ToLower(path), ".ttc") {
		face, err := font.ParseTTF(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return newFont(path, data, 0, face, true), nil
	}
	lds, err := opentype.NewLoaders(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(lds) == 0 {
		return nil, fmt.Errorf("%s: an empty font collection", path)
	}
	index := 0
	for i, ld := range lds {
		if d, _ := font.Describe(ld, nil); strings.Contains(d.Family, " SC") {
			index = i
			break
		}
	}
	ft, err := font.NewFont(lds[index])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return newFont(path, data, index, &font.Face{Font: ft}, true), nil
}

func newFont(name string, data []byte, index int, face *font.Face, cjk bool) *Font {
	f := &Font{Name: name, Data: data, Index: index, face: face, CJK: cjk, cache: map[cacheKey]float64{}}
	f.shaper.SetFontCacheSize(4)
	return f
}

// Advance returns how wide s is drawn at a font size (in pixels): the sum
// of its shaped glyphs' advances, as ebiten's text.Advance computes it.
func (f *Font) Advance(s string, size float64) float64 {
	if s == "" {
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	k := cacheKey{s, size}
	if w, ok := f.cache[k]; ok {
		return w
	}
	runes := []rune(s)
	in := shaping.Input{
		Text: runes, RunStart: 0, RunEnd: len(runes),
		Direction: di.DirectionLTR,
		Face:      f.face,
		Size:      fixed.Int26_6(size * 64),
		Script:    glanguage.Latin, // what ebiten passes for an unset language (und → Latn)
		Language:  glanguage.Language("und"),
	}
	var seg shaping.Segmenter
	var adv fixed.Int26_6
	for _, run := range seg.Split(in, fixedFontmap{f.face}) {
		adv += f.shaper.Shape(run).Advance
	}
	w := float64(adv) / 64
	if len(f.cache) > 1<<14 {
		clear(f.cache)
	}
	f.cache[k] = w
	return w
}

// fixedFontmap gives every rune the one face, as ebiten does.
type fixedFontmap struct{ face *font.Face }

func (m fixedFontmap) ResolveFace(rune) *font.Face { return m.face }
