//go:build js

package sim

// cpuTime is 0 on js/wasm, which has no getrusage: the benchmarks that
// report CPU time run only on the desktop.
func cpuTime() int64 { return 0 }
