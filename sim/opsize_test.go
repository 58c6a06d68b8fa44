package sim

import (
	"testing"
	"unsafe"
)

// TestOpSize keeps an Op within 512 bytes. Every request's Op is kept
// for the run, and Go's garbage collector marks objects of up to 512
// bytes a span at a time but larger ones each on its own: at 744 bytes
// an Op made a committed proposal about a tenth slower
// (BenchmarkSimProposal). A field that few requests use goes in opRare.
func TestOpSize(t *testing.T) {
	if n := unsafe.Sizeof(Op{}); n > 512 {
		t.Errorf("an Op is %d bytes, more than 512: move the fields few requests use to opRare", n)
	}
}
