package guitest

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/raftsim/raftsim/export"
	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/render/guitest/ocrmatch"
	"github.com/raftsim/raftsim/render/ui"
	"github.com/raftsim/raftsim/scenarios"
)

// The lesson walk: every lesson in the library, in both languages, is
// stepped through in presenter mode in the real window, in the projector
// layout at 1920x1080 (PageDown, as a clicker sends it, from the picker
// through every lesson to the last), and each screenshot is read back
// with OCR. Every narrative step that
// `raftsim run NAME` prints must be on screen, in order, as text a class
// can read; a question must be shown with the caption that led to it; the
// end must say so.

// narrativeStep is one caption line of a transcript.
type narrativeStep struct{ kind, text string }

var (
	captionLine = regexp.MustCompile(`──\s+(say|pause|chapter): (.*)$`)
	// walkLine is what raftsim-gui --walk says of each picture.
	walkLine = regexp.MustCompile(`^(\S+) (step (\d+) of \d+|end) at \S+; caption area (\S+) (\S+) (\S+) (\S+)$`)
)

// transcriptSteps runs `raftsim run NAME -q` and returns its captions.
func transcriptSteps(t *testing.T, name, lang string) []narrativeStep {
	t.Helper()
	out, err := exec.Command(filepath.Join(bins(t), "raftsim"), "run", name, "-q", "--lang", lang).Output()
	if err != nil {
		t.Fatalf("raftsim run %s: %v", name, err)
	}
	var steps []narrativeStep
	runs := 0
	for _, line := range strings.Split(string(out), "\n") {
		// A compare lesson's transcript has a run for each pane; the
		// window plays the first (docs/gui.md).
		if strings.HasPrefix(line, "=== ") {
			if runs++; runs > 1 {
				break
			}
		}
		if m := captionLine.FindStringSubmatch(line); m != nil {
			steps = append(steps, narrativeStep{m[1], m[2]})
		}
	}
	return steps
}

// needTesseract skips (or, with RAFTSIM_REQUIRE_GUI=1, fails) without
// tesseract and its Chinese data.
func needTesseract(t *testing.T) {
	t.Helper()
	out, err := exec.Command("tesseract", "--list-langs").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "chi_sim") || !strings.Contains(string(out), "eng") {
		if os.Getenv("RAFTSIM_REQUIRE_GUI") == "1" {
			t.Fatalf("tesseract with eng and chi_sim is needed (make deps installs tesseract-ocr and tesseract-ocr-chi-sim): %v %s", err, out)
		}
		t.Skip("tesseract-ocr (with chi_sim) is not installed")
	}
}

// picture is one screenshot of the walk: a step of a lesson, or its end.
type picture struct {
	lesson string
	step   int // 1-based; 0 for the end
	png    string
	area   ui.Rect // where the caption area is
}

// walkAll walks every lesson in one language and returns its pictures.
func walkAll(t *testing.T, lang string) []picture {
	t.Helper()
	dir := filepath.Join(t.TempDir(), lang)
	// As in front of a class: the projector layout at 1920x1080.
	cmd := exec.Command(filepath.Join(bins(t), "raftsim-gui"), "play", "--lang", lang, "--walk", dir,
		"--size", "1920x1080", "--present")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("raftsim-gui play --walk (%s): %v\n%s", lang, err, out)
	}
	var pics []picture
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := walkLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		p := picture{lesson: m[1], png: filepath.Join(dir, m[1], "end.png")}
		if m[3] != "" {
			p.step, _ = strconv.Atoi(m[3])
			p.png = filepath.Join(dir, m[1], fmt.Sprintf("step-%03d.png", p.step))
		}
		for i, f := range []*float64{&p.area.X, &p.area.Y, &p.area.W, &p.area.H} {
			*f, _ = strconv.ParseFloat(m[4+i], 64)
		}
		pics = append(pics, p)
	}
	return pics
}

// ocrScale is how much a caption area is scaled up (bilinear) before
// OCR. Tesseract reads 13px text badly, but the projector layout's 30px
// captions well as they are. (Measured here: the window at 1280x800 needed
// twice, and still misread about one Chinese character in six; at
// 1920x1080 in the projector layout, as they are, one in fifty, for half
// the work.)
const ocrScale = 1

// ocrDark is the luminance under which a pixel is text: every fill of the
// caption area is lighter, every text colour darker. A grey pixel counts
// as text up to ocrGrey: the panel is lighter still, and the coloured
// bands (yellow, pale green, pale blue) are not grey.
const (
	ocrDark = 175
	ocrGrey = 225
)

