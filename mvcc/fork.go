package mvcc

// The members of a cluster restored from one snapshot begin with the same
// store: a snapshot of a production cluster holds hundreds of megabytes of
// records, which every member decoding its own copy held five times over
// (issue 30). DecodeShared decodes it once, its records' bytes in the
// snapshot data itself; Fork gives each member a store that shares those
// records, which are never changed once in a backend (the record pool
// shares the later ones in the same way), and has its own key index and
// revision list, which its writes and compactions change.

// DecodeShared is Decode whose records' keys and values are data's own
// bytes, not copies, frozen (Freeze): data must not change while the
// store, or a fork of it, is in use.
func DecodeShared(data []byte) (*Store, error) {
	s, err := decode(data, nil, true)
	if err != nil {
		return nil, err
	}
	return s.Freeze(), nil
}

// Freeze returns a fork of s that is never written (a write panics), and
// whose own forks leave it as it is: forks of it may be taken and used
// from several goroutines at once (a restored snapshot's store, which the
// worlds of a scenario's seeds start from).
func (s *Store) Freeze() *Store {
	f := s.Fork(nil)
	f.frozen = true
	return f
}

// Fork returns a store that answers as s does and changes apart from it,
// sharing its records; lessor is told of the leases attached to keys, in
// key order, as Decode tells it. The two share the key index's blocks and
// the backend's chunks until either changes them (copy on write), so a
// fork costs a pointer per block of keys and per chunk of records, not a
// copy of the index: a member's raft snapshot forks its store (issue 30).
func (s *Store) Fork(lessor Lessor) *Store {
	f := New()
	f.currentRev, f.compactMainRev, f.lessor = s.currentRev, s.compactMainRev, lessor
	f.backend = s.backend.fork(!s.frozen)
	f.index = s.index.fork(!s.frozen)
	if lessor != nil {
		f.index.ascend(nil, func(ki *keyIndex) bool {
			if g := &ki.generations[len(ki.generations)-1]; !g.isEmpty() {
				if r := f.fetch(ki, ki.modified); !r.tomb && r.lease != 0 {
					lessor.Attach(r.lease, string(ki.key))
				}
			}
			return true
		})
	}
	return f
}
