// Package ui is the part of the window that needs no display: where things
// go on screen (layout, the ring of members, messages along their links),
// what a click lands on (hit-testing), what colour and shape each role and
// message type gets, the timeline and its seek, and the App that turns
// input events into sim commands.
//
// The layout, the ring, hit-testing, colours and shapes are pure functions
// of a sim.View, a screen size and the App's own state. The App itself, as
// it builds a frame and acts on input, also reads the current world
// (Session.World) for what a View does not hold: the history's events,
// an op by its label, the clients, a member's info, a violation, the last
// caption, the world's configuration. All of it is tested with plain
// `go test`, without ebiten (whose init panics without a display).
// Package render draws what this package computes and feeds it ebiten's
// input.
//
// The App holds no simulation state of its own beyond the configuration,
// the command log and the current world (see Session): seeking replays the
// log with sim.Replay, and acting in the past forks the log.
package ui
