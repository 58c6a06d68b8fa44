// Package present is the presenter, with no display: the lesson as a
// sequence of narrative steps (say, pause, chapter) built from its
// scenario; runs of it that stop at each step and can be made again at
// any step, deterministically; the Presenter, which owns where the
// teacher is in the lesson and the keys that move there (the clicker's,
// the chapters, Tab, Enter), and says what the caption area shows
// (Narration); how long a caption must stay for a class to read it; and
// the pacing that slows time while messages fly and hurries it through
// stretches where nothing is sent.
//
// The window (render/ui's App) holds a Presenter, is its Host, forwards
// it every key and every frame, and draws what it says; the pacing test
// drives it frame by frame at the window's TPS. Nothing here reads the
// wall clock: time on screen is counted in frames.
package present
