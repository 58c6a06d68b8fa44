package mvcc

import "bytes"

// A RecordPool lets the stores of one cluster's members share the records
// they write. Members apply the same entries in the same order, so each
// writes the same record at each revision: a store that finds in the pool
// a record equal to the one it is about to keep keeps that one instead of
// its own copy. Records are never changed once kept, so sharing them
// changes nothing a store answers; it only saves memory, once for each
// member beyond the first (a load of a million puts on three members kept
// three million records).
//
// The pool remembers the last records of about poolSize revisions, which
// covers members that apply within a few thousand revisions of each
// other; a member further behind keeps its own copies. The zero value is
// ready; a nil pool shares nothing.
type RecordPool struct {
	slots []*record
}

const poolSize = 1 << 12

// share returns the pool's record equal to r, or a new record with r's
// fields, which the pool then offers to other stores.
func (p *RecordPool) share(r *record) *record {
	if p == nil {
		c := *r
		return &c
	}
	if p.slots == nil {
		p.slots = make([]*record, poolSize)
	}
	slot := &p.slots[uint64(r.rev.Main+r.rev.Sub*7919)&(poolSize-1)]
	if o := *slot; o != nil && o.equal(r) {
		return o
	}
	c := *r
	*slot = &c
	return &c
}

func (r *record) equal(o *record) bool {
	return r.rev == o.rev && r.tomb == o.tomb && r.create == o.create && r.version == o.version && r.lease == o.lease &&
		bytes.Equal(r.key, o.key) && bytes.Equal(r.value, o.value) && (r.value == nil) == (o.value == nil)
}

// ShareRecords makes the store share its new records through p with the
// other stores that use p (the members of one cluster).
func (s *Store) ShareRecords(p *RecordPool) { s.records = p }
