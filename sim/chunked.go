package sim

import (
	"math/bits"
	"unsafe"
)

// chunkBytes is the size of a full chunk of a chunked or a recordLog: two
// huge pages. Tests make it small, to cross chunk boundaries often.
var chunkBytes = 4 << 20

// firstChunkBytes is about the size of the first chunk. Each next chunk is
// twice the size of the one before, up to chunkBytes, so that a short run
// (a lesson, a test) costs little, and nothing is ever copied to grow.
const firstChunkBytes = 4 << 10

// nextChunkBytes returns the size of the recordLog chunk after one of prev
// bytes (0: none yet).
func nextChunkBytes(prev int) int { return min(max(2*prev, firstChunkBytes), chunkBytes) }

// chunked is an append-only sequence kept in chunks. The first chunks
// grow from about firstChunkBytes, each twice the one before, until a
// chunk would take chunkBytes; the rest take chunkBytes each. T must hold
// no pointers: full-size chunks may live outside the Go heap (see
// newChunk).
type chunked[T any] struct {
	chunks [][]T
	grown  int // how many chunks are growing ones
	before int // how many items they hold
	last   []T // the last chunk
	used   int // items used in last
	n      int
}

func sizeOf[T any]() int {
	var zero T
	return int(unsafe.Sizeof(zero))
}

// firstShift is log2 of how many items the first chunk holds: a power of
// two, so that finding an item's growing chunk takes a shift, not a search.
func (c *chunked[T]) firstShift() int { return bits.Len(uint(max(firstChunkBytes/sizeOf[T](), 1))) - 1 }

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
	items := chunkBytes / sizeOf[T]()
	if next := 1 << (c.firstShift() + len(c.chunks)); len(c.chunks) == c.grown && next*sizeOf[T]() < chunkBytes {
		items = next
		c.grown++
		c.before += next
	}
	c.last = newChunk(&c.chunks, items)
	c.chunks = append(c.chunks, c.last)
	c.used = 0
}

// at returns the i-th item (0-based).
func (c *chunked[T]) at(i int) *T {
	if i < c.before {
		// Growing chunk k holds items f(2^k - 1) to f(2^(k+1) - 1) - 1.
		s := c.firstShift()
		k := bits.Len(uint(i>>s+1)) - 1
		return &c.chunks[k][i-(1<<k-1)<<s]
	}
	i -= c.before
	per := chunkBytes / sizeOf[T]()
	return &c.chunks[c.grown+i/per][i%per]
}

// recordLog is an append-only byte stream of records of up to maxRecord
// bytes, kept in chunks. A record never spans two chunks.
type recordLog struct {
	chunks [][]byte
	ends   []int // where the records end in each chunk but the last
	last   []byte
	used   int // bytes used in last
}

// logPos is where a record starts.
type logPos struct{ chunk, off int }

// grow starts the next chunk when less than maxRecord bytes are left in
// the last. (A record is written in place at l.last[l.used:].)
func (l *recordLog) grow() {
	if len(l.chunks) > 0 {
		l.ends = append(l.ends, l.used)
	}
	l.last = newChunk(&l.chunks, nextChunkBytes(len(l.last)))
	l.chunks = append(l.chunks, l.last)
	l.used = 0
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
