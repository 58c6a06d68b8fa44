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
type index struct {
	blocks [][]*keyIndex
	n      int
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

// insert adds ki, whose key the index does not hold.
func (x *index) insert(ki *keyIndex) {
	x.n++
	if len(x.blocks) == 0 {
		x.blocks = [][]*keyIndex{{ki}}
		return
	}
	b, i, found := x.search(ki.key)
	if found {
		panic("mvcc: key " + string(ki.key) + " indexed twice")
	}
	blk := x.blocks[b]
	if len(blk) == blockMax {
		// Split it in two halves, each in an array of blockMax, so that
		// each takes half a block of inserts before it moves again.
		left := append(make([]*keyIndex, 0, blockMax), blk[:blockMax/2]...)
		right := append(make([]*keyIndex, 0, blockMax), blk[blockMax/2:]...)
		x.blocks[b] = left
		x.blocks = slices.Insert(x.blocks, b+1, right)
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
func (x *index) deleteFunc(del func(ki *keyIndex) bool) {
	blocks := x.blocks[:0]
	for _, blk := range x.blocks {
		blk = slices.DeleteFunc(blk, del)
		if len(blk) > 0 {
			blocks = append(blocks, blk)
		}
	}
	clear(x.blocks[len(blocks):])
	x.blocks = blocks
	x.n = 0
	for _, blk := range x.blocks {
		x.n += len(blk)
	}
}

// build makes the index of kis, which hold distinct keys in any order.
func (x *index) build(kis []*keyIndex) {
	slices.SortFunc(kis, func(a, b *keyIndex) int { return bytes.Compare(a.key, b.key) })
	x.blocks, x.n = nil, len(kis)
	for len(kis) > 0 {
		n := min(len(kis), blockMax/2)
		x.blocks = append(x.blocks, append(make([]*keyIndex, 0, blockMax), kis[:n]...))
		kis = kis[n:]
	}
}
