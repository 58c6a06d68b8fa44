package dbsize

import (
	"slices"
	"sort"
)

// bbolt's and etcd's constants (bbolt internal/common/page.go, node.go;
// etcd server/storage/backend/batch_tx.go).
const (
	// PageSize is bbolt's page on Linux.
	PageSize       = 4096
	pageHeaderSize = 16
	elementSize    = 16 // a leaf's or a branch's element header
	minKeysPerPage = 2
	seqFillPercent = 0.9 // etcd's UnsafeSeqPut, and its defrag
	defFillPercent = 0.5 // bbolt's default
	// revKeyLen is a key bucket key: a revision (18 bytes for a tombstone).
	revKeyLen   = 17
	leaseKeyLen = 8
)

// Bucket names a bucket the model follows.
type Bucket int

// The buckets that grow.
const (
	KeyBucket   Bucket = iota // every change of the store, by revision
	LeaseBucket               // every lease, by ID
	buckets
)

// Key orders a bucket's keys: a revision (Main, Sub) in the key bucket, a
// lease ID (Main) in the lease bucket.
type Key struct{ Main, Sub int64 }

func (a Key) less(b Key) bool { return a.Main < b.Main || a.Main == b.Main && a.Sub < b.Sub }

type elem struct {
	key  Key
	size int32 // the element header, key and value
}

type node struct {
	leaf       bool
	elems      []elem  // a leaf's
	kids       []*node // a branch's
	pgid       uint64  // its page; 0 until written
	pages      uint64  // how many pages it was written to
	dirty      bool    // touched in this transaction: written anew at commit
	unbalanced bool    // lost an element or a child in this transaction
}

func (n *node) first() Key {
	if n.leaf {
		if len(n.elems) == 0 {
			return Key{}
		}
		return n.elems[0].key
	}
	return n.kids[0].first()
}

func (n *node) count() int {
	if n.leaf {
		return len(n.elems)
	}
	return len(n.kids)
}

func (n *node) minKeys() int {
	if n.leaf {
		return 1
	}
	return 2
}

type tree struct {
	root   *node
	keyLen int
	seqTx  bool // a sequential put in this transaction: etcd set FillPercent 0.9
}

func (t *tree) elemSize(i int, n *node) int {
	if n.leaf {
		return int(n.elems[i].size)
	}
	return elementSize + t.keyLen
}

func (t *tree) size(n *node) int {
	if !n.leaf {
		return pageHeaderSize + len(n.kids)*(elementSize+t.keyLen)
	}
	sz := pageHeaderSize
	for _, e := range n.elems {
		sz += int(e.size)
	}
	return sz
}

// Model is one member's database.
type Model struct {
	trees   [buckets]tree
	hwm     uint64   // bbolt's high-water mark: pages in the file
	root    uint64   // the root bucket's page, written at every commit
	free    []uint64 // pages free for reuse, sorted
	prev    []uint64 // pages freed by the previous commit (a read transaction may still use them)
	cur     []uint64 // pages freed by this transaction
	changes int      // changes since the last commit
}

// New returns the database of a new etcd member: 5 pages, one of them free
// (DB SIZE 20 kB, IN USE 16 kB, as a real v3.6.16 member reports).
func New() *Model {
	m := &Model{hwm: 5, root: 4, free: []uint64{2}, prev: []uint64{3}}
	m.trees[KeyBucket].keyLen = revKeyLen
	m.trees[LeaseBucket].keyLen = leaseKeyLen
	return m
}

// Size is etcd's DB SIZE: the pages of the file, in bytes.
func (m *Model) Size() int64 { return int64(m.hwm) * PageSize }

// SizeInUse is etcd's IN USE: the file less its free pages.
func (m *Model) SizeInUse() int64 { return int64(m.hwm-uint64(len(m.free))) * PageSize }

// Pending returns how many changes wait for the next commit.
func (m *Model) Pending() int { return m.changes }

// Put writes a key of the bucket with a value of valueLen bytes (a new
// key, or a new value of one that is there). seq says it is an append
// (etcd's UnsafeSeqPut: the key bucket).
func (m *Model) Put(b Bucket, k Key, keyLen, valueLen int, seq bool) {
	t := &m.trees[b]
	if seq {
		t.seqTx = true
	}
	m.changes++
	if t.root == nil {
		t.root = &node{leaf: true}
	}
	leaf := t.descend(k)
	e := elem{key: k, size: int32(elementSize + keyLen + valueLen)}
	i, found := slices.BinarySearchFunc(leaf.elems, k, func(x elem, k Key) int {
		if x.key.less(k) {
			return -1
		}
		if k.less(x.key) {
			return 1
		}
		return 0
	})
	if found {
		leaf.elems[i] = e
		return
	}
	leaf.elems = slices.Insert(leaf.elems, i, e)
}

