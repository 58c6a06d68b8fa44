//go:build linux || freebsd || netbsd || openbsd || dragonfly

// Package quietx keeps the X11 client xgb from warning about a missing
// Xauthority file at every start (see init).
//
// NB: it must run before ebiten's internal/ui init, which connects to the
// X server. Go initializes, among the packages whose imports are done,
// the first by import path; this package needs only xgb, while ebiten's
// internal/ui also waits for golang.org/x/sys, so this one goes first.
// TestNoXauthorityWarning (render/guitest) fails if an upgrade changes
// that.
package quietx

import (
	"bytes"
	"io"
	"log"
	"os"

	"github.com/jezek/xgb"
)

// ebiten asks the X server for the monitors through the X11 client xgb
// (twice at start: the monitor under the pointer, and its size). xgb
// reads the server's cookie from $XAUTHORITY or ~/.Xauthority; with none,
// as under an Xvfb started without -auth, it logs "Could not get
// authority info" and "Trying connection without authority info..." and
// connects without one, which such a server accepts (GLFW, which draws
// the window, connects through Xlib without a word). Those two lines say
// nothing is wrong, so they are dropped; anything else xgb logs still
// reaches standard error.
func init() {
	xgb.Logger = log.New(&dropLines{w: os.Stderr, drop: [][]byte{
		[]byte("Could not get authority info"),
		[]byte("Trying connection without authority info"),
	}}, "XGB: ", log.Lshortfile)
}

// dropLines writes to w every line but those containing one of drop.
type dropLines struct {
	w    io.Writer
	drop [][]byte
}

func (d *dropLines) Write(p []byte) (int, error) {
	for _, s := range d.drop {
		if bytes.Contains(p, s) {
			return len(p), nil
		}
	}
	return d.w.Write(p)
}
