package guitest

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/raftsim/raftsim/render/guitest/ocrmatch"
	"github.com/raftsim/raftsim/scenarios"
)

// The screen walk: every lesson, step by step, in the real window with
// --present, in English and in Chinese, at 1920x1080 and 1024x768, at
// scale 1 and 2. At each step the whole screen is read back with OCR, and
// what the class must be able to read is looked for in it: the lesson's
// title (its first 24 characters, or all of a shorter one), the clock,
// and everything the step's shows: names (a member's name, a request's
// number and operation, an entry's or commit index's member and number).
// The caption band alone (TestLessonWalk) cannot see a title cut to a
// word, a request scrolled out of its panel or a member under a box.
//
// The whole matrix (8 screens a step, some 2,550 screenshots) is long:
// `make test-classroom` runs it (RAFTSIM_SCREENS=all). Without
// RAFTSIM_SCREENS the test is skipped, so that `go test` (and so `make
// test`) stays under 10 minutes on 2 cores; CI runs a slice of the matrix
// besides (`make test-classroom-slice`: the lessons of screenSlice, at
// 1024x768 scale 2 in English and 1920x1080 scale 1 in Chinese). A part
// of the matrix: RAFTSIM_SCREENS=lesson,lesson (those lessons; "slice"
// for screenSlice) and RAFTSIM_SCREEN_SETTINGS=en/1920x1080@1,zh/1024x768@2
// (those settings; every one of the 8 when it is not set).
// RAFTSIM_SCREENS_DIR=DIR keeps the screenshots there.

// screenSize is one projector setting of the matrix.
type screenSize struct {
	size  string
	scale string
}

var screenSizes = []screenSize{{"1920x1080", "1"}, {"1920x1080", "2"}, {"1024x768", "1"}, {"1024x768", "2"}}

// screenSlice is what CI's short run walks (RAFTSIM_SCREENS=slice): the
// lessons whose climax the issue of the screen contract was about.
var screenSlice = []string{"split-brain", "kubernetes-failure", "figure-8"}

// titleKeeps is how much of a lesson's title the header keeps, in
// characters (ui.TitleKeeps, held to it here as a number a reader sees).
const titleKeeps = 24

// walkFrame is how raftsim-gui --walk names a frame: the lesson, the
// leading pane after the first with side-by-side panes (play --compare, a
// compare: lesson; "pane 2"), and a step's first frame ("step 3 of 8"),
// one where something it names changed ("step 3 of 8 change 2"), its last
// ("step 3 of 8 last"; --walk-frames), or the end. Its groups: 1 the
// lesson, 2 the pane, 3 the frame, 4 the step, 5 "last", 6 the change.
const walkFrame = `^(\S+) (?:pane (\d+) )?(step (\d+) of \d+(?: (last)| change (\d+))?|end) `

// showsLine is what it says of each thing a step names, and with panes of
// each pane's label, which must be read as the step's names are (7).
var showsLine = regexp.MustCompile(walkFrame + `(?:shows|label) (.*)$`)

// frameLine is what it says of each picture: the clock (7).
var frameLine = regexp.MustCompile(walkFrame + `at (\S+); caption area`)

// missingLine is what it says of a thing a step names that the frame
// hides though it could show it (7).
var missingLine = regexp.MustCompile(walkFrame + `missing (.*)$`)

// frameKey is the frame a walk line is about: lesson, pane and frame.
func frameKey(m []string) string { return m[1] + "|" + m[2] + "|" + m[3] }

// chipLine is what it says of the status chip of each request a step
// names: its label, the word it says, and where it is (x y w h).
var chipLine = regexp.MustCompile(walkFrame + `chip (\S+) (\S+) (-?\d+) (-?\d+) (\d+) (\d+) text (-?\d+) (-?\d+) (\d+) (\d+)$`)

// chip is a request's status chip on a screen, and the word it must say.
type chip struct {
	label, word string
	r, text     image.Rectangle // the chip; the row's words beside it
}

