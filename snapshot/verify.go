package snapshot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// verifyPages walks the bbolt database in the first size bytes of f, page
// by page, before bbolt reads it, and says what is wrong with it. bbolt's
// own check (Tx.Check) reports damage by panicking in a goroutine of its
// own, which no caller can recover, and a page that points back at its
// ancestor would send bbolt's cursor round for ever; a file that passes
// here can be read by bbolt without either.
//
// The layout is bbolt v1.4.3's (internal/common/page.go, meta.go,
// inodes.go): a 16-byte page header (id, flags, count, overflow), 16-byte
// leaf elements (flags, pos, ksize, vsize), 16-byte branch elements (pos,
// ksize, pgid), and a bucket's value that starts with its 16-byte header
// (root page, sequence), followed by its page when the root is 0 (inline).
func verifyPages(f io.ReaderAt, size int64) error {
	v := &verifier{f: f, size: size, seen: map[uint64]bool{}}
	m, err := v.meta()
	if err != nil {
		return err
	}
	v.pageSize, v.hwm = int64(m.pageSize), m.pgid
	if v.hwm*uint64(v.pageSize) > uint64(size) {
		return fmt.Errorf("the database says it has %d pages of %d bytes, but the file holds %d bytes: truncated", v.hwm, v.pageSize, size)
	}
	return v.page(m.root, 0)
}

const (
	pageHeaderSize  = 16
	elementSize     = 16
	flagBranch      = 0x01
	flagLeaf        = 0x02
	flagBucketValue = 0x01
	bucketHeader    = 16
	maxDepth        = 64
	boltMagic       = 0xED0CDAED
	boltVersion     = 2
)

type verifier struct {
	f        io.ReaderAt
	size     int64
	pageSize int64
	hwm      uint64
	seen     map[uint64]bool
}

type metaPage struct {
	pageSize uint32
	root     uint64
	pgid     uint64
	txid     uint64
}

// meta reads the two meta pages and returns the one bbolt would use: the
// valid one with the higher transaction ID.
func (v *verifier) meta() (metaPage, error) {
	var ms []metaPage
	var why error
	for _, off := range []int64{0, -1} {
		if off == -1 {
			if len(ms) == 1 {
				off = int64(ms[0].pageSize)
			} else {
				off = 4096
			}
		}
		b := make([]byte, pageHeaderSize+64)
		if _, err := v.f.ReadAt(b, off); err != nil {
			why = err
			continue
		}
		m := b[pageHeaderSize:]
		le := binary.LittleEndian
		h := fnv.New64a()
		h.Write(m[:56])
		switch {
		case le.Uint32(m[0:]) != boltMagic:
			why = errors.New("no bbolt magic number")
		case le.Uint32(m[4:]) != boltVersion:
			why = fmt.Errorf("bbolt version %d, want %d", le.Uint32(m[4:]), boltVersion)
		case le.Uint64(m[56:]) != h.Sum64():
			why = errors.New("meta page checksum mismatch")
		default:
			ms = append(ms, metaPage{pageSize: le.Uint32(m[8:]), root: le.Uint64(m[16:]), pgid: le.Uint64(m[40:]), txid: le.Uint64(m[48:])})
		}
	}
	if len(ms) == 0 {
		return metaPage{}, fmt.Errorf("%w: %v", errNotBbolt, why)
	}
	best := ms[0]
	if len(ms) == 2 && ms[1].txid > best.txid {
		best = ms[1]
	}
	if best.pageSize < 1024 || best.pageSize > 1<<16 || best.pageSize&(best.pageSize-1) != 0 {
		return metaPage{}, fmt.Errorf("page size %d", best.pageSize)
	}
	return best, nil
}

