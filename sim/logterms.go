package sim

// LogTerms returns the member's durable log as terms: terms[i-1] is the
// term of its entry at index i, for every index from 1 to its last. An
// index it has compacted away, below its snapshot, has term 0 (raft's
// terms start at 1). It is what the Raft paper's figures draw.
func (w *World) LogTerms(name string) ([]uint64, bool) {
	m := w.byName[name]
	if m == nil {
		return nil, false
	}
	terms := make([]uint64, m.lastIndex())
	for i := range terms {
		if e, ok := m.entryAt(uint64(i + 1)); ok {
			terms[i] = e.Term
		}
	}
	return terms, true
}
