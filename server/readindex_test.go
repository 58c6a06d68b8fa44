package server

import (
	"slices"
	"testing"
)

// testRead is a read with its progress, as a member's operation holds it.
type testRead struct {
	id      uint64
	index   uint64
	known   bool
	pending bool
}

func (r *testRead) ReadID() uint64            { return r.id }
func (r *testRead) ReadIndex() (uint64, bool) { return r.index, r.known }
func (r *testRead) SetReadIndex(i uint64)     { r.index, r.known = i, true }
func (r *testRead) Pending() bool             { return r.pending }

// The read-index path: a read waits for its index (only its own context
// gives it one), then for the apply; a new leader fails the reads without
// an index and keeps the others; a read no longer pending is forgotten.
func TestReads(t *testing.T) {
	var q Reads[*testRead]
	a, b, c := &testRead{id: 1, pending: true}, &testRead{id: 2, pending: true}, &testRead{id: 3, pending: true}
	q.Add(a)
	q.Add(b)
	q.Add(c)
	q.ReadState(ReadCtx(1), 10)
	q.ReadState([]byte{0, 1}, 99) // not a read's context
	if i, ok := a.ReadIndex(); !ok || i != 10 {
		t.Fatalf("a's read index = %d, %v; want 10", i, ok)
	}
	if _, ok := b.ReadIndex(); ok || !q.NeedsIndex(b) || q.NeedsIndex(a) {
		t.Fatal("b was given another read's index, or a still asks for one")
	}
	var answered, failed []uint64
	q.Applied(9, func(r *testRead) { answered = append(answered, r.id) })
	if len(answered) != 0 {
		t.Fatalf("answered %v before the apply reached their index", answered)
	}
	q.LeaderChanged(func(r *testRead) { failed = append(failed, r.id); r.pending = false })
	if !slices.Equal(failed, []uint64{2, 3}) || q.Len() != 1 {
		t.Fatalf("a new leader failed %v (%d left), want [2 3] and a kept", failed, q.Len())
	}
	d := &testRead{id: 4, pending: true}
	q.Add(d)
	q.ReadState(ReadCtx(4), 12)
	d.pending = false // its client gave up
	q.Applied(12, func(r *testRead) { answered = append(answered, r.id) })
	if !slices.Equal(answered, []uint64{1}) || q.Len() != 0 {
		t.Fatalf("answered %v (%d left) at apply 12, want [1] and none left", answered, q.Len())
	}
}