// Touch records a change to a small bucket (meta, alarm, members): the
// next commit writes the root page.
func (m *Model) Touch() { m.changes++ }

// Delete removes a key of the bucket, if it is there.
func (m *Model) Delete(b Bucket, k Key) {
	t := &m.trees[b]
	if t.root == nil {
		return
	}
	m.changes++
	leaf := t.descend(k)
	i, found := slices.BinarySearchFunc(leaf.elems, k, func(x elem, k Key) int {
		if x.key.less(k) {
			return -1
		}
		if k.less(x.key) {
			return 1
		}
		return 0
	})
	if found {
		leaf.elems = slices.Delete(leaf.elems, i, i+1)
		leaf.unbalanced = true
	}
}

// descend returns the leaf that holds (or would hold) k, marking the path
// dirty, as bbolt materialises the nodes a cursor walks through to write.
func (t *tree) descend(k Key) *node {
	n := t.root
	for {
		n.dirty = true
		if n.leaf {
			return n
		}
		i := sort.Search(len(n.kids), func(i int) bool { return k.less(n.kids[i].first()) }) - 1
		n = n.kids[max(i, 0)]
	}
}

// Commit ends the batch transaction, as bbolt's Tx.Commit does after
// etcd's batch interval: rebalance, then spill every touched node to new
// pages, freeing the old ones, and write the root bucket's page (etcd
// writes the consistent index into meta at every commit). Pages freed by
// the commit before become reusable.
func (m *Model) Commit() {
	if m.changes == 0 {
		return
	}
	for b := range m.trees {
		t := &m.trees[b]
		if t.root != nil {
			m.rebalanceRoot(t)
			m.spillRoot(t)
		}
		t.seqTx = false
	}
	m.release(m.root, 1)
	m.root = m.allocate(1)
	m.free = append(m.free, m.prev...)
	slices.Sort(m.free)
	m.prev, m.cur = m.cur, nil
	m.changes = 0
}

func (t *tree) fill() float64 {
	if t.seqTx {
		return seqFillPercent
	}
	return defFillPercent
}

// rebalanceRoot merges the nodes that deletes left too small (bbolt's
// node.rebalance), children before parents, and collapses a root branch
// with one child.
func (m *Model) rebalanceRoot(t *tree) {
	if !t.root.leaf {
		m.rebalanceKids(t, t.root)
	}
	for !t.root.leaf && len(t.root.kids) == 1 {
		old := t.root
		t.root = old.kids[0]
		t.root.dirty = true
		m.release(old.pgid, old.pages)
	}
}

func (m *Model) rebalanceKids(t *tree, n *node) {
	threshold := int(float64(PageSize)*t.fill()) / 2
	for i := 0; i < len(n.kids); {
		c := n.kids[i]
		if !c.leaf {
			m.rebalanceKids(t, c)
		}
		if !c.unbalanced {
			i++
			continue
		}
		c.unbalanced = false
		if t.size(c) > threshold && c.count() > c.minKeys() {
			i++
			continue
		}
		n.dirty, n.unbalanced = true, true
		if c.count() == 0 {
			n.kids = slices.Delete(n.kids, i, i+1)
			m.release(c.pgid, c.pages)
			continue
		}
		if len(n.kids) == 1 {
			i++
			continue
		}
		left, right, at := c, n.kids[min(i+1, len(n.kids)-1)], i+1
		if i > 0 {
			left, right, at = n.kids[i-1], c, i
		}
		left.elems = append(left.elems, right.elems...)
		left.kids = append(left.kids, right.kids...)
		left.dirty = true
		n.kids = slices.Delete(n.kids, at, at+1)
		m.release(right.pgid, right.pages)
		if at == i {
			continue // c merged into its left sibling: i is the next child now
		}
		i++
	}
}

// spillRoot writes the tree's touched nodes, splitting those that outgrew
// their page, and grows a new root while the root splits.
func (m *Model) spillRoot(t *tree) {
	for {
		parts := m.spill(t, t.root)
		if len(parts) == 1 {
			t.root = parts[0]
			return
		}
		t.root = &node{kids: parts, dirty: true}
	}
}

// spill writes n (and its touched descendants) and returns the nodes it
// became.
func (m *Model) spill(t *tree, n *node) []*node {
	if !n.dirty {
		return []*node{n}
	}
	if !n.leaf {
		var kids []*node
		for _, c := range n.kids {
			kids = append(kids, m.spill(t, c)...)
		}
		n.kids = kids
	}
	parts := splitter(m, t, n)
	for _, p := range parts {
		if p.pgid != 0 {
			m.release(p.pgid, p.pages)
		}
		p.pages = uint64((t.size(p) + PageSize - 1) / PageSize)
		p.pgid = m.allocate(p.pages)
		p.dirty = false
	}
	return parts
}

