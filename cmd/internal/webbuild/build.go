// Package webbuild builds raftsim's web page (`make web`): the window
// (cmd/raftsim-gui) for js/wasm, compressed with xz, Go's wasm_exec.js,
// and the page's two fonts, beside the page's own static files
// (web/index.html, and xz-decompress.min.js, which unpacks the program in
// the page).
//
// Why xz: the program is about 40 MB of WebAssembly, 7.8 MB gzipped and
// 5.1 MB as xz; the page unpacks it as it arrives (xz-decompress 0.2.3,
// from npm: xz-embedded compiled to WebAssembly, 20 kB), so that it is
// small on the wire whatever the server, and no file of the folder is
// large.
//
// The fonts are Noto Sans CJK SC, the face the desktop window draws with,
// so that the page lays text out exactly as the window does:
//   - fonts/ui.otf holds only the glyphs the window and the lessons use
//     (Glyphs computes them from the sources at each build);
//   - fonts/full.otf.gz holds every Chinese character (and Latin, Greek,
//     Cyrillic, kana and the symbols), and the page fetches it only when
//     text needs a glyph ui.otf lacks: something typed into the command
//     box, or a link's scenario.
//
// raft's source (package raftsrc's archive, which the wasm leaves out) is
// raft-source.tar.gz beside the page, fetched the first time a why card
// opens.
//
// Subsetting uses fontTools' pyftsubset (Debian's fonttools).
package webbuild

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/raftsim/raftsim/raftsrc"
	"github.com/raftsim/raftsim/render/typeface"
)

// StaticFiles are the page's own files, kept in git in web/.
var StaticFiles = []string{"index.html", "xz-decompress.min.js"}

// BuiltFiles are the files Build writes beside them. They are not kept in
// git: .gitignore names each (TestBuiltFilesAreIgnored), so that `make web`
// leaves a clean clone clean.
var BuiltFiles = []string{wasmFile, "wasm_exec.js", uiFont, fullFont, raftsrc.WebFile}

const (
	wasmFile = "raftsim.wasm.xz"
	uiFont   = "fonts/ui.otf"
	fullFont = "fonts/full.otf.gz"
)

// GoBuildFlags are the flags the wasm is built with. -s -w drop the
// symbol table and DWARF. Inlining is off except in raftsim's own
// packages and raft, which the simulation spends its time in: the
// inlined copies elsewhere (ebiten, go-text, protobuf) cost about 0.7 MB
// of the gzipped download for no speed that shows.
var GoBuildFlags = []string{"-trimpath", "-ldflags=-s -w",
	"-gcflags=all=-l", "-gcflags=" + modulePath + "/...=", "-gcflags=go.etcd.io/raft/v3/...="}

// FullFontRanges are the code points of fonts/full.otf.gz: Latin, Greek
// and Cyrillic, the general punctuation and symbols, CJK punctuation,
// kana, bopomofo, the CJK Unified Ideographs (all of GB 2312 and GBK's,
// 20,992 characters) and the compatibility and full-width forms. Hangul
// and the rare extensions (A, B...) are left out: they would double it.
const FullFontRanges = "U+0000-052F,U+1E00-1EFF,U+2000-2BFF,U+3000-30FF,U+3100-312F,U+31F0-31FF,U+3200-33FF,U+4E00-9FFF,U+F900-FAFF,U+FE10-FE1F,U+FE30-FE4F,U+FF00-FFEF"

// Options say what to build.
type Options struct {
	Root string    // the module's root
	Out  string    // the folder to write (Root/web for make web)
	Font string    // the CJK font to subset; "" is the one the window finds
	Log  io.Writer // progress, one line a step; nil for none
	// NoWasm skips the program (for the fonts' tests).
	NoWasm bool
}

// Build writes the page into o.Out and returns what each file weighs.
func Build(o Options) (Sizes, error) {
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format+"\n", args...)
		}
	}
	if err := os.MkdirAll(filepath.Join(o.Out, "fonts"), 0o755); err != nil {
		return nil, err
	}
	src := filepath.Join(o.Root, "web")
	if abs(src) != abs(o.Out) {
		for _, f := range StaticFiles {
			if err := copyFile(filepath.Join(src, f), filepath.Join(o.Out, f)); err != nil {
				return nil, err
			}
		}
	}
	if !o.NoWasm {
		logf("building the window for js/wasm")
		if err := buildWasm(o.Root, o.Out); err != nil {
			return nil, err
		}
		goroot, err := goEnv(o.Root, "GOROOT")
		if err != nil {
			return nil, err
		}
		if err := copyFile(filepath.Join(goroot, "lib", "wasm", "wasm_exec.js"), filepath.Join(o.Out, BuiltFiles[1])); err != nil {
			return nil, err
		}
	}
	if err := BuildFonts(o, logf); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(o.Out, raftsrc.WebFile), raftsrc.Archive(), 0o644); err != nil {
		return nil, err
	}
	return Measure(o.Out)
}

