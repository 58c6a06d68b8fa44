package netmodel

import "math/rand/v2"

// Clone returns a copy of n, with its links' properties, cuts and FIFO
// state, that draws from rng from now on. Changing one does not change the
// other.
func (n *Network) Clone(rng *rand.Rand) *Network {
	c := &Network{def: n.def, rng: rng, links: make([][]link, len(n.links))}
	for from, row := range n.links {
		c.links[from] = make([]link, len(row))
		for to, l := range row {
			if l.props != nil {
				p := *l.props
				l.props = &p
			}
			c.links[from][to] = l
		}
	}
	return c
}