// prepare crops the caption area out of a screenshot, scales it up
// (bilinear) and makes it black text on white: tesseract misses text on a
// coloured band altogether. It is cut to the width of the text, since
// tesseract's time grows with the pixels it is given.
func prepare(img *image.RGBA, r ui.Rect) *image.Gray {
	x0, y0 := int(r.X), int(r.Y)
	w, h := int(r.W), int(r.H)
	lum := func(x, y int) float64 {
		c := img.RGBAAt(min(x, x0+w-1), min(y, y0+h-1))
		l := 0.299*float64(c.R) + 0.587*float64(c.G) + 0.114*float64(c.B)
		if hi, lo := max(c.R, c.G, c.B), min(c.R, c.G, c.B); hi-lo < 24 && l < ocrGrey {
			// A grey pixel darker than the panel: a grey letter's edge
			// (the caption that led to a question is drawn in grey).
			l = min(l, ocrDark-1)
		}
		return l
	}
	right := x0
	for y := y0 + 2; y < y0+h-2; y++ {
		for x := x0 + 2; x < x0+w-2; x++ {
			if lum(x, y) < ocrDark {
				right = max(right, x)
			}
		}
	}
	w = min(w, right-x0+12)
	k := ocrScale
	out := image.NewGray(image.Rect(0, 0, w*k, h*k))
	for y := 0; y < h*k; y++ {
		for x := 0; x < w*k; x++ {
			fx := max(0, (float64(x)+0.5)/float64(k)-0.5)
			fy := max(0, (float64(y)+0.5)/float64(k)-0.5)
			ix, iy := int(fx), int(fy)
			ax, ay := fx-float64(ix), fy-float64(iy)
			l := (1-ax)*(1-ay)*lum(x0+ix, y0+iy) + ax*(1-ay)*lum(x0+ix+1, y0+iy) +
				(1-ax)*ay*lum(x0+ix, y0+iy+1) + ax*ay*lum(x0+ix+1, y0+iy+1)
			v := uint8(255)
			if l < ocrDark {
				v = 0
			}
			out.SetGray(x, y, color.Gray{Y: v})
		}
	}
	return out
}

