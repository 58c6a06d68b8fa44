package sim

import "unsafe"

// chunkBytes is the size of a full chunk of a chunked or a recordLog: two
// huge pages. Tests make it small, to cross chunk boundaries often.
var chunkBytes = 4 << 20

// chunked is an append-only sequence kept in chunks of chunkBytes, so that
// it grows without ever copying more than its first chunk. T must hold no
// pointers: chunks after the first may live outside the Go heap (see
// newChunk).
type chunked[T any] struct {
	chunks [][]T // every chunk but the last is full
	last   []T   // the last chunk, to its capacity
	used   int   // items used in last
	n      int
}

// perChunk is how many items a full chunk holds.
func (c *chunked[T]) perChunk() int {
	var zero T
	return chunkBytes / int(unsafe.Sizeof(zero))
}

// add appends a zero item and returns it to be filled in.
func (c *chunked[T]) add() *T {
	if c.used == len(c.last) {
		c.grow()
	}
	p := &c.last[c.used]
	c.used++
	c.n++
	return p
}

func (c *chunked[T]) grow() {
	c.last = growChunks(&c.chunks, c.used, c.perChunk())
	c.used = c.n % c.perChunk()
}

// at returns the i-th item (0-based).
func (c *chunked[T]) at(i int) *T {
	per := c.perChunk()
	return &c.chunks[i/per][i%per]
}

// growChunks makes room in chunks, whose last chunk has used items in use
// and whose full chunks hold per items, and returns the last chunk to its
// capacity. The first chunk grows as a slice does (copying), so that a
// short run (a lesson, a test) costs only what it keeps; the next ones are
// full size from the start.
func growChunks[T any](chunks *[][]T, used, per int) []T {
	cs := *chunks
	switch {
	case len(cs) == 0:
		cs = [][]T{make([]T, 256)}
	case len(cs) == 1 && len(cs[0]) < per:
		first := make([]T, min(2*len(cs[0]), per))
		copy(first, cs[0][:used])
		cs[0] = first
	default:
		cs = append(cs, newChunk(chunks, per))
	}
	*chunks = cs
	return cs[len(cs)-1]
}

// recordLog is an append-only byte stream of records of up to maxRecord
// bytes, kept in chunks of chunkBytes. A record never spans two chunks.
type recordLog struct {
	chunks [][]byte
	ends   []int // where the records end in each chunk but the last
	last   []byte
	used   int // bytes used in last
}

// logPos is where a record starts.
type logPos struct{ chunk, off int }

// grow starts a chunk, or grows the first, when less than maxRecord bytes
// are left in the last: a record never spans two chunks. (A record is
// written in place at l.last[l.used:].)
func (l *recordLog) grow() {
	grown := growChunks(&l.chunks, l.used, chunkBytes)
	if len(l.chunks) > len(l.ends)+1 {
		l.ends = append(l.ends, l.used)
		l.used = 0
	}
	l.last = grown
}

// from returns the log from the record at p on, and where that record is.
func (l *recordLog) from(p logPos) ([]byte, logPos) {
	if p.chunk < len(l.ends) && p.off == l.ends[p.chunk] {
		p = logPos{p.chunk + 1, 0} // the record did not fit in p's chunk
	}
	return l.chunks[p.chunk][p.off:], p
}

// len returns the number of bytes the records take.
func (l *recordLog) len() int {
	n := l.used
	for _, e := range l.ends {
		n += e
	}
	return n
}
