package sim

// entryLog is a member's mirror of the log it persisted: the entries from
// index first on. Its entries are kept in chunks (see chunked), so that a
// long log grows without being copied.
type entryLog struct {
	first   uint64 // the index of the first entry kept
	start   int    // where that entry is in entries
	n       int    // how many entries are kept
	entries *chunked[logEntry]
}

// reset empties the log, to continue at index first.
func (l *entryLog) reset(first uint64) { *l = entryLog{first: first, entries: &chunked[logEntry]{}} }

// last returns the index of the last entry (first-1 when empty).
func (l *entryLog) last() uint64 { return l.first + uint64(l.n) - 1 }

// at returns the entry at index i, which the log must hold.
func (l *entryLog) at(i uint64) *logEntry { return l.entries.at(l.start + int(i-l.first)) }

// truncate drops the entries from index i on.
func (l *entryLog) truncate(i uint64) { l.n = int(i - l.first) }

// append adds an entry after the last.
func (l *entryLog) append(e logEntry) {
	if l.entries == nil {
		l.entries = &chunked[logEntry]{}
	}
	if k := l.start + l.n; k < l.entries.n {
		*l.entries.at(k) = e // over one that was truncated
	} else {
		*l.entries.add() = e
	}
	l.n++
}

// compact drops the entries before index first. Once most of what the log
// holds is dropped, what is left moves to new chunks and the old ones are
// given back.
func (l *entryLog) compact(first uint64) {
	drop := int(first - l.first)
	l.first, l.start, l.n = first, l.start+drop, l.n-drop
	if l.start > l.n {
		kept := &chunked[logEntry]{}
		for i := range l.n {
			*kept.add() = *l.entries.at(l.start + i)
		}
		l.entries, l.start = kept, 0
	}
}
