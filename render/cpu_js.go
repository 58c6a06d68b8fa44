//go:build js

package render

// processCPU returns 0: a browser does not say how much CPU the page used.
func processCPU() int64 { return 0 }