// BuildFonts writes fonts/ui.otf and fonts/full.otf.gz into o.Out.
func BuildFonts(o Options, logf func(string, ...any)) error {
	font, err := cjkFont(o.Font)
	if err != nil {
		return err
	}
	glyphs, err := Glyphs(o.Root)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(o.Out, "fonts"), 0o755); err != nil {
		return err
	}
	logf("subsetting %s to the %d glyphs the window and the lessons use", font.Name, len(glyphs))
	tmp, err := os.MkdirTemp("", "raftsim-webfont-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	text := filepath.Join(tmp, "glyphs.txt")
	if err := os.WriteFile(text, []byte(string(glyphs)), 0o644); err != nil {
		return err
	}
	if err := subset(font, filepath.Join(o.Out, filepath.FromSlash(uiFont)), "--text-file="+text); err != nil {
		return err
	}
	// The whole font depends only on the font file: it is kept in the
	// user's cache, as the Go build cache keeps compiled packages.
	full := filepath.Join(o.Out, filepath.FromSlash(fullFont))
	key := fontKey(font)
	cached := ""
	if dir, err := os.UserCacheDir(); err == nil {
		cached = filepath.Join(dir, "raftsim", "webfont-"+key+".otf.gz")
		if copyFile(cached, full) == nil {
			logf("the whole font: %s (cached)", cached)
			return nil
		}
	}
	logf("subsetting %s to the whole Chinese font (fonts/full.otf.gz; a minute or two, once)", font.Name)
	otf := filepath.Join(tmp, "full.otf")
	if err := subset(font, otf, "--unicodes="+FullFontRanges); err != nil {
		return err
	}
	if err := gzipFile(otf, full); err != nil {
		return err
	}
	if cached != "" && os.MkdirAll(filepath.Dir(cached), 0o755) == nil {
		_ = copyFile(full, cached)
	}
	return nil
}

// cjkFont returns the font file to subset: path, or the CJK font the
// window finds (typeface.Find).
func cjkFont(path string) (*typeface.Font, error) {
	var f *typeface.Font
	var err error
	if path != "" {
		f, err = typeface.Load(path)
	} else {
		f, err = typeface.Find(false)
	}
	if err != nil {
		return nil, err
	}
	if !f.CJK || f.Data == nil || strings.HasPrefix(f.Name, "Go ") {
		return nil, fmt.Errorf("no CJK font found (looked for %s): install fonts-noto-cjk (.ci/deps.sh does), or set RAFTSIM_FONT", strings.Join(typeface.CJKFontPaths, ", "))
	}
	return f, nil
}

// subset runs pyftsubset on one face of the font with the given glyph
// selection, keeping every layout feature (the window shapes text with
// them, and widths must match the desktop's).
func subset(font *typeface.Font, out string, selection string) error {
	prog, err := exec.LookPath("pyftsubset")
	if err != nil {
		return fmt.Errorf("pyftsubset is not installed (Debian: apt-get install fonttools; .ci/deps.sh does): %v", err)
	}
	cmd := exec.Command(prog, font.Name, fmt.Sprintf("--font-number=%d", font.Index), selection,
		"--layout-features=*", "--output-file="+out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pyftsubset: %v\n%s", err, msg)
	}
	return nil
}

// fontKey names the whole font made of a font file: its hash, the face
// and the ranges.
func fontKey(font *typeface.Font) string {
	h := sha256.New()
	h.Write(font.Data)
	fmt.Fprintf(h, "\x00%d\x00%s", font.Index, FullFontRanges)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func buildWasm(root, out string) error {
	tmp, err := os.MkdirTemp("", "raftsim-wasm-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	wasm := filepath.Join(tmp, "raftsim.wasm")
	args := append([]string{"build"}, GoBuildFlags...)
	args = append(args, "-o", wasm, "./cmd/raftsim-gui")
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build for js/wasm: %v\n%s", err, msg)
	}
	return xzFile(wasm, filepath.Join(out, wasmFile))
}

// xzFile compresses src with xz to dst: the strongest preset, one thread
// (one block, the best ratio), and CRC32, which xz-embedded checks.
func xzFile(src, dst string) error {
	prog, err := exec.LookPath("xz")
	if err != nil {
		return fmt.Errorf("xz is not installed (Debian: xz-utils; .ci/deps.sh installs it): %v", err)
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	cmd := exec.Command(prog, "-9e", "-T1", "--check=crc32", "--stdout", src)
	cmd.Stdout = out
	var msg bytes.Buffer
	cmd.Stderr = &msg
	err = cmd.Run()
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("xz: %v %s", err, msg.String())
	}
	return nil
}

func goEnv(root, name string) (string, error) {
	cmd := exec.Command("go", "env", name)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// gzipFile writes src gzipped, at the best compression, to dst.
func gzipFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression) // a valid level
	zw.Write(data)
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(dst, b.Bytes(), 0o644)
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

func abs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}
