//go:build !js

package ui

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/raftsim/raftsim/sim"
)

// (Not built for js/wasm: the page has no child processes or rusage.)

// A far seek's memory is bounded: the peak RSS of a process that seeks a
// sandbox 6 virtual hours ahead is within 20 MB of one that seeks 1 hour
// ahead (issue 29: `--start-at 100h` took 1,143 MB, about 7 MB a virtual
// hour, every event kept). Each seek runs in a child process of its own
// (this test binary again), whose rusage gives its peak. Seen to fail
// with the session keeping every event (43 MB more; with forgetting, 9).
func TestFarSeekMemoryBounded(t *testing.T) {
	if d := os.Getenv("RAFTSIM_UI_SEEK"); d != "" {
		at, err := time.ParseDuration(d)
		if err != nil {
			t.Fatal(err)
		}
		s := newSandbox(t)
		a := NewApp(s, 1280, 800, 1)
		must(t, a.Seek(sim.Time(at)))
		BuildFrame(a)
		return
	}
	if testing.Short() {
		t.Skip("runs 7 virtual hours of a sandbox")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	peak := func(at string) int64 {
		cmd := exec.Command(exe, "-test.run", "^TestFarSeekMemoryBounded$", "-test.count", "1")
		cmd.Env = append(os.Environ(), "RAFTSIM_UI_SEEK="+at)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the seek to %s: %v\n%s", at, err, out)
		}
		return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	}
	near, far := peak("1h"), peak("6h")
	t.Logf("peak RSS: %d MB seeking 1h ahead, %d MB seeking 6h ahead", near>>20, far>>20)
	if far-near > 20<<20 {
		t.Errorf("seeking 6h ahead took %d MB more than seeking 1h ahead; want at most 20 MB (the history bounded)", (far-near)>>20)
	}
}
