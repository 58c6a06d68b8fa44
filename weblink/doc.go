// Package weblink puts a scenario into a link to raftsim's web page and
// reads it back. A link carries the scenario itself (the YAML that the
// window's save writes and `raftsim run` replays), deflated and in
// base64url, so that a student can send the exact state of a session to a
// teacher as one URL, and the page needs no server of its own to open it.
//
// It also reads what the page reports of a world (State) for tests to
// compare with a headless run.
package weblink
