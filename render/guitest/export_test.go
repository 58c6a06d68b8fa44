package guitest

import (
	"bytes"
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
