package server

// IDGen draws IDs as etcd's request ID generator (idutil.Generator) does:
// the member's ID in the top 16 bits, then the time the server started (ms,
// 40 bits), then 8 bits of counter, counting up. etcd draws every request's
// ID, and every lease ID a member picks, from it.
type IDGen struct {
	prefix uint64 // the member ID's low 16 bits, on top
	suffix uint64 // the time and the counter
	first  uint64 // the first ID of this life
}

// NewIDGen returns the generator of a member with etcd's member ID
// memberID, started at startMs (ms).
func NewIDGen(memberID uint64, startMs uint64) IDGen {
	g := IDGen{prefix: (memberID & 0xffff) << 48, suffix: startMs & (1<<40 - 1) << 8}
	g.first = g.Peek()
	return g
}

// Next draws the next ID.
func (g *IDGen) Next() uint64 {
	g.suffix++
	return g.prefix | g.suffix&(1<<48-1)
}

// Peek returns the ID Next will draw.
func (g *IDGen) Peek() uint64 { return g.prefix | (g.suffix+1)&(1<<48-1) }

// NextLease draws a lease ID, as etcd does: the next ID, made positive.
func (g *IDGen) NextLease() int64 { return int64(g.Next() & (1<<63 - 1)) }

// Mine reports whether id was drawn by this generator since it was made
// (the member's requests of this life, not an earlier one's).
func (g *IDGen) Mine(id uint64) bool { return id&^(1<<48-1) == g.prefix && id >= g.first }
