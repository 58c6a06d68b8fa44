// Package guitest holds the tests of the real window: they build
// raftsim-gui, run it on a display (Xvfb in CI) and check facts from the
// pixels of its screenshots. The package itself links no ebiten, so `go
// test ./...` without a display skips these tests instead of dying in
// ebiten's init; with RAFTSIM_REQUIRE_GUI=1 (as CI sets) they fail.
package guitest