// screen is one screenshot of the walk, with what it must show.
type screen struct {
	lesson, lang, setting string
	step                  int    // 0: the end
	frame                 string // "": the step's first; "last", "change N"
	png                   string
	clock                 string     // the header's "t = 1.2s"
	shows                 [][]string // each thing named: the words for it
	chips                 []chip     // the chips of the requests named
	missing               []string   // what the walk found hidden though there was room
}

// walkScreens walks the lessons (all of them from the picker, or the
// named ones) in one language and setting, and returns its screens.
func walkScreens(t *testing.T, lang string, ss screenSize, lessons []string) []screen {
	t.Helper()
	setting := ss.size + "@" + ss.scale
	root := os.Getenv("RAFTSIM_SCREENS_DIR")
	if root == "" {
		root = t.TempDir()
	}
	dir := filepath.Join(root, lang+"-"+setting)
	if err := os.MkdirAll(dir, 0o755); err != nil { // --walk makes its folder, not its parents
		t.Fatal(err)
	}
	var runs [][]string
	if lessons == nil {
		runs = [][]string{{"play"}}
	}
	for _, name := range lessons {
		runs = append(runs, []string{"play", name})
	}
	var out []screen
	for _, run := range runs {
		d := dir
		if len(run) == 2 {
			d = filepath.Join(dir, run[1])
		}
		args := append(run, "--lang", lang, "--walk", d, "--walk-frames", "--size", ss.size, "--scale", ss.scale, "--present")
		b, err := exec.Command(filepath.Join(bins(t), "raftsim-gui"), args...).CombinedOutput()
		if err != nil {
			t.Fatalf("raftsim-gui %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		shows := map[string][][]string{}
		chips := map[string][]chip{}
		missing := map[string][]string{}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if m := showsLine.FindStringSubmatch(sc.Text()); m != nil {
				k := frameKey(m)
				shows[k] = append(shows[k], strings.Split(m[7], " | "))
			}
			if m := missingLine.FindStringSubmatch(sc.Text()); m != nil {
				k := frameKey(m)
				missing[k] = append(missing[k], m[7])
			}
			if m := chipLine.FindStringSubmatch(sc.Text()); m != nil {
				var n [8]int
				for i := range n {
					n[i], _ = strconv.Atoi(m[9+i])
				}
				k := frameKey(m)
				chips[k] = append(chips[k], chip{label: m[7], word: m[8], r: image.Rect(n[0], n[1], n[0]+n[2], n[1]+n[3]),
					text: image.Rect(n[4], n[5], n[4]+n[6], n[5]+n[7])})
			}
		}
		sc = bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			m := frameLine.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			k, pane := frameKey(m), m[2]
			s := screen{lesson: m[1], lang: lang, setting: setting, clock: "t = " + strings.TrimSuffix(m[7], ";")}
			base := d
			if len(run) == 1 {
				base = filepath.Join(d, m[1])
			}
			if pane != "" {
				base = filepath.Join(base, "pane-"+pane)
			}
			s.png = filepath.Join(base, "end.png")
			s.chips, s.shows, s.missing = chips[k], shows[k], missing[k]
			if m[4] != "" {
				s.step, _ = strconv.Atoi(m[4])
				switch {
				case m[5] != "":
					s.frame = "last"
					s.png = filepath.Join(base, fmt.Sprintf("last-%03d.png", s.step))
				case m[6] != "":
					s.frame = "change " + m[6]
					s.png = filepath.Join(base, fmt.Sprintf("change-%03d-%s.png", s.step, m[6]))
				default:
					s.png = filepath.Join(base, fmt.Sprintf("step-%03d.png", s.step))
				}
			}
			out = append(out, s)
		}
	}
	return out
}

// readScreen reads a whole screenshot with tesseract: sparse text (the
// labels, panels and header are scattered), one thread.
func readScreen(png, lang string) (string, error) {
	langs := "eng"
	if lang == "zh" {
		langs = "chi_sim+eng" // the Latin words (etcd-1, #2 put) too: chi_sim alone missed some
	}
	cmd := exec.Command("tesseract", png, "-", "-l", langs, "--psm", "11")
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("tesseract %s: %v", png, err)
	}
	return string(out), nil
}