// splitter is split; a test puts the quadratic split it replaced in its
// place, to compare them.
var splitter = (*Model).split

// split breaks a node that does not fit its page into nodes filled to the
// bucket's fill percent (bbolt's node.split and splitIndex).
//
// NB: each part gets a copy of just its own elements. A part that kept a
// slice of the rest (as a copy of the tail at each cut does) would keep
// the whole tail's array alive: a leaf that a batch of 1,000 appends
// outgrew held some twenty times its elements in the arrays of its parts.
//
// NB: the size of what remains is kept as the parts are cut, not summed
// again at each cut: that made a defrag (and so every restored member's
// first file) quadratic in the records of a leaf, minutes for a snapshot
// of two million keys (issue 30).
func (m *Model) split(t *tree, n *node) []*node {
	parts := []*node{n}
	rest := t.size(n) // t.size(cur)
	for cur := n; ; {
		if cur.count() <= minKeysPerPage*2 || rest < PageSize {
			if len(parts) > 1 { // cur is a slice of n's old array: copy it out
				cur.elems, cur.kids = cloneNonNil(cur.elems), cloneNonNil(cur.kids)
			}
			return parts
		}
		threshold := int(float64(PageSize) * t.fill())
		sz, idx, cut := pageHeaderSize, 0, pageHeaderSize
		for i := 0; i < cur.count()-minKeysPerPage; i++ {
			idx, cut = i, sz
			es := t.elemSize(i, cur)
			if i >= minKeysPerPage && sz+es > threshold {
				break
			}
			sz += es
		}
		rest -= cut - pageHeaderSize // the elements before idx go to cur
		next := &node{leaf: cur.leaf, dirty: true}
		if cur.leaf {
			next.elems = cur.elems[idx:]
			cur.elems = slices.Clone(cur.elems[:idx])
		} else {
			next.kids = cur.kids[idx:]
			cur.kids = slices.Clone(cur.kids[:idx])
		}
		parts = append(parts, next)
		cur = next
	}
}

// cloneNonNil copies s into an array of its own, leaving nil as nil.
func cloneNonNil[S ~[]E, E any](s S) S {
	if s == nil {
		return nil
	}
	return append(make(S, 0, len(s)), s...)
}

// allocate takes n contiguous pages from the free list (the lowest run),
// or from the end of the file.
func (m *Model) allocate(n uint64) uint64 {
	run := uint64(0)
	for i := range m.free {
		if i > 0 && m.free[i] == m.free[i-1]+1 {
			run++
		} else {
			run = 1
		}
		if run == n {
			start := m.free[i] - n + 1
			m.free = slices.Delete(m.free, i+1-int(n), i+1)
			return start
		}
	}
	p := m.hwm
	m.hwm += n
	return p
}

// release frees a node's pages at the end of this transaction.
func (m *Model) release(pgid, pages uint64) {
	if pgid == 0 {
		return
	}
	for i := uint64(0); i < pages; i++ {
		m.cur = append(m.cur, pgid+i)
	}
}

// Defrag rewrites the database as etcd's defrag does: every element
// copied in order into a new file at 90% fill. DB SIZE drops to about
// IN USE.
func (m *Model) Defrag() {
	m.Commit()
	fresh := New()
	fresh.hwm, fresh.free, fresh.prev = 4, nil, nil // bbolt's new file: meta, meta, freelist, root
	for b := range m.trees {
		var elems []elem
		collect(m.trees[b].root, &elems)
		t := &fresh.trees[b]
		t.seqTx = true
		if len(elems) > 0 {
			t.root = &node{leaf: true, elems: elems, dirty: true}
			fresh.spillRoot(t)
		}
		t.seqTx = false
	}
	fresh.root = fresh.allocate(1)
	// the new file's first freelist and root pages are free once it is
	// reopened
	fresh.free = []uint64{2, 3}
	*m = *fresh
}

func collect(n *node, out *[]elem) {
	if n == nil {
		return
	}
	if n.leaf {
		*out = append(*out, n.elems...)
		return
	}
	for _, c := range n.kids {
		collect(c, out)
	}
}

// Clone returns a copy that changes apart from m (a forked world's disk).
func (m *Model) Clone() *Model {
	if m == nil {
		return nil
	}
	c := *m
	c.free, c.prev, c.cur = slices.Clone(m.free), slices.Clone(m.prev), slices.Clone(m.cur)
	for b := range c.trees {
		c.trees[b].root = cloneNode(m.trees[b].root)
	}
	return &c
}

func cloneNode(n *node) *node {
	if n == nil {
		return nil
	}
	c := *n
	c.elems = slices.Clone(n.elems)
	c.kids = make([]*node, len(n.kids))
	for i, k := range n.kids {
		c.kids[i] = cloneNode(k)
	}
	return &c
}
