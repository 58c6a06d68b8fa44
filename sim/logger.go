package sim

import "fmt"

// raftLogger keeps raft quiet (its default logger writes wall-clock
// timestamps to stderr) but keeps its Panic and Fatal methods fatal: raft
// calls them on broken invariants, and those must never pass silently.
type raftLogger struct{ m *member }

func (raftLogger) Debug(...any)            {}
func (raftLogger) Debugf(string, ...any)   {}
func (raftLogger) Info(...any)             {}
func (raftLogger) Infof(string, ...any)    {}
func (raftLogger) Warning(...any)          {}
func (raftLogger) Warningf(string, ...any) {}
func (raftLogger) Error(...any)            {}
func (raftLogger) Errorf(string, ...any)   {}

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
