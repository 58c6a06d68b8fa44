package sim

import (
	"fmt"
	"math/bits"
	"reflect"
	"unsafe"
)

// chunkBytes is the size of a full chunk of a chunked or a recordLog: two
// huge pages. Tests make it small, to cross chunk boundaries often; a store
// keeps the size it started with.
var chunkBytes = 4 << 20

// firstChunkBytes is about the size of the first chunk. Each next chunk is
// twice the size of the one before, up to a full chunk, so that a short
// run (a lesson, a test) costs little, and nothing is ever copied to grow.
const firstChunkBytes = 4 << 10

// chunked is an append-only sequence kept in chunks. The first chunks
// grow from about firstChunkBytes, each twice the one before, while a
// chunk takes less than chunkBytes; the rest hold per items each. T must
// hold no pointers: full-size chunks may live outside the Go heap (see
// newChunk), where the garbage collector does not look.
type chunked[T any] struct {
	_       noCopy // the chunks outside the heap are given back when this is garbage
	chunks  [][]T
	frees   []func() // frees[k] gives chunk k back early (nil: the garbage collector does)
	dropped int      // the leading chunks given back (see dropBefore)
	per     int      // items in a full chunk
	grown   int      // how many chunks are growing ones
	before  int      // how many items they hold
	last    []T      // the last chunk
	used    int      // items used in last
	n       int
}

// noCopy makes go vet report a copy of what holds it.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

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
	if c.chunks == nil {
		c.per = chunkBytes / sizeOf[T]()
	}
	items := c.per
	if next := 1 << (c.firstShift() + len(c.chunks)); len(c.chunks) == c.grown && next < c.per {
		items = next
		c.grown++
		c.before += next
	}
	var free func()
	c.last, free = newChunk(&c.chunks, items)
	c.chunks = append(c.chunks, c.last)
	c.frees = append(c.frees, free)
	c.used = 0
}

// chunkOf returns the chunk that holds item i, and i's place in it.
func (c *chunked[T]) chunkOf(i int) (int, int) {
	if i < c.before {
		// Growing chunk k holds items f(2^k - 1) to f(2^(k+1) - 1) - 1.
		s := c.firstShift()
		k := bits.Len(uint(i>>s+1)) - 1
		return k, i - (1<<k-1)<<s
	}
	i -= c.before
	return c.grown + i/c.per, i % c.per
}

// dropBefore gives back every chunk whose items all come before item i;
// reading one of those items afterwards panics. The last chunk is kept.
func (c *chunked[T]) dropBefore(i int) {
	if i <= 0 || c.n == 0 {
		return
	}
	k, _ := c.chunkOf(min(i, c.n-1))
	for ; c.dropped < k; c.dropped++ {
		if f := c.frees[c.dropped]; f != nil {
			f()
		}
		c.chunks[c.dropped], c.frees[c.dropped] = nil, nil
	}
}

// keepFrom keeps items i on, which become items 0 on: they move to new
// chunks, and every old chunk is given back at once.
func (c *chunked[T]) keepFrom(i int) {
	kept := make([]T, 0, c.n-i)
	for j := i; j < c.n; j++ {
		kept = append(kept, *c.at(j))
	}
	for k, f := range c.frees {
		if f != nil && k >= c.dropped {
			f()
		}
	}
	c.chunks, c.frees, c.last = nil, nil, nil
	c.dropped, c.grown, c.before, c.used, c.n = 0, 0, 0, 0, 0
	for _, x := range kept {
		*c.add() = x
	}
}

// first returns the first item still kept.
func (c *chunked[T]) first() int {
	if c.dropped == 0 {
		return 0
	}
	if c.dropped <= c.grown {
		return (1<<c.dropped - 1) << c.firstShift()
	}
	return c.before + (c.dropped-c.grown)*c.per
}

// at returns the i-th item (0-based), which must have been added.
func (c *chunked[T]) at(i int) *T {
	if i < 0 || i >= c.n {
		panic(fmt.Sprintf("sim: item %d of %d", i, c.n))
	}
	k, j := c.chunkOf(i)
	if k < c.dropped {
		panic(fmt.Sprintf("sim: item %d was given back", i))
	}
	return &c.chunks[k][j]
}

// recordLog is an append-only byte stream of records of up to maxRecord
// bytes, kept in chunks that grow as a chunked's do. A record never spans
// two chunks.
type recordLog struct {
	_       noCopy
	chunks  [][]byte
	frees   []func() // as chunked's
	dropped int      // the leading chunks given back
	ends    []int    // where the records end in each chunk but the last
	last    []byte
	used    int // bytes used in last
	full    int // the size of a full chunk
}

// logPos is where a record starts.
type logPos struct{ chunk, off int }

// grow starts the next chunk when less than maxRecord bytes are left in
// the last. (A record is written in place at l.last[l.used:].)
func (l *recordLog) grow() {
	if l.chunks == nil {
		l.full = chunkBytes
	} else {
		l.ends = append(l.ends, l.used)
	}
	var free func()
	l.last, free = newChunk(&l.chunks, min(max(2*len(l.last), firstChunkBytes), l.full))
	l.chunks = append(l.chunks, l.last)
	l.frees = append(l.frees, free)
	l.used = 0
}

// from returns the log from the record at p on, and where that record is.
func (l *recordLog) from(p logPos) ([]byte, logPos) {
	if p.chunk < len(l.ends) && p.off == l.ends[p.chunk] {
		p = logPos{p.chunk + 1, 0} // the record did not fit in p's chunk
	}
	if p.chunk < l.dropped {
		panic(fmt.Sprintf("sim: record in chunk %d, which was given back", p.chunk))
	}
	return l.chunks[p.chunk][p.off:], p
}

// dropBefore gives back the chunks before chunk k; never the last.
func (l *recordLog) dropBefore(k int) {
	for ; l.dropped < min(k, len(l.chunks)-1); l.dropped++ {
		if f := l.frees[l.dropped]; f != nil {
			f()
		}
		l.chunks[l.dropped], l.frees[l.dropped] = nil, nil
	}
}

// len returns the number of bytes the records kept take.
func (l *recordLog) len() int {
	n := l.used
	for k, e := range l.ends {
		if k >= l.dropped {
			n += e
		}
	}
	return n
}

// pointerFree reports whether values of t hold no pointers.
func pointerFree(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return t.Len() == 0 || pointerFree(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !pointerFree(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}