// readChip reads the word on a status chip: the chip alone, cut from the
// screenshot inside its frame, drawn black where it differs from the
// chip's own colour (its most common one: white words on a filled chip,
// coloured words on a white one), the more the darker, and white
// elsewhere, enlarged to some 120 pixels high,
// read as one line. Whole, the screen's chips are read unreliably:
// tesseract's page layout misses white words on a coloured ground.
func readChip(pngPath string, r image.Rectangle, lang string) (string, error) {
	return readRegion(pngPath, r, lang, true)
}

// readRegion reads a part of a screenshot on its own: a chip (one word,
// inside its frame, some 120 pixels high), or a clients panel row's words
// (lines, three times their size).
func readRegion(pngPath string, r image.Rectangle, lang string, isChip bool) (string, error) {
	f, err := os.Open(pngPath)
	if err != nil {
		return "", err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return "", fmt.Errorf("%s: %v", pngPath, err)
	}
	if isChip {
		// Inside the sides of a pending chip's frame; its top and bottom,
		// and its bar, are rubbed out below.
		dx, dy := max(3, r.Dy()/5), max(1, r.Dy()/16)
		r = image.Rect(r.Min.X+dx, r.Min.Y+dy, r.Max.X-dx, r.Max.Y-dy)
	}
	r = r.Intersect(img.Bounds())
	if r.Empty() {
		return "", fmt.Errorf("the chip %v is not on the screen", r)
	}
	count := map[color.RGBA]int{}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			count[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	var ground color.RGBA
	most := 0
	for c, n := range count {
		if n > most || (n == most && (c.R < ground.R || (c.R == ground.R && (c.G < ground.G || (c.G == ground.G && c.B < ground.B))))) {
			ground, most = c, n
		}
	}
	// How dark each pixel is: the more it differs from the ground.
	w, h := r.Dx(), r.Dy()
	ink := make([]float64, w*h)
	for y := range h {
		for x := range w {
			c := color.RGBAModel.Convert(img.At(r.Min.X+x, r.Min.Y+y)).(color.RGBA)
			d := absDiff(c.R, ground.R) + absDiff(c.G, ground.G) + absDiff(c.B, ground.B)
			ink[y*w+x] = min(1, float64(d)/300)
		}
	}
	// A row with a run of ink across most of the chip is a line (the
	// frame, the bar), not a letter.
	for y := range h * btoi(isChip) {
		run, most := 0, 0
		for x := range w {
			if ink[y*w+x] > 0.5 {
				run++
				most = max(most, run)
			} else {
				run = 0
			}
		}
		if most > w*45/100 {
			for x := range w {
				ink[y*w+x] = 0
			}
		}
	}
	at := func(x, y int) float64 { return ink[min(h-1, max(0, y))*w+min(w-1, max(0, x))] }
	// Enlarged, bilinear, to some 120 pixels high, with a white margin.
	k, psm := max(4.0, 120/float64(h)), "7"
	if !isChip {
		k, psm = 3, "6"
	}
	pad := 30
	out := image.NewGray(image.Rect(0, 0, int(float64(w)*k)+2*pad, int(float64(h)*k)+2*pad))
	for i := range out.Pix {
		out.Pix[i] = 255
	}
	for Y := range int(float64(h) * k) {
		for X := range int(float64(w) * k) {
			sx, sy := (float64(X)+0.5)/k-0.5, (float64(Y)+0.5)/k-0.5
			x0, y0 := int(math.Floor(sx)), int(math.Floor(sy))
			fx, fy := sx-float64(x0), sy-float64(y0)
			v := (at(x0, y0)*(1-fx)+at(x0+1, y0)*fx)*(1-fy) + (at(x0, y0+1)*(1-fx)+at(x0+1, y0+1)*fx)*fy
			out.SetGray(X+pad, Y+pad, color.Gray{Y: uint8(255 * (1 - v))})
		}
	}
	tmp, err := os.CreateTemp("", "chip-*.png")
	if err != nil {
		return "", err
	}
	if os.Getenv("RAFTSIM_CHIPS_KEEP") == "" {
		defer os.Remove(tmp.Name())
	}
	if err := png.Encode(tmp, out); err != nil {
		tmp.Close()
		return "", err
	}
	tmp.Close()
	langs := "eng"
	if lang == "zh" {
		langs = "chi_sim"
	}
	cmd := exec.Command("tesseract", tmp.Name(), "-", "-l", langs, "--psm", psm)
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("tesseract (a chip of %s): %v", pngPath, err)
	}
	return string(b), nil
}

