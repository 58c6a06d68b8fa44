package render

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/hajimehoshi/ebiten/v2/text/v2"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
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

// Fonts are the faces the window draws text with, at its scale.
type Fonts struct {
	Source *text.GoTextFaceSource
	Name   string // which font was found, for --version and the tests
	CJK    bool   // it covers Chinese

	Small, Normal, Big *text.GoTextFace
	// Mono is the command box's face: Go Mono, so that etcdctl's tables
	// line up, falling back to the main font for what it lacks (Chinese).
	Mono text.Face
}

// LoadFonts finds a CJK font (RAFTSIM_FONT names one explicitly) and falls
// back to the embedded Go font, which covers Latin only. latinOnly skips
// the search; the tests use it to draw what a missing CJK font looks like.
func LoadFonts(scale float64, latinOnly bool) (*Fonts, error) {
	f := &Fonts{}
	if !latinOnly {
		paths := CJKFontPaths
		if p := os.Getenv("RAFTSIM_FONT"); p != "" {
			paths = append([]string{p}, paths...)
		}
		for _, p := range paths {
			src, err := loadFontFile(p)
			if err == nil {
				f.Source, f.Name, f.CJK = src, p, true
				break
			}
		}
	}
	if f.Source == nil {
		src, err := text.NewGoTextFaceSource(bytes.NewReader(goregular.TTF))
		if err != nil {
			return nil, fmt.Errorf("loading the embedded Go font: %w", err)
		}
		f.Source, f.Name = src, "Go Regular (embedded, Latin only)"
	}
	f.Small = &text.GoTextFace{Source: f.Source, Size: 11 * scale}
	f.Normal = &text.GoTextFace{Source: f.Source, Size: 13 * scale}
	f.Big = &text.GoTextFace{Source: f.Source, Size: 17 * scale}
	mono, err := text.NewGoTextFaceSource(bytes.NewReader(gomono.TTF))
	if err != nil {
		return nil, fmt.Errorf("loading the embedded Go Mono font: %w", err)
	}
	f.Mono, err = text.NewMultiFace(&text.GoTextFace{Source: mono, Size: 11 * scale}, f.Small)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// loadFontFile reads a font or a font collection. From a collection it
// takes the Simplified Chinese face if there is one.
func loadFontFile(path string) (*text.GoTextFaceSource, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(strings.ToLower(path), ".ttc") {
		return text.NewGoTextFaceSource(bytes.NewReader(data))
	}
	srcs, err := text.NewGoTextFaceSourcesFromCollection(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if len(srcs) == 0 {
		return nil, fmt.Errorf("%s: an empty font collection", path)
	}
	for _, s := range srcs {
		if strings.Contains(s.Metadata().Family, " SC") {
			return s, nil
		}
	}
	return srcs[0], nil
}
