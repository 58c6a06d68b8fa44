// Package render draws the raftsim window with ebiten and turns ebiten's
// input into the ui package's input events. It is the only package that
// imports ebiten; everything it draws is placed by package ui (its Layout
// and Frame), so this package only paints.
//
// NB: a binary that links this package cannot start without a display
// (ebiten's init panics with no DISPLAY on Linux). Only cmd/raftsim-gui
// imports it; the headless cmd/raftsim execs that binary for the window.
package render
