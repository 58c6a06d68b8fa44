package sim

import "fmt"

// raftLogger keeps raft quiet (its default logger writes wall-clock
// timestamps to stderr) but keeps its Panic and Fatal methods fatal: raft
// calls them on broken invariants, and those must never pass silently.
// With the world's why switch on, its other methods record raft's line
// and message on the next event (why.go).
type raftLogger struct{ m *member }

func (l raftLogger) Debug(v ...any)                   { l.whyNote("", v, true) }
func (l raftLogger) Debugf(format string, v ...any)   { l.whyNote(format, v, false) }
func (l raftLogger) Info(v ...any)                    { l.whyNote("", v, true) }
func (l raftLogger) Infof(format string, v ...any)    { l.whyNote(format, v, false) }
func (l raftLogger) Warning(v ...any)                 { l.whyNote("", v, true) }
func (l raftLogger) Warningf(format string, v ...any) { l.whyNote(format, v, false) }
func (l raftLogger) Error(v ...any)                   { l.whyNote("", v, true) }
func (l raftLogger) Errorf(format string, v ...any)   { l.whyNote(format, v, false) }

func (l raftLogger) Fatal(v ...any)                 { l.Panic(v...) }
func (l raftLogger) Fatalf(format string, v ...any) { l.Panicf(format, v...) }
func (l raftLogger) Panic(v ...any)                 { l.Panicf("%s", fmt.Sprint(v...)) }
func (l raftLogger) Panicf(format string, v ...any) {
	panic(raftPanic{member: l.m.name, msg: fmt.Sprintf(format, v...), at: l.m.w.now, seed: l.m.w.cfg.Seed})
}

// raftPanic is raft's own assertion failing in a member: raft panics on a
// state it cannot go on from (a commit index beyond its log, a message
// from term 0). The world turns it into a violation that stops it
// (RaftAssertion); anywhere else it stays a panic.
type raftPanic struct {
	member, msg string
	at          Time
	seed        uint64
}

func (p raftPanic) String() string {
	return fmt.Sprintf("raft panic in %s at %s (seed=%d): %s", p.member, p.at, p.seed, p.msg)
}

// RaftAssertion is the invariant a Violation names when one of raft's own
// assertions fails inside a member: raft refuses to go on, as etcd's
// process would exit. With an unmodified simulator it is a bug in the
// simulator; with an injected bug it is often raft catching lost data
// ("Was the raft log corrupted, truncated, or lost?").
const RaftAssertion = "raft assertion"
