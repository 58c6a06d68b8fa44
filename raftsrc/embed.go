//go:build !js

package raftsrc

import _ "embed"

//go:embed raft.tar.gz
var archive []byte
