//go:build js

package raftsrc

// archive is empty in the web page: its 82 kB would count towards the
// page's first frame. The page serves it beside itself as
// raft-source.tar.gz (WebFile) and fetches it the first time a why card
// asks for the source (Fetch, Provide).
var archive []byte
