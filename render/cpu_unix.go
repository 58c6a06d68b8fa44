//go:build !js

package render

import "syscall"

// processCPU returns the CPU time the process has used, all its threads
// (software GL's rasterizer threads among them), or 0 where it cannot say.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
