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
	"github.com/go-text/typesetting/harfbuzz"
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

	mu    sync.Mutex
	face  *font.Face
	hb    *harfbuzz.Font
	buf   *harfbuzz.Buffer
	cache map[cacheKey]float64
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
	return Parse(path, data)
}

// Parse reads a font from its bytes (name says where they came from): a
// font file, or from a collection its Simplified Chinese face if it has
// one. It covers Chinese if it has a glyph for 中.
func Parse(name string, data []byte) (*Font, error) {
	if !bytes.HasPrefix(data, []byte("ttcf")) {
		face, err := font.ParseTTF(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return newFont(name, data, 0, face, hasRune(face, '中')), nil
	}
	lds, err := opentype.NewLoaders(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(lds) == 0 {
		return nil, fmt.Errorf("%s: an empty font collection", name)
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
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	face := &font.Face{Font: ft}
	return newFont(name, data, index, face, hasRune(face, '中')), nil
}

func hasRune(face *font.Face, r rune) bool {
	_, ok := face.NominalGlyph(r)
	return ok
}

// Has reports whether the font has a glyph for r.
func (f *Font) Has(r rune) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return hasRune(f.face, r)
}

// Replace makes f the font g is, in place, so that whoever holds f (the
// layout measures with it) measures in g from now on. The page draws with
// a subset of the font until the command box needs a glyph the subset
// lacks, then replaces it with the whole font, whose advances are the
// same.
func (f *Font) Replace(g *Font) {
	g.mu.Lock()
	name, data, index, face, cjk := g.Name, g.Data, g.Index, g.face, g.CJK
	g.mu.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Name, f.Data, f.Index, f.face, f.CJK = name, data, index, face, cjk
	f.hb, f.buf = harfbuzz.NewFont(face), harfbuzz.NewBuffer()
	clear(f.cache)
}

func newFont(name string, data []byte, index int, face *font.Face, cjk bool) *Font {
	return &Font{Name: name, Data: data, Index: index, face: face, CJK: cjk, cache: map[cacheKey]float64{},
		hb: harfbuzz.NewFont(face), buf: harfbuzz.NewBuffer()}
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
	ws := f.prefixWidths([]rune(s), size)
	w := ws[len(ws)-1]
	if len(f.cache) > 1<<14 {
		clear(f.cache)
	}
	f.cache[k] = w
	return w
}

// PrefixWidths returns, for each n from 0 to the number of runes of s,
// how wide the first n runes are drawn when s is drawn whole at a size
// (a cluster of runes drawn as one glyph counts at its end). Fitting and
// wrapping try many prefixes of one text; this shapes it once.
func (f *Font) PrefixWidths(s string, size float64) []float64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.prefixWidths([]rune(s), size)
}

// scaleShift is go-text's: the shaper scales fonts by 2^6 to keep
// precision.
const scaleShift = 6

// prefixWidths shapes runes as ebiten does (go-text's segmenter, then its
// HarfBuzz port, per run), but reads only the glyphs' advances: the
// shaper's wrapper would also load every glyph's outline for its extents,
// which the window's layout never needs and which costs most of the time.
func (f *Font) prefixWidths(runes []rune, size float64) []float64 {
	out := make([]float64, len(runes)+1)
	if len(runes) == 0 {
		return out
	}
	in := shaping.Input{
		Text: runes, RunStart: 0, RunEnd: len(runes),
		Direction: di.DirectionLTR,
		Face:      f.face,
		Size:      fixed.Int26_6(size * 64),
		Script:    glanguage.Latin, // what ebiten passes for an unset language (und → Latn)
		Language:  glanguage.Language("und"),
	}
	// As shaping.HarfbuzzShaper.Shape: the font at the size's ceiling.
	f.hb.XScale = int32(in.Size.Ceil()) << scaleShift
	f.hb.YScale = f.hb.XScale
	// The advance of each cluster, at the rune that ends it.
	ends := make([]fixed.Int26_6, len(runes)+1)
	var seg shaping.Segmenter
	for _, run := range seg.Split(in, fixedFontmap{f.face}) {
		f.buf.Clear()
		f.buf.AddRunes(runes, run.RunStart, run.RunEnd-run.RunStart)
		f.buf.Props.Direction = run.Direction.Harfbuzz()
		f.buf.Props.Language = run.Language
		f.buf.Props.Script = run.Script
		f.buf.Shape(f.hb, nil)
		for i, info := range f.buf.Info {
			// A cluster ends where the next one starts.
			end := run.RunEnd
			for j := i + 1; j < len(f.buf.Info); j++ {
				if c := f.buf.Info[j].Cluster; c != info.Cluster {
					end = c
					break
				}
			}
			ends[min(len(runes), max(end, info.Cluster+1))] += fixed.I(int(f.buf.Pos[i].XAdvance)) >> scaleShift
		}
	}
	var x fixed.Int26_6
	for i := 1; i <= len(runes); i++ {
		x += ends[i]
		out[i] = float64(x) / 64
	}
	return out
}

// fixedFontmap gives every rune the one face, as ebiten does.
type fixedFontmap struct{ face *font.Face }

func (m fixedFontmap) ResolveFace(rune) *font.Face { return m.face }
