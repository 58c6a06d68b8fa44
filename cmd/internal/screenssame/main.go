// Command screenssame checks that two builds of the window draw the same
// pictures, pixel for pixel: `make screens-same` runs it on the working
// tree's build and main's (docs/testing.md). It takes the same screenshots
// with both raftsim-gui binaries and compares them:
//
//   - every lesson at three virtual times (an eighth, half and all of its
//     run), with --present, in English at 1920x1080 scale 2 and in Chinese
//     at 1024x768 scale 1;
//   - the benchmark's scene (make bench-gui: 7 members, 303 messages in
//     flight, at 1280x800), and the sandbox with its legend, a member's
//     menu, the help and the command box;
//   - frames of two lessons exported one after another by one process
//     (--frames-dir), so that what a frame keeps for the next is drawn
//     again as the picture changes;
//   - with -walk, the lesson walk of every lesson (every narrative step,
//     all in one process) in both languages.
//
// Each build's pictures are kept under -out in a directory named after the
// binary's hash, so that the base's are taken once. A picture that differs
// is reported with the number of pixels that differ and where, and a copy
// with those pixels red is written to -out/diff. The exit status is 1 if
// any picture differs or could not be taken.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/raftsim/raftsim/export"
)

// screen is one language, size and scale the lessons are shot at.
type screen struct {
	name, lang, size, scale string
}

var screens = []screen{
	{"en-1920x1080-s2", "en", "1920x1080", "2"},
	{"zh-1024x768-s1", "zh", "1024x768", "1"},
}

// shot is one run of raftsim-gui: its arguments, and whether it writes one
// picture (--out FILE) or a directory of them (--frames-dir, --walk).
type shot struct {
	name string
	args []string
	dir  bool
}

// benchAt is the virtual time the benchmark's scene is at (benchSession in
// cmd/raftsim-gui plays until 303 messages are in flight, at 41s).
const benchAt = "41s"

// workDir is the empty directory the programs run in.
var workDir string

// command is a program to run in workDir.
func command(name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Dir = workDir
	return c
}

func main() {
	base := flag.String("base", "", "directory of the base build (its raftsim and raftsim-gui)")
	next := flag.String("new", "bin", "directory of the build checked against the base")
	out := flag.String("out", "bin/screens", "directory for the pictures (kept per build) and the differences")
	jobs := flag.Int("jobs", 2, "pictures taken at once")
	walk := flag.Bool("walk", false, "also walk every lesson step by step in both languages")
	only := flag.String("only", "", "only the shots whose name contains this")
	flag.Parse()
	if *base == "" {
		fmt.Fprintln(os.Stderr, "screenssame: -base DIR is required")
		os.Exit(2)
	}
	if os.Getenv("DISPLAY") == "" {
		fmt.Fprintln(os.Stderr, "screenssame: no DISPLAY (run it under xvfb-run)")
		os.Exit(2)
	}
	start := time.Now()
	// The programs run in an empty directory: a lesson's name is also a
	// file or directory's, and one in the working directory (the
	// repository's membership/) would be read in place of the lesson.
	for _, p := range []*string{base, next, out} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "screenssame:", err)
			os.Exit(2)
		}
		*p = abs
	}
	var err error
	if workDir, err = os.MkdirTemp("", "screenssame"); err != nil {
		fmt.Fprintln(os.Stderr, "screenssame:", err)
		os.Exit(2)
	}
	defer os.RemoveAll(workDir)
	shots, err := plan(filepath.Join(*next, "raftsim"), *walk)
	if err != nil {
		fmt.Fprintln(os.Stderr, "screenssame:", err)
		os.Exit(2)
	}
	if *only != "" {
		shots = slices.DeleteFunc(shots, func(s shot) bool { return !strings.Contains(s.name, *only) })
	}
	dirs, err := pictureDirs(*out, *base, *next)
	if err != nil {
		fmt.Fprintln(os.Stderr, "screenssame:", err)
		os.Exit(2)
	}
	if dirs[0] == dirs[1] {
		fmt.Println("screenssame: note: the two builds are the same binary")
	}
	failed := takeAll(shots, [2]string{*base, *next}, dirs, *jobs)
	pictures, differ := compareAll(shots, dirs, *out, failed)
	fmt.Printf("screenssame: %d pictures (%d runs of each build), %d differ; base %s, new %s; %s\n",
		pictures, len(shots), differ, dirs[0], dirs[1], time.Since(start).Round(time.Second))
	if differ > 0 {
		os.RemoveAll(workDir)
		os.Exit(1)
	}
}

// pictureDirs is where each build's pictures are kept: under out, in a
// directory named after the hash of its raftsim-gui.
func pictureDirs(out, base, next string) ([2]string, error) {
	var dirs [2]string
	for i, b := range []string{base, next} {
		h, err := hashFile(filepath.Join(b, "raftsim-gui"))
		if err != nil {
			return dirs, err
		}
		dirs[i] = filepath.Join(out, h)
	}
	return dirs, nil
}

