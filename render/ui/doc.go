// Package ui is the part of the window that needs no display: where things
// go on screen (layout, the ring of members, messages along their links),
// what a click lands on (hit-testing), what colour and shape each role and
// message type gets, the timeline and its seek, and the App that turns
// input events into sim commands.
//
// The layout and the ring are a pure function of a Screen (Lay: the window's
// size and scale, the language, the parts shown, and the cluster's shape,
// from a sim.Config by ShapeOf or from a sim.View by ViewShape);
// hit-testing is a pure function of a Frame and a point (HitTest); colours
// and shapes are pure functions of what they colour (TermColor,
// OpStatusColor, MarkColor). A Frame is built from the App (BuildFrame):
// the current world's View, and the world itself (Session.World) for what
// a View does not hold. The App too, as it acts on input, reads the
// current world: the history's events, an op by its label, the clients, a
// member's info, a violation, the last caption, the world's
// configuration. All of it is tested with plain
// `go test`, without ebiten (whose init panics without a display).
// Package render draws what this package computes and feeds it ebiten's
// input.
//
// The App holds no simulation state of its own beyond the configuration,
// the command log and the current world (see Session): seeking replays the
// log with sim.Replay, and acting in the past forks the log.
package ui
