// Package early answers what raftsim-gui can answer without a window
// (--help, and the lack of a display) before ebiten's init runs: on Linux
// that init panics when there is no display, before main.
//
// NB: it works because of Go's package initialization order (the spec:
// among the packages whose imports are initialized, the first by import
// path goes first). ebiten's internal/ui imports the X11 client
// (github.com/jezek/xgb), which imports net, so it is initialized after
// this package, which imports only pflag and the standard library's
// basics. TestHelpWithoutDisplay in cmd/raftsim fails loudly if an
// upgrade changes that.
package early

import (
	"fmt"
	"os"
	"runtime"

	"github.com/raftsim/raftsim/cmd/internal/guiflags"
)

func init() {
	args := os.Args[1:]
	if guiflags.WantsHelp(args) {
		fs, _ := guiflags.New(os.Stdout)
		guiflags.PrintUsage(os.Stdout, fs)
		os.Exit(0)
	}
	if NoDisplay() {
		fmt.Fprintln(os.Stderr, "raftsim-gui: the window needs a display, and DISPLAY is not set.\n"+
			"  Run headless instead: raftsim run NAME (or raftsim shell for the sandbox)\n"+
			"  (or start it under a virtual display: xvfb-run -a raftsim-gui ...)")
		os.Exit(1)
	}
}

// NoDisplay reports whether this is a system where a window needs an X11
// display (ebiten's GLFW speaks X11 there) and none is set.
func NoDisplay() bool {
	switch runtime.GOOS {
	case "linux", "freebsd", "openbsd", "netbsd":
		return os.Getenv("DISPLAY") == ""
	}
	return false
}