// takeAll takes every picture not already taken, with both builds' (the
// base's and the new one's) raftsim-gui into their dirs, jobs at a time.
// It answers why each shot that failed did.
func takeAll(shots []shot, builds, dirs [2]string, jobs int) map[string]string {
	type job struct {
		gui, dir string
		s        shot
	}
	var todo []job
	for _, s := range shots {
		for i, b := range builds {
			todo = append(todo, job{filepath.Join(b, "raftsim-gui"), dirs[i], s})
		}
	}
	var (
		mu     sync.Mutex
		failed = map[string]string{}
		wg     sync.WaitGroup
		ch     = make(chan job)
	)
	for range max(1, jobs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				if err := take(j.gui, j.dir, j.s); err != nil {
					mu.Lock()
					failed[j.s.name] = err.Error()
					mu.Unlock()
				}
			}
		}()
	}
	for _, j := range todo {
		ch <- j
	}
	close(ch)
	wg.Wait()
	return failed
}

// compareAll compares each shot's pictures of the two builds, printing
// each that failed or differs; the pictures of those that differ, with
// the pixels that do in red, go to out/diff. It answers how many pictures
// it compared and how many shots or pictures failed or differ.
func compareAll(shots []shot, dirs [2]string, out string, failed map[string]string) (pictures, differ int) {
	for _, s := range shots {
		if msg, ok := failed[s.name]; ok {
			fmt.Printf("FAIL %s: %s\n", s.name, msg)
			differ++
			continue
		}
		files := []string{s.name + ".png"}
		if s.dir {
			var err error
			files, err = both(filepath.Join(dirs[0], s.name), filepath.Join(dirs[1], s.name))
			if err != nil {
				fmt.Printf("DIFF %s: %v\n", s.name, err)
				differ++
				continue
			}
			for i := range files {
				files[i] = filepath.Join(s.name, files[i])
			}
		}
		for _, f := range files {
			pictures++
			n, box, err := compare(filepath.Join(dirs[0], f), filepath.Join(dirs[1], f), filepath.Join(out, "diff", strings.ReplaceAll(f, "/", "_")))
			switch {
			case err != nil:
				fmt.Printf("DIFF %s: %v\n", f, err)
				differ++
			case n > 0:
				fmt.Printf("DIFF %s: %d pixels differ, within %v (see %s)\n", f, n, box, filepath.Join(out, "diff"))
				differ++
			}
		}
	}
	return pictures, differ
}

// plan lists the shots: it asks raftsim (headless) for the lessons and
// how long each runs.
func plan(raftsim string, walk bool) ([]shot, error) {
	outp, err := command(raftsim, "lessons").Output()
	if err != nil {
		return nil, fmt.Errorf("%s lessons: %w", raftsim, err)
	}
	var lessons []string
	for _, line := range strings.Split(string(outp), "\n") {
		if line == "" {
			break
		}
		lessons = append(lessons, strings.Fields(line)[0])
	}
	if len(lessons) == 0 {
		return nil, fmt.Errorf("%s lessons listed none", raftsim)
	}
	endRE := regexp.MustCompile(`virtual time ([0-9.]+)s`)
	var shots []shot
	for _, l := range lessons {
		// A lesson's run may fail its expectations on purpose (the
		// injected bugs): its summary says how long it ran all the same.
		o, _ := command(raftsim, "run", l).Output()
		m := endRE.FindSubmatch(o)
		if m == nil {
			return nil, fmt.Errorf("%s run %s: no virtual time in its summary", raftsim, l)
		}
		end, err := time.ParseDuration(string(m[1]) + "s")
		if err != nil {
			return nil, fmt.Errorf("%s run %s: %w", raftsim, l, err)
		}
		for _, sc := range screens {
			for _, k := range []float64{1.0 / 8, 1.0 / 2, 1} {
				at := time.Duration(float64(end) * k).Round(time.Millisecond)
				shots = append(shots, shot{
					name: fmt.Sprintf("%s-%s-%s", l, sc.name, at),
					args: []string{"play", l, "--present", "--size", sc.size, "--scale", sc.scale, "--lang", sc.lang, "--screenshot-at", at.String()},
				})
			}
		}
	}
	en := []string{"--lang", "en"}
	shots = append(shots,
		shot{name: "bench-1280x800", args: append([]string{"--bench-frames", "300", "--screenshot-at", benchAt}, en...)},
		shot{name: "bench-zh-1024x768", args: []string{"--bench-frames", "300", "--screenshot-at", benchAt, "--lang", "zh", "--size", "1024x768"}},
		shot{name: "sandbox-legend", args: append([]string{"--screenshot-at", "1.8s"}, en...)},
		shot{name: "sandbox-menu", args: append([]string{"--screenshot-at", "1s", "--input", "click:etcd-2"}, en...)},
		shot{name: "sandbox-help-zh", args: []string{"--screenshot-at", "1s", "--input", "key:?", "--lang", "zh"}},
		shot{name: "sandbox-console", args: append([]string{"--screenshot-at", "1.5s", "--input", "key::", "--input", "type:put foo bar", "--input", "key:enter"}, en...)},
		shot{name: "frames-split-brain-en", dir: true, args: append([]string{"play", "split-brain", "--present", "--size", "1920x1080", "--scale", "2",
			"--frames-every", "50ms", "--frames-to", "4s"}, en...)},
		shot{name: "frames-sandbox-zh", dir: true, args: []string{"--size", "1024x768", "--lang", "zh",
			"--at", "1s:crash:etcd-1", "--at", "2s:partition:etcd-2,etcd-3/etcd-4,etcd-5", "--frames-every", "50ms", "--frames-to", "4s"}},
	)
	if walk {
		for _, sc := range screens {
			shots = append(shots, shot{name: "walk-" + sc.name, dir: true,
				args: []string{"play", "--present", "--size", sc.size, "--scale", sc.scale, "--lang", sc.lang}})
		}
	}
	return shots, nil
}

