package mvcc

import "sort"

// backend holds every change not compacted away, in revision order, as
// etcd's bbolt "key" bucket does. It grows in chunks of chunkSize records
// that never move once written: a long run writes tens of thousands of
// records, and a plain slice would copy all of them each time it grew
// (and make the collector scan the old copies too). It holds pointers: a
// record is never changed once in a backend, so that the members of a
// cluster can share it (RecordPool).
//
// Forks share chunks (copy on write): the chunks before shared may be
// shared with a fork, and are copied before a compaction changes them.
type backend struct {
	chunks [][]*record // every chunk but the last holds chunkSize records
	n      int
	shared int // chunks[:shared] are shared with a fork
}

const (
	chunkBits = 8
	chunkSize = 1 << chunkBits
)

func (b *backend) len() int { return b.n }

// at returns the i'th record, oldest first.
func (b *backend) at(i int) *record { return b.chunks[i>>chunkBits][i&(chunkSize-1)] }

// last returns the newest record, or nil when the backend is empty.
func (b *backend) last() *record {
	if b.n == 0 {
		return nil
	}
	return b.at(b.n - 1)
}

// append adds r after the newest record. The first chunk grows as a slice
// does, so that a small store stays small; later chunks are made whole.
func (b *backend) append(r *record) {
	c := b.n >> chunkBits
	if c == len(b.chunks) {
		capacity := chunkSize
		if c == 0 {
			capacity = 4
		}
		b.chunks = append(b.chunks, make([]*record, 0, capacity))
	}
	b.chunks[c] = append(b.chunks[c], r)
	b.n++
}

// fork returns a backend that holds what b holds and shares its chunks
// until either changes them. The fork's chunks are at their length, so
// that its append to its last chunk copies it; b's appends go past the
// fork's length, where the fork does not look.
func (b *backend) fork(live bool) backend {
	f := backend{chunks: make([][]*record, len(b.chunks)), n: b.n, shared: len(b.chunks)}
	for i, c := range b.chunks {
		f.chunks[i] = c[:len(c):len(c)]
	}
	if live {
		b.shared = len(b.chunks)
	}
	return f
}

// search returns the first position whose record is not before target,
// with before saying whether a record comes before it (sort.Search).
func (b *backend) search(before func(r *record) bool) int {
	return sort.Search(b.n, func(i int) bool { return !before(b.at(i)) })
}

func (b *backend) set(i int, r *record) { b.chunks[i>>chunkBits][i&(chunkSize-1)] = r }

// deleteFunc drops the records del names, keeping the others in order,
// as slices.DeleteFunc does.
func (b *backend) deleteFunc(del func(r *record) bool) {
	for i := range b.shared {
		b.chunks[i] = append(make([]*record, 0, max(cap(b.chunks[i]), chunkSize)), b.chunks[i]...)
	}
	b.shared = 0
	w := 0
	for i := 0; i < b.n; i++ {
		r := b.at(i)
		if del(r) {
			continue
		}
		if w != i {
			b.set(w, r)
		}
		w++
	}
	for i := w; i < b.n; i++ {
		b.set(i, nil) // let the collector have the dropped records
	}
	chunks := (w + chunkSize - 1) >> chunkBits
	clear(b.chunks[chunks:])
	b.chunks = b.chunks[:chunks]
	if chunks > 0 {
		last := chunks - 1
		b.chunks[last] = b.chunks[last][:w-last<<chunkBits]
	}
	b.n = w
}
