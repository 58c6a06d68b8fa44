package mvcc

import (
	"bytes"
	"slices"
	"sort"
)

// index is the key index: every key's keyIndex, in key order (etcd keeps
// them in a B-tree, treeIndex). It holds them in blocks of at most
// blockMax, each in key order and every block's keys before the next's: a
// new key moves at most a block's pointers, where one sorted slice of a
// million keys moved half of them at every new key (minutes of copying
// for a load on a million keys), and the blocks need no map beside them.
//
// Forks share blocks and keyIndexes (copy on write): own says which
// blocks' arrays are the index's alone, tag marks the keyIndexes it made
// or copied itself. A fork gives both indexes new tags and clears own, so
// that each copies a block, or a keyIndex, before its first change to it:
// a fork costs a pointer per block, not a copy of every key's history.
type index struct {
	blocks [][]*keyIndex
	own    []bool // own[b]: blocks[b]'s array is this index's alone
	n      int
	tag    *byte // the keyIndexes whose owner is tag are this index's alone
}

const blockMax = 512

func (x *index) len() int { return x.n }

// search returns where key is, or would be inserted: the block and the
// position in it.
func (x *index) search(key []byte) (b, i int, found bool) {
	if len(x.blocks) == 0 {
		return 0, 0, false
	}
	// the first block whose last key is not before key; the last block if
	// none is
	b = sort.Search(len(x.blocks)-1, func(j int) bool {
		blk := x.blocks[j]
		return bytes.Compare(blk[len(blk)-1].key, key) >= 0
	})
	blk := x.blocks[b]
	i, found = slices.BinarySearchFunc(blk, key, func(ki *keyIndex, k []byte) int { return bytes.Compare(ki.key, k) })
	return b, i, found
}

// get returns key's keyIndex, or nil.
func (x *index) get(key []byte) *keyIndex {
	b, i, found := x.search(key)
	if !found {
		return nil
	}
	return x.blocks[b][i]
}

// mine returns the index's tag, made at its first use.
func (x *index) mine() *byte {
	if x.tag == nil {
		x.tag = new(byte)
	}
	return x.tag
}

// writable returns the keyIndex at block b, position i, as one the index
// may change: its block's array and the keyIndex are copied first if they
// are shared with a fork.
func (x *index) writable(b, i int) *keyIndex {
	x.ownBlock(b)
	ki := x.blocks[b][i]
	if ki.owner != x.mine() {
		ki = ki.clone(x.tag)
		x.blocks[b][i] = ki
	}
	return ki
}

// ownBlock copies block b's array if it is shared with a fork.
func (x *index) ownBlock(b int) {
	if !x.own[b] {
		x.blocks[b] = append(make([]*keyIndex, 0, max(blockMax, cap(x.blocks[b]))), x.blocks[b]...)
		x.own[b] = true
	}
}

// getWritable is get of a keyIndex the caller will change (writable).
func (x *index) getWritable(key []byte) *keyIndex {
	b, i, found := x.search(key)
	if !found {
		return nil
	}
	return x.writable(b, i)
}

// clone returns a copy of ki owned by tag, sharing nothing that a change
// writes to: its generations are copied, and their revisions are shared
// at their length, so that an append copies them.
func (ki *keyIndex) clone(tag *byte) *keyIndex {
	c := *ki
	c.owner = tag
	c.generations = slices.Clone(ki.generations)
	for g := range c.generations {
		revs := c.generations[g].revs
		c.generations[g].revs = revs[:len(revs):len(revs)]
	}
	return &c
}

// fork returns an index that holds what x holds and shares its blocks and
// keyIndexes until either changes them. x will change too, unless it is
// frozen (!live): then it is left as it is, and only read.
func (x *index) fork(live bool) index {
	f := index{blocks: slices.Clone(x.blocks), own: make([]bool, len(x.blocks)), n: x.n, tag: new(byte)}
	if live {
		x.tag = new(byte)
		clear(x.own)
	}
	return f
}

// insert adds ki, whose key the index does not hold.
func (x *index) insert(ki *keyIndex) {
	x.n++
	ki.owner = x.mine()
	if len(x.blocks) == 0 {
		x.blocks = [][]*keyIndex{{ki}}
		x.own = []bool{true}
		return
	}
	b, i, found := x.search(ki.key)
	if found {
		panic("mvcc: key " + string(ki.key) + " indexed twice")
	}
	x.ownBlock(b)
	blk := x.blocks[b]
	if len(blk) == blockMax {
		// Split it in two halves, each in an array of blockMax, so that
		// each takes half a block of inserts before it moves again.
		left := append(make([]*keyIndex, 0, blockMax), blk[:blockMax/2]...)
		right := append(make([]*keyIndex, 0, blockMax), blk[blockMax/2:]...)
		x.blocks[b] = left
		x.blocks = slices.Insert(x.blocks, b+1, right)
		x.own = slices.Insert(x.own, b+1, true)
		if i >= blockMax/2 {
			b, i = b+1, i-blockMax/2
		}
		blk = x.blocks[b]
	}
	x.blocks[b] = slices.Insert(blk, i, ki)
}

// ascend calls f for every keyIndex from key on (nil: from the first), in
// key order, until f returns false.
func (x *index) ascend(key []byte, f func(ki *keyIndex) bool) {
	b, i := 0, 0
	if key != nil {
		b, i, _ = x.search(key)
	}
	for ; b < len(x.blocks); b, i = b+1, 0 {
		for _, ki := range x.blocks[b][i:] {
			if !f(ki) {
				return
			}
		}
	}
}

// deleteFunc drops the keyIndexes del names, keeping the others in order.
// del may change the keyIndex it is given: each is made writable first.
func (x *index) deleteFunc(del func(ki *keyIndex) bool) {
	blocks, own := x.blocks[:0], x.own[:0]
	for b := range x.blocks {
		for i := range x.blocks[b] {
			x.writable(b, i)
		}
		blk := slices.DeleteFunc(x.blocks[b], del)
		if len(blk) > 0 {
			blocks, own = append(blocks, blk), append(own, true)
		}
	}
	clear(x.blocks[len(blocks):])
	x.blocks, x.own = blocks, own
	x.n = 0
	for _, blk := range x.blocks {
		x.n += len(blk)
	}
}

// build makes the index of kis, which hold distinct keys in any order.
func (x *index) build(kis []*keyIndex) {
	slices.SortFunc(kis, func(a, b *keyIndex) int { return bytes.Compare(a.key, b.key) })
	x.blocks, x.own, x.n = nil, nil, len(kis)
	for _, ki := range kis {
		ki.owner = x.mine()
	}
	for len(kis) > 0 {
		n := min(len(kis), blockMax/2)
		x.blocks = append(x.blocks, append(make([]*keyIndex, 0, blockMax), kis[:n]...))
		x.own = append(x.own, true)
		kis = kis[n:]
	}
}
