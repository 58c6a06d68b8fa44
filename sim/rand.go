package sim

import (
	"hash/fnv"
	"math/rand/v2"
)

// stream returns the random stream called name, derived from seed. Each
// subsystem (the network, each member's election timer, ...) owns one, so that
// a change in how often one of them draws does not shift the others.
func stream(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}
