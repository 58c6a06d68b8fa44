package mvcc

import "errors"

// Revision is a point in the store's history: Main is the store revision
// of a write (one transaction), Sub orders the changes within it.
type Revision struct {
	Main int64
	Sub  int64
}

// GreaterThan reports whether r is after b.
func (r Revision) GreaterThan(b Revision) bool {
	return r.Main > b.Main || r.Main == b.Main && r.Sub > b.Sub
}

// errRevisionNotFound is the key index's "no such key at that revision".
var errRevisionNotFound = errors.New("mvcc: revision not found")

// keyIndex is one key's history, as etcd's key_index.go keeps it: a list
// of generations, each from a creation to a deletion (the tombstone, the
// generation's last revision). The last generation is the current one; it
// is empty when the key is deleted now.
//
// For example, put(1) put(2) tombstone(3) put(4) tombstone(5) gives
//
//	generations: {empty}, {4, 5(t)}, {1, 2, 3(t)}
type keyIndex struct {
	key         []byte // shared by the records of the key
	modified    Revision
	pos         int // where modified was in the backend when last seen (Store.fetch checks it)
	generations []generation
	owner       *byte // the index that may change it (index.writable)
}

// generation is one life of a key: ver counts its puts, created is its
// first revision, revs every change in order.
type generation struct {
	ver     int64
	created Revision
	revs    []Revision
}

func (g *generation) isEmpty() bool { return g == nil || len(g.revs) == 0 }

// walk visits the generation's revisions newest first, until f returns
// false, and returns the index of that revision, or -1.
func (g *generation) walk(f func(rev Revision) bool) int {
	l := len(g.revs)
	for i := range g.revs {
		if !f(g.revs[l-i-1]) {
			return l - i - 1
		}
	}
	return -1
}

func (ki *keyIndex) isEmpty() bool {
	return len(ki.generations) == 1 && ki.generations[0].isEmpty()
}

// put records a change of the key at rev.
func (ki *keyIndex) put(rev Revision) {
	if !rev.GreaterThan(ki.modified) {
		panic("mvcc: put of " + string(ki.key) + " with a revision not after its last")
	}
	if len(ki.generations) == 0 {
		ki.generations = append(ki.generations, generation{})
	}
	g := &ki.generations[len(ki.generations)-1]
	if len(g.revs) == 0 { // a new life of the key
		g.created = rev
	}
	g.revs = append(g.revs, rev)
	g.ver++
	ki.modified = rev
}

// tombstone records the key's deletion at rev and starts an empty
// generation.
func (ki *keyIndex) tombstone(rev Revision) error {
	if ki.isEmpty() {
		panic("mvcc: tombstone of an empty key index " + string(ki.key))
	}
	if ki.generations[len(ki.generations)-1].isEmpty() {
		return errRevisionNotFound
	}
	ki.put(rev)
	ki.generations = append(ki.generations, generation{})
	return nil
}

// get returns the key's last change at or before atRev, the revision that
// created it, and its version then.
func (ki *keyIndex) get(atRev int64) (modified, created Revision, ver int64, err error) {
	g := ki.findGeneration(atRev)
	if g.isEmpty() {
		return Revision{}, Revision{}, 0, errRevisionNotFound
	}
	n := g.walk(func(rev Revision) bool { return rev.Main > atRev })
	if n != -1 {
		return g.revs[n], g.created, g.ver - int64(len(g.revs)-n-1), nil
	}
	return Revision{}, Revision{}, 0, errRevisionNotFound
}

// findGeneration returns the generation the key was in at rev, or nil if
// it did not exist then (not yet created, or deleted).
func (ki *keyIndex) findGeneration(rev int64) *generation {
	lastg := len(ki.generations) - 1
	for cg := lastg; cg >= 0; cg-- {
		g := &ki.generations[cg]
		if len(g.revs) == 0 {
			continue
		}
		if cg != lastg {
			if tomb := g.revs[len(g.revs)-1].Main; tomb <= rev {
				return nil
			}
		}
		if g.revs[0].Main <= rev {
			return g
		}
	}
	return nil
}

// compact drops the history before atRev, keeping, in each generation that
// is still needed, the last revision at or before atRev, and adds every
// revision it keeps at or before atRev to available.
//
// NB: a key can be deleted and put again within one revision (a txn of a
// --from-key delete and a put, which etcd's duplicate-key check lets
// through): its generation ends at atRev and the next begins at atRev.
// etcd v3.6.16 keeps only the first of the two (doCompact stops at it), so
// its backend loses the put while its index still names it, and the next
// read of the key is fatal (etcd issue #22376). Here every generation
// begun at atRev keeps its last revision at or before atRev too.
func (ki *keyIndex) compact(atRev int64, available map[Revision]struct{}) {
	genIdx, revIndex := ki.doCompact(atRev, available)
	g := &ki.generations[genIdx]
	if !g.isEmpty() && revIndex != -1 {
		g.revs = g.revs[revIndex:]
	}
	ki.generations = ki.generations[genIdx:]
	for i := 1; i < len(ki.generations); i++ {
		g := &ki.generations[i]
		if g.isEmpty() || g.revs[0].Main > atRev {
			break
		}
		n := g.walk(func(rev Revision) bool {
			if rev.Main <= atRev {
				available[rev] = struct{}{}
				return false
			}
			return true
		})
		g.revs = g.revs[n:] // n >= 0: its first revision is at atRev
	}
}

func (ki *keyIndex) doCompact(atRev int64, available map[Revision]struct{}) (genIdx int, revIndex int) {
	f := func(rev Revision) bool {
		if rev.Main <= atRev {
			available[rev] = struct{}{}
			return false
		}
		return true
	}
	g := &ki.generations[0]
	// the first generation that holds atRev or was created after it
	for genIdx < len(ki.generations)-1 {
		if tomb := g.revs[len(g.revs)-1].Main; tomb >= atRev {
			break
		}
		genIdx++
		g = &ki.generations[genIdx]
	}
	return genIdx, g.walk(f)
}
