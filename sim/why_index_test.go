package sim

import (
	"testing"

	"github.com/raftsim/raftsim/raftsrc"
)

// Every decision sim cites is in raftsrc's index (decisions.go), so that
// the web page, whose build holds the index but not the source, cites it
// too. (Seen to fail with handleHeartbeat's line left out of the index.)
func TestWhyDecisionsAreIndexed(t *testing.T) {
	for _, d := range []decision{commitByQuorum, commitByAppend, commitByHeartbeat, commitBySnapshot, appendByLeader, appendByFollower} {
		n, ok := raftsrc.Indexed(d.file, d.fn, d.code)
		if !ok {
			t.Errorf("%s %s %q is not in raftsrc/decisions.go", d.file, d.fn, d.code)
			continue
		}
		if m, _ := raftsrc.Locate(d.file, d.fn, d.code); m != n {
			t.Errorf("%s %s: the index says line %d, the source %d", d.file, d.fn, n, m)
		}
	}
}
