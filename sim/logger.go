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
	panic(fmt.Sprintf("raft panic in %s at %s (seed=%d): %s",
		l.m.name, l.m.w.now, l.m.w.cfg.Seed, fmt.Sprintf(format, v...)))
}
