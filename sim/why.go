package sim

import (
	"fmt"
	"path"
	"runtime"
	"strings"
)

// Why: raft's own reasons, cited (issue 32). With the world's why switch on
// (SetWhy), every call raft makes to its Logger records the file:line of
// the call inside go.etcd.io/raft/v3, the calling function and raft's
// formatted message. The citation attaches to an event of the same member
// (the one the event's Node names: a fact's member, a send's or a drop's
// sender, a delivery's receiver) from the same handling: the handling
// of one input to the member (a message's arrival, a tick) runs to its end
// before anything else, since the simulation is single-threaded. A line
// goes to the first event of its member recorded after it in its handling
// (the role change, the rejecting response, the message it sends); a line
// logged after its handling's last event (a vote counted while the Ready
// is handled) goes to that last event; a line whose handling records no
// event of its member goes to the member's next one. Off by default:
// nothing is captured and the trace and transcript are byte-identical to a
// run without it.

// raftModule is the import path prefix of the raft library's frames.
const raftModule = "go.etcd.io/raft/v3"

// SetWhy turns the capture of raft's log lines on or off.
func (w *World) SetWhy(on bool) { w.history.whyOn = on }

// Why reports whether the capture is on.
func (w *World) Why() bool { return w.history.whyOn }

// whyNote records one of raft's log lines if the capture is on.
func (l raftLogger) whyNote(format string, v []any, sprint bool) {
	h := &l.m.w.history
	if !h.whyOn {
		return
	}
	var msg string
	if sprint {
		msg = fmt.Sprint(v...)
	} else {
		msg = fmt.Sprintf(format, v...)
	}
	h.whyPending = append(h.whyPending, whyLine{node: l.m.id, input: h.whyInput[l.m.id], text: raftCaller() + ": " + msg})
}

// raftCaller walks up the stack past the logger to the first frame inside
// raft and returns "file.go:line (*raft).Step".
func raftCaller() string {
	var pcs [16]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, raftModule+".") || strings.HasPrefix(f.Function, raftModule+"/") {
			fn := f.Function[strings.LastIndex(f.Function, "/")+1:]
			fn = fn[strings.Index(fn, ".")+1:]
			return fmt.Sprintf("%s:%d %s", raftFile(f.File), f.Line, fn)
		}
		if !more {
			return "?:0 ?"
		}
	}
}

// raftFile is file's path inside the raft module ("raft.go",
// "tracker/progress.go"); its base name when it is not in the module cache.
func raftFile(file string) string {
	if i := strings.Index(file, raftModule+"@"); i >= 0 {
		rest := file[i+len(raftModule)+1:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			return rest[j+1:]
		}
	}
	return path.Base(file)
}

// whyLine is one of raft's log lines, cited, waiting for an event of the
// member (node) that logged it, during its input-th handling.
type whyLine struct {
	node, input uint64
	text        string
}

// whyEvent is a member's last event: its index, and the handling it was
// recorded in.
type whyEvent struct {
	index int
	input uint64
}

// newInput notes that a member begins to handle an input: the citations
// logged from now on are of this handling.
func (h *history) newInput(node uint64) {
	if !h.whyOn {
		return
	}
	if h.whyInput == nil {
		h.whyInput, h.whyLast = map[uint64]uint64{}, map[uint64]whyEvent{}
	}
	h.whyInput[node]++
}

// takeWhy hands node's pending citations to event i, node's (called as it
// is recorded), or to node's last event when the lines came after it in
// its handling. The others' lines wait, in order.
func (h *history) takeWhy(i int, node uint64) {
	last, hadLast := h.whyLast[node]
	kept := h.whyPending[:0]
	for _, l := range h.whyPending {
		switch {
		case l.node != node:
			kept = append(kept, l)
		case l.input != h.whyInput[node] && hadLast && last.input == l.input && last.index >= h.first:
			h.addWhy(last.index, l.text)
		default:
			h.addWhy(i, l.text)
		}
	}
	h.whyPending = kept
	if h.whyLast != nil {
		h.whyLast[node] = whyEvent{index: i, input: h.whyInput[node]}
	}
}

// addWhy appends a citation to event i's.
func (h *history) addWhy(i int, line string) {
	if h.whys == nil {
		h.whys = map[int]string{}
	}
	if old, ok := h.whys[i]; ok {
		line = old + "\n" + line
	}
	h.whys[i] = line
}
