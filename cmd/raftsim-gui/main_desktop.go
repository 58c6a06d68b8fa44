//go:build !js

package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/raftsim/raftsim/cmd/raftsim-gui/internal/guiconsole"
	"github.com/raftsim/raftsim/render"
	"github.com/raftsim/raftsim/render/ui"
	"github.com/raftsim/raftsim/weblink"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, desktop()))
}

// desktop is the window's host on a desktop: fonts from the system, files
// on disk, the clipboard through the desktop's clipboard program.
func desktop() host {
	return host{
		fonts:    render.LoadFonts,
		save:     ui.SaveSession,
		console:  guiconsole.Factory,
		copyLink: copyLinkDesktop,
		profile: func(path string) (func(), error) {
			f, err := os.Create(path)
			if err != nil {
				return nil, err
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				f.Close()
				return nil, err
			}
			return func() { pprof.StopCPUProfile(); f.Close() }, nil
		},
	}
}

// copyLinkDesktop is u on a desktop: the link goes to the clipboard, if a
// clipboard program is there, and always to standard output.
func copyLinkDesktop(app *ui.App, base string) func(*ui.Session) (string, error) {
	return func(s *ui.Session) (string, error) {
		data, err := ui.MarshalSession(s)
		if err != nil {
			return "", err
		}
		link, err := weblink.Link(base, data, s.Now().Duration())
		if err != nil {
			return "", err
		}
		fmt.Fprintln(os.Stdout, "link:", link)
		prog, err := copyToClipboard(link)
		if err != nil {
			return app.Lang.F("no clipboard (%v): the link to this moment is on standard output", err), nil
		}
		return app.Lang.F("a link to this moment is on the clipboard (%s) and on standard output", prog), nil
	}
}
