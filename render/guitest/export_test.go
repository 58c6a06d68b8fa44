package guitest

import (
	"bytes"
	"fmt"
	"image/gif"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// raftsim export --frames and --gif drive the window: a frame every --every
// of virtual time, from the start to the end of the run, and a GIF of the
// same frames; the picture changes as the run goes on.
func TestExportFramesAndGIF(t *testing.T) {
	dir := bins(t)
	tmp := t.TempDir()
	frames, out := filepath.Join(tmp, "frames"), filepath.Join(tmp, "run.gif")
	cmd := exec.Command(filepath.Join(dir, "raftsim"), "export", "first-election", "--frames", frames, "--gif", out,
		"--every", "250ms", "--to", "1500ms", "--size", "640x400")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("raftsim export: %v\n%s", err, b)
	}
	pngs, _ := filepath.Glob(filepath.Join(frames, "frame-*.png"))
	if len(pngs) != 7 { // 0, 250ms, ..., 1500ms
		t.Fatalf("%d frames, want 7: %s", len(pngs), b)
	}
	first, last := readPNG(t, pngs[0]), readPNG(t, pngs[len(pngs)-1])
	if first.Bounds().Dx() != 640 || first.Bounds().Dy() != 400 {
		t.Errorf("a frame is %v, want 640x400", first.Bounds())
	}
	if bytes.Equal(first.Pix, last.Pix) {
		t.Error("the first and the last frame are the same picture")
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := gif.DecodeAll(f)
	if err != nil {
		t.Fatalf("the GIF does not decode: %v", err)
	}
	if len(g.Image) != 7 || g.Delay[0] != 25 {
		t.Errorf("the GIF has %d frames with delay %v, want 7 of 25 (250ms)", len(g.Image), g.Delay)
	}
	if !strings.Contains(string(b), "wrote "+out) {
		t.Errorf("output: %s", b)
	}
}

// Frames drawn one after another onto one image (--frames-dir) are the
// frames drawn alone (--screenshot-at), pixel for pixel: a frame keeps
// the panels of the last one that are drawn alike (render/record.go), and
// must keep none that changed. The run crashes a member, writes and
// partitions, so that the panels change between frames.
func TestFramesInARowAreFramesAlone(t *testing.T) {
	tmp := t.TempDir()
	args := []string{"--size", "1024x768", "--lang", "en", "--at", "1s:crash:etcd-1", "--at", "2s:put:apiserver-2:/k:v",
		"--at", "2.5s:partition:etcd-2,etcd-3/etcd-4,etcd-5"}
	frames := filepath.Join(tmp, "frames")
	runGUI(t, append(args, "--frames-dir", frames, "--frames-every", "100ms", "--frames-to", "3s")...)
	for _, k := range []int{5, 12, 21, 26, 30} {
		at := fmt.Sprintf("%dms", k*100)
		alone := filepath.Join(tmp, "alone-"+at+".png")
		runGUI(t, append(args, "--screenshot-at", at, "--out", alone)...)
		a, b := readPNG(t, filepath.Join(frames, fmt.Sprintf("frame-%05d.png", k))), readPNG(t, alone)
		if a.Bounds() != b.Bounds() || !bytes.Equal(a.Pix, b.Pix) {
			n := 0
			for i := 0; i+4 <= min(len(a.Pix), len(b.Pix)); i += 4 {
				if !bytes.Equal(a.Pix[i:i+4], b.Pix[i:i+4]) {
					n++
				}
			}
			t.Errorf("at %s the frame drawn after %d others differs from the frame drawn alone (%v, %v): %d pixels", at, k, a.Bounds(), b.Bounds(), n)
		}
	}
}