// take runs gui for a shot, writing into dir, unless it was taken before.
func take(gui, dir string, s shot) error {
	dst := filepath.Join(dir, s.name)
	if !s.dir {
		dst += ".png"
	}
	if _, err := os.Stat(dst); err == nil {
		return nil
	}
	tmp := dst + ".tmp"
	os.RemoveAll(tmp)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	args := slices.Clone(s.args)
	switch {
	case !s.dir:
		args = append(args, "--out", tmp+".png")
	case slices.Contains(args, "--frames-every"):
		args = append(args, "--frames-dir", tmp)
	default:
		args = append(args, "--walk", tmp)
	}
	// A busy display now and then refuses a connection: tried again.
	for try := 1; ; try++ {
		cmd := command(gui, args...)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		err := cmd.Run()
		if err == nil {
			break
		}
		if try == 3 || !strings.Contains(stderr.String(), "Failed to open display") {
			return fmt.Errorf("%s %s: %v: %s", gui, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
		}
		os.RemoveAll(tmp)
		time.Sleep(time.Second)
	}
	if !s.dir {
		return os.Rename(tmp+".png", dst)
	}
	return os.Rename(tmp, dst)
}

// both lists the PNGs under two directories, and fails if the lists differ.
func both(a, b string) ([]string, error) {
	list := func(d string) ([]string, error) {
		var fs []string
		err := filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(p, ".png") {
				r, _ := filepath.Rel(d, p)
				fs = append(fs, r)
			}
			return err
		})
		slices.Sort(fs)
		return fs, err
	}
	la, err := list(a)
	if err != nil {
		return nil, err
	}
	lb, err := list(b)
	if err != nil {
		return nil, err
	}
	if !slices.Equal(la, lb) {
		return nil, fmt.Errorf("the base wrote %d pictures, the new build %d (or other names)", len(la), len(lb))
	}
	if len(la) == 0 {
		return nil, fmt.Errorf("no pictures in %s", a)
	}
	return la, nil
}

// compare counts the pixels that differ between two PNGs and the box
// around them; if any do, it writes b with them red to diff.
func compare(a, b, diff string) (int, image.Rectangle, error) {
	ia, err := export.ReadPNG(a)
	if err != nil {
		return 0, image.Rectangle{}, err
	}
	ib, err := export.ReadPNG(b)
	if err != nil {
		return 0, image.Rectangle{}, err
	}
	if ia.Bounds() != ib.Bounds() {
		return 0, image.Rectangle{}, fmt.Errorf("sizes differ: %v and %v", ia.Bounds(), ib.Bounds())
	}
	if bytes.Equal(ia.Pix, ib.Pix) {
		return 0, image.Rectangle{}, nil
	}
	n, box := 0, image.Rectangle{}
	marked := image.NewRGBA(ib.Bounds())
	draw.Draw(marked, marked.Bounds(), ib, ib.Bounds().Min, draw.Src)
	r := ib.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			i := ia.PixOffset(x, y)
			if !bytes.Equal(ia.Pix[i:i+4], ib.Pix[i:i+4]) {
				n++
				box = box.Union(image.Rect(x, y, x+1, y+1))
				marked.Set(x, y, color.RGBA{0xff, 0, 0, 0xff})
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(diff), 0o755); err != nil {
		return n, box, err
	}
	f, err := os.Create(diff)
	if err != nil {
		return n, box, err
	}
	defer f.Close()
	return n, box, png.Encode(f, marked)
}

func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}