// readAll stacks the prepared pictures into one image, with white space
// between them, reads it with one run of tesseract (which costs less
// than starting it once a picture), and returns the text of each, told
// apart by where tesseract found each word.
func readAll(pics []*image.Gray, lang, path string) ([]string, error) {
	const gap = 40
	w, h := 0, 0
	tops := make([]int, len(pics))
	for i, p := range pics {
		tops[i] = h
		w = max(w, p.Bounds().Dx())
		h += p.Bounds().Dy() + gap
	}
	all := image.NewGray(image.Rect(0, 0, w, h))
	for i := range all.Pix {
		all.Pix[i] = 255
	}
	for i, p := range pics {
		b := p.Bounds()
		for y := 0; y < b.Dy(); y++ {
			copy(all.Pix[(tops[i]+y)*all.Stride:], p.Pix[y*p.Stride:y*p.Stride+b.Dx()])
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := png.Encode(f, all); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	// chi_sim alone reads the Latin words of a Chinese caption
	// (CheckQuorum, MsgProp) well enough, and reads the Chinese far
	// better than chi_sim+eng, which drifts into Latin mid-line. One
	// thread each (the test runs one tesseract per core), and no second
	// pass for light text on dark: there is none.
	langs := "eng"
	if lang == "zh" {
		langs = "chi_sim"
	}
	cmd := exec.Command("tesseract", path, "-", "-l", langs, "--psm", "6", "-c", "tessedit_do_invert=0", "tsv")
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("tesseract: %v", err)
	}
	texts := make([]strings.Builder, len(pics))
	for _, line := range strings.Split(string(out), "\n") {
		// level page block par line word left top width height conf text
		f := strings.Split(line, "\t")
		if len(f) < 12 || f[0] != "5" || strings.TrimSpace(f[11]) == "" {
			continue
		}
		top, _ := strconv.Atoi(f[7])
		height, _ := strconv.Atoi(f[9])
		mid := top + height/2
		i := len(tops) - 1
		for i > 0 && tops[i] > mid {
			i--
		}
		texts[i].WriteString(f[11] + " ")
	}
	out2 := make([]string, len(pics))
	for i := range texts {
		out2[i] = texts[i].String()
	}
	return out2, nil
}

// check is what one picture must show.
type check struct {
	picture
	want, lead string
	control    string // a caption not on screen then: it must not be found
}

// checks pairs a lesson's pictures with its transcript's captions.
func checks(t *testing.T, lesson, lang string, pics []picture) []check {
	steps := transcriptSteps(t, lesson, lang)
	if len(steps) == 0 {
		t.Fatalf("%s: no captions in the transcript", lesson)
	}
	if len(pics) != len(steps)+1 {
		t.Errorf("%s (%s): the window showed %d steps and the end, the transcript has %d captions", lesson, lang, len(pics)-1, len(steps))
		return nil
	}
	tr := i18n.En
	if lang == "zh" {
		tr = i18n.Zh
	}
	var out []check
	chapter := 0
	for k, st := range steps {
		if pics[k].step != k+1 {
			t.Errorf("%s (%s): picture %d is of step %d", lesson, lang, k+1, pics[k].step)
			return nil
		}
		c := check{picture: pics[k], want: st.text}
		if st.kind == "chapter" {
			// A chapter is a title card: its number and its title.
			chapter++
			c.want = tr.F("Chapter %d · %s", chapter, st.text)
		}
		if st.kind == "pause" && k > 0 && steps[k-1].kind == "say" {
			c.lead = steps[k-1].text
		}
		for _, o := range []int{k + 1, k - 2, k + 2} {
			if o >= 0 && o < len(steps) && steps[o].text != st.text && steps[o].text != c.lead && steps[o].kind != "chapter" {
				c.control = steps[o].text
				break
			}
		}
		out = append(out, c)
	}
	return append(out, check{picture: pics[len(steps)], want: tr.T("End of the lesson.")})
}

func TestLessonWalk(t *testing.T) {
	needTesseract(t)
	lessons, err := scenarios.Lessons()
	if err != nil {
		t.Fatal(err)
	}
	type job struct {
		lesson, lang string
		checks       []check
	}
	var jobs []job
	for _, lang := range []string{"en", "zh"} {
		byLesson := map[string][]picture{}
		var order []string
		for _, p := range walkAll(t, lang) {
			if len(byLesson[p.lesson]) == 0 {
				order = append(order, p.lesson)
			}
			byLesson[p.lesson] = append(byLesson[p.lesson], p)
		}
		if len(order) != len(lessons) {
			t.Fatalf("the walk (%s) went through %d lessons %v, the library has %d", lang, len(order), order, len(lessons))
		}
		for i, ls := range lessons {
			if order[i] != ls.Name {
				t.Fatalf("the walk (%s) went through %v, not in the picker's order", lang, order)
			}
			jobs = append(jobs, job{lesson: ls.Name, lang: lang, checks: checks(t, ls.Name, lang, byLesson[ls.Name])})
		}
	}
	// One tesseract a lesson and language, one at a time per core.
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	var failures []string
	worst := map[string]float64{"en": 1, "zh": 1}
	worstOf := map[string]string{}
	control := map[string]float64{} // the best score of a caption not on screen
	n := 0
	for _, j := range jobs {
		n += len(j.checks)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			fail := func(step int, format string, args ...any) {
				mu.Lock()
				defer mu.Unlock()
				failures = append(failures, fmt.Sprintf("%s (%s) step %d: ", j.lesson, j.lang, step)+fmt.Sprintf(format, args...))
			}
			var prepared []*image.Gray
			for _, c := range j.checks {
				// Not readPNG: t.Fatal may not be called off the test's goroutine.
				img, err := export.ReadPNG(c.png)
				if err != nil {
					fail(c.step, "%v", err)
					return
				}
				prepared = append(prepared, prepare(img, c.area))
			}
			if len(prepared) == 0 {
				return
			}
			texts, err := readAll(prepared, j.lang, filepath.Join(filepath.Dir(j.checks[0].png), "ocr.png"))
			if err != nil {
				fail(0, "%v", err)
				return
			}
			for i, c := range j.checks {
				read := texts[i]
				score := ocrmatch.Found(c.want, read)
				mu.Lock()
				if score < worst[j.lang] {
					worst[j.lang], worstOf[j.lang] = score, fmt.Sprintf("%s step %d", j.lesson, c.step)
				}
				mu.Unlock()
				if score < ocrmatch.Enough(j.lang) {
					fail(c.step, "%.0f%% of %q is on screen; OCR read:\n%s", 100*score, c.want, read)
				}
				if c.lead != "" {
					if s := ocrmatch.Found(c.lead, read); s < ocrmatch.Enough(j.lang) {
						fail(c.step, "the question is shown without the caption that led to it (%.0f%% of %q); OCR read:\n%s", 100*s, c.lead, read)
					}
				}
				if c.control != "" {
					s := ocrmatch.Found(c.control, read)
					mu.Lock()
					control[j.lang] = max(control[j.lang], s)
					mu.Unlock()
					if s >= ocrmatch.Enough(j.lang) {
						fail(c.step, "a caption that is not on screen scores %.0f%% (%q): the check cannot tell captions apart", 100*s, c.control)
					}
				}
			}
		}()
	}
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	t.Logf("%d screenshots of %d lessons read back; the worst share of a caption found: en %.0f%% (%s), zh %.0f%% (%s); "+
		"the best of a caption not on screen: en %.0f%%, zh %.0f%%",
		n, len(lessons), 100*worst["en"], worstOf["en"], 100*worst["zh"], worstOf["zh"], 100*control["en"], 100*control["zh"])
}
