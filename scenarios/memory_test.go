package scenarios

import (
	"fmt"
	"testing"
	"time"
)

// A headless run keeps no more than it needs (issue 13: ten minutes of a
// write every 10ms took 709 MB, and an idle cluster grew by 5 MB a virtual
// hour with -q). What it keeps is counted here, not measured: the events
// not yet given back, and the operations not yet reduced to what the check
// needs. BenchmarkLoadHour and BenchmarkIdleDay measure the memory.
func TestHeadlessRunKeepsLittle(t *testing.T) {
	for _, tc := range []struct {
		name, src string
	}{
		{"load", fmt.Sprintf(loadHour, time.Minute, time.Minute)},
		{"idle", "name: idle\nsteps:\n  - wait: 30m\n"},
	} {
		s, err := Parse(tc.name+".yaml", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewRunner(s, RunOptions{ForgetHistory: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Run(); err != nil {
			t.Fatal(err)
		}
		w := r.World()
		kept := w.HistoryLen() - w.HistoryStart()
		held := 0
		for _, op := range w.Ops() {
			if op != nil {
				held++
			}
		}
		t.Logf("%s: %d events, %d kept; %d operations, %d held whole, from %d", tc.name, w.HistoryLen(), kept, w.OpCount(), held, w.FirstOp())
		if tc.name == "load" && len(w.Ops()) > 10_000 {
			t.Errorf("%s: Ops holds %d of %d operations, from %d", tc.name, len(w.Ops()), w.OpCount(), w.FirstOp())
		}
		if kept > 2*forgetEvery {
			t.Errorf("%s: %d events kept of %d", tc.name, kept, w.HistoryLen())
		}
		if held > 2000 {
			t.Errorf("%s: %d operations of %d held whole", tc.name, held, len(w.Ops()))
		}
		if lin := w.CheckLinearizability(); !lin.OK {
			t.Errorf("%s: %s: %s", tc.name, lin.Result, lin.Detail)
		}
	}
}
