package main

import (
	"os"
	"runtime/debug"
)

// memoryLimit is the soft limit raftsim gives the Go heap when GOMEMLIMIT
// does not give one. Go's collector lets the heap grow to twice what is
// live before it collects, so a run that holds 450 MB (the longest load
// without compaction, docs/scenarios.md: Limits) peaked near 1 GiB; with
// the limit the collector works sooner as the heap nears it, and the run
// peaks near the limit instead, for about the same CPU. A command that
// holds less than the limit is not affected; one that holds more goes on,
// collecting more often (the limit is soft).
const memoryLimit = 700 << 20

// limitMemory sets memoryLimit, unless the environment set a limit.
func limitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}