// chipWords are the words a status chip can say (ui.StatusWord, and
// STALE; i18n's zh.go for Chinese). No two share a letter in Chinese, and
// in English none is near another.
var chipWords = map[string][]string{
	"en": {"pending", "ok", "error", "timeout", "STALE"},
	"zh": {"等待中", "成功", "错误", "超时", "过期"},
}

// chipWord returns the chip word that what was read is: the one found
// best in it, at least half of it ("" if none). A Chinese chip at
// 1920x1080 scale 1 is about 20 pixels high, and tesseract misreads one of
// its two characters now and then (错误 as 诺误).
func chipWord(read, lang string) string {
	best, score := "", 0.5
	for _, w := range chipWords[lang] {
		if f := ocrmatch.Found(w, read); f >= score && (f > score || best == "") {
			best, score = w, f
		}
	}
	return best
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// hasWord reports whether the text read has want's letters and digits,
// all of them, in order, with nothing between: a name is short, and one
// letter off is another name (etcd-1, etcd-3).
func hasWord(read, want string) bool {
	return strings.Contains(string(ocrmatch.Letters(read)), string(ocrmatch.Letters(want)))
}

// screenSettings parses RAFTSIM_SCREEN_SETTINGS: lang/WxH@scale, comma
// separated.
func screenSettings(v string) ([]screenSetting, error) {
	var out []screenSetting
	for _, f := range strings.Split(v, ",") {
		lang, rest, ok1 := strings.Cut(strings.TrimSpace(f), "/")
		size, scale, ok2 := strings.Cut(rest, "@")
		if !ok1 || !ok2 || (lang != "en" && lang != "zh") || !slices.Contains(screenSizes, screenSize{size, scale}) {
			return nil, fmt.Errorf("RAFTSIM_SCREEN_SETTINGS: %q is not one of the matrix's settings (en or zh, then /, then one of %v)", f, screenSizes)
		}
		out = append(out, screenSetting{lang, screenSize{size, scale}})
	}
	return out, nil
}

// screenSetting is one column of the matrix: a language at a size.
type screenSetting struct {
	lang string
	ss   screenSize
}

func TestLessonScreens(t *testing.T) {
	which := os.Getenv("RAFTSIM_SCREENS")
	if which == "" {
		t.Skip("the screen walk runs with RAFTSIM_SCREENS set: make test-classroom (all of it) or make test-classroom-slice (CI's part)")
	}
	needTesseract(t)
	all := which == "all"
	lessons, err := scenarios.Lessons()
	if err != nil {
		t.Fatal(err)
	}
	title := map[string]map[string]string{"en": {}, "zh": {}}
	for _, ls := range lessons {
		s, err := scenarios.Load(ls.Name)
		if err != nil {
			t.Fatal(err)
		}
		for lang := range title {
			r := []rune(s.Title.In(lang))
			if len(r) == 0 {
				r = []rune(ls.Name) // the header names a lesson without a title
			}
			title[lang][ls.Name] = string(r[:min(len(r), titleKeeps)])
		}
	}
	type setting = screenSetting
	var settings []setting
	var only []string
	for _, lang := range []string{"en", "zh"} {
		for _, ss := range screenSizes {
			settings = append(settings, setting{lang, ss})
		}
	}
	switch {
	case which == "slice":
		only = screenSlice
		settings = []setting{{"en", screenSize{"1024x768", "2"}}, {"zh", screenSize{"1920x1080", "1"}}}
	case !all:
		for _, name := range strings.Split(which, ",") {
			name = strings.TrimSpace(name)
			if _, ok := title["en"][name]; !ok {
				t.Fatalf("RAFTSIM_SCREENS: %q is not a lesson (all, slice, or lessons separated by commas)", name)
			}
			only = append(only, name)
		}
	}
	if v := os.Getenv("RAFTSIM_SCREEN_SETTINGS"); v != "" {
		if settings, err = screenSettings(v); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	var screens []screen
	for _, st := range settings {
		walkStart := time.Now()
		got := walkScreens(t, st.lang, st.ss, only)
		t.Logf("walk %s %s@%s: %d screens in %v", st.lang, st.ss.size, st.ss.scale, len(got), time.Since(walkStart).Round(time.Second))
		walked := map[string]bool{}
		for _, s := range got {
			walked[s.lesson] = true
		}
		want := len(only)
		if only == nil {
			want = len(lessons)
		}
		if len(walked) != want {
			t.Fatalf("the walk (%s, %s@%s) went through %d lessons, want %d", st.lang, st.ss.size, st.ss.scale, len(walked), want)
		}
		screens = append(screens, got...)
	}
	walkTime := time.Since(start)
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	var failures []string
	for _, s := range screens {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			read, err := readScreen(s.png, s.lang)
			var miss []string
			for _, m := range s.missing {
				miss = append(miss, "hidden though there is room: "+m)
			}
			if err != nil {
				miss = append(miss, err.Error())
			} else {
				if want := title[s.lang][s.lesson]; ocrmatch.Found(want, read) < ocrmatch.Enough(s.lang) {
					miss = append(miss, fmt.Sprintf("the title %q (%.0f%%)", want, 100*ocrmatch.Found(want, read)))
				}
				if !hasWord(read, s.clock) {
					miss = append(miss, fmt.Sprintf("the clock %q", s.clock))
				}
				for _, c := range s.chips {
					word, err := readChip(s.png, c.r, s.lang)
					if err != nil {
						miss = append(miss, err.Error())
					} else if got := chipWord(word, s.lang); got != c.word {
						miss = append(miss, fmt.Sprintf("the status %q of %s's chip (read %q: %q)", c.word, c.label, strings.TrimSpace(word), got))
					}
				}
				// The words of the requests' rows, read row by row: in
				// the whole screen tesseract misreads a row's "#1" beside
				// its chip now and then ("ia put").
				rows := ""
				for _, c := range s.chips {
					if text, err := readRegion(s.png, c.text, s.lang, false); err == nil {
						rows += " " + text
					}
				}
				for _, words := range s.shows {
					for _, w := range words {
						if !hasWord(read, w) && !hasWord(rows, w) {
							miss = append(miss, fmt.Sprintf("%q of %q (named by the step's shows:)", w, strings.Join(words, " ")))
						}
					}
				}
			}
			if len(miss) > 0 {
				mu.Lock()
				defer mu.Unlock()
				frame := ""
				if s.frame != "" {
					frame = " (" + s.frame + ")"
				}
				failures = append(failures, fmt.Sprintf("%s (%s, %s) step %d%s: not on screen: %s\n  (%s)\n  OCR read: %s",
					s.lesson, s.lang, s.setting, s.step, frame, strings.Join(miss, "; "), s.png, strings.Join(strings.Fields(read), " ")))
			}
		}()
	}
	wg.Wait()
	slices.Sort(failures)
	for _, f := range failures {
		t.Error(f)
	}
	named := 0
	for _, s := range screens {
		named += len(s.shows)
	}
	var names []string
	for _, st := range settings {
		names = append(names, st.lang+"/"+st.ss.size+"@"+st.ss.scale)
	}
	lessonsWalked := "every lesson"
	if only != nil {
		lessonsWalked = strings.Join(only, ",")
	}
	t.Logf("walked %s at %s", lessonsWalked, strings.Join(names, ","))
	t.Logf("%d screens (%d settings) read back whole, %d things named by shows: looked for; walks %v, all %v",
		len(screens), len(settings), named, walkTime.Round(time.Second), time.Since(start).Round(time.Second))
}
