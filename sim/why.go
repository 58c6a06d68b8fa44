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
// formatted message. The citation attaches to the next event the history
// records after the call (the simulation is single-threaded: a member's
// Step, Tick or Ready is handled to its end before anything else runs, so
// that is the event raft's decision led to: the role change, the rejecting
// response, the drop). Off by default: nothing is captured and the trace
// and transcript are byte-identical to a run without it.

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
	h.whyPending = append(h.whyPending, raftCaller()+": "+msg)
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

// takeWhy hands the pending citations to event i (called as it is recorded).
func (h *history) takeWhy(i int) {
	if len(h.whyPending) == 0 {
		return
	}
	if h.whys == nil {
		h.whys = map[int]string{}
	}
	h.whys[i] = strings.Join(h.whyPending, "\n")
	h.whyPending = h.whyPending[:0]
}