// page checks page id and everything under it.
func (v *verifier) page(id uint64, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("page %d: the tree is more than %d levels deep", id, maxDepth)
	}
	if id < 2 || id >= v.hwm {
		return fmt.Errorf("a page points at page %d, outside the database's pages 2 to %d", id, v.hwm-1)
	}
	if v.seen[id] {
		return fmt.Errorf("page %d is reached twice", id)
	}
	v.seen[id] = true
	head := make([]byte, pageHeaderSize)
	if _, err := v.f.ReadAt(head, int64(id)*v.pageSize); err != nil {
		return fmt.Errorf("page %d: %v", id, err)
	}
	overflow := uint64(binary.LittleEndian.Uint32(head[12:]))
	if binary.LittleEndian.Uint64(head) != id {
		return fmt.Errorf("page %d says it is page %d", id, binary.LittleEndian.Uint64(head))
	}
	if id+overflow >= v.hwm {
		return fmt.Errorf("page %d runs %d pages past the end of the database", id, overflow)
	}
	for i := id + 1; i <= id+overflow; i++ {
		if v.seen[i] {
			return fmt.Errorf("page %d overlaps page %d", id, i)
		}
		v.seen[i] = true
	}
	p := make([]byte, int64(overflow+1)*v.pageSize)
	if _, err := v.f.ReadAt(p, int64(id)*v.pageSize); err != nil {
		return fmt.Errorf("page %d: %v", id, err)
	}
	return v.node(fmt.Sprintf("page %d", id), p, depth)
}

// node checks the elements of one page (p starts at its header), and the
// pages and buckets they point at.
func (v *verifier) node(where string, p []byte, depth int) error {
	le := binary.LittleEndian
	flags, count := le.Uint16(p[8:]), int(le.Uint16(p[10:]))
	if flags != flagBranch && flags != flagLeaf {
		return fmt.Errorf("%s is neither a branch nor a leaf (flags %#x)", where, flags)
	}
	if pageHeaderSize+count*elementSize > len(p) {
		return fmt.Errorf("%s: %d elements do not fit in it", where, count)
	}
	var prev []byte
	for i := 0; i < count; i++ {
		e := p[pageHeaderSize+i*elementSize:]
		at := pageHeaderSize + i*elementSize
		var pos, ksize, vsize int
		if flags == flagBranch {
			pos, ksize = int(le.Uint32(e[0:])), int(le.Uint32(e[4:]))
		} else {
			pos, ksize, vsize = int(le.Uint32(e[4:])), int(le.Uint32(e[8:])), int(le.Uint32(e[12:]))
		}
		start := at + pos
		if pos < 0 || ksize < 0 || vsize < 0 || start+ksize+vsize > len(p) || start+ksize+vsize < start {
			return fmt.Errorf("%s: element %d lies outside the page", where, i)
		}
		key := p[start : start+ksize]
		if i > 0 && bytes.Compare(key, prev) <= 0 {
			return fmt.Errorf("%s: element %d is out of order", where, i)
		}
		prev = key
		if flags == flagBranch {
			if err := v.page(le.Uint64(e[8:]), depth+1); err != nil {
				return err
			}
			continue
		}
		if le.Uint32(e[0:])&flagBucketValue == 0 {
			continue
		}
		val := p[start+ksize : start+ksize+vsize]
		if len(val) < bucketHeader {
			return fmt.Errorf("%s: bucket %q has a %d-byte header", where, key, len(val))
		}
		if root := le.Uint64(val); root != 0 {
			if err := v.page(root, depth+1); err != nil {
				return err
			}
			continue
		}
		inline := val[bucketHeader:]
		if len(inline) < pageHeaderSize {
			return fmt.Errorf("%s: bucket %q is inline but holds no page", where, key)
		}
		if le.Uint16(inline[8:]) != flagLeaf {
			return fmt.Errorf("%s: bucket %q is inline but its page is not a leaf", where, key)
		}
		if err := v.node(fmt.Sprintf("%s, bucket %q", where, key), inline, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// verifyFile runs verifyPages over the database part of the file at path.
func verifyFile(path string, dbBytes int64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return verifyPages(f, dbBytes)
}

// errNotBbolt heads the error for a file with no valid bbolt meta page:
// Read tells "not an etcd snapshot" from "corrupt" with errors.Is on it,
// never on the text.
var errNotBbolt = errors.New("not a bbolt database")
