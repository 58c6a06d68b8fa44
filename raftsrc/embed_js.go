//go:build js

package raftsrc

// archive is empty in the web page: its 82 kB would count towards the
// page's first frame, and the why card there shows raft's lines without
// the source around them (docs/gui.md).
var archive []byte
