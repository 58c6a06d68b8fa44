//go:build !linux

package sim

// newChunk returns a chunk of n zero items for owner's chunks. Only Linux maps
// chunks outside the Go heap (see chunked_linux.go).
func newChunk[T any](owner *[][]T, n int) ([]T, func()) { return make([]T, n), nil }
