package sim

import (
	"reflect"
	"runtime"
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on Linux.
const hugePage = 2 << 20

// newChunk returns a chunk of n zero items for owner's chunks. One of a
// huge page or more is mapped outside the Go heap, in 2 MiB huge pages, and
// unmapped once owner is garbage.
//
// Two costs of a long run's history go away this way, and together they
// were a third of the time of an idle cluster's tick:
//   - On the Go heap, the history would set the garbage collector's pace:
//     the heap would grow to twice what the history holds, and the
//     short-lived garbage of every step would keep landing on new memory.
//   - The kernel hands out fresh memory a page at a time, and a page fault
//     costs about as much as zeroing the page. In huge pages it takes one
//     fault per 2 MiB instead of 512.
//
// If the mapping fails, the chunk comes from the Go heap instead. The func
// returned, if not nil, gives a mapped chunk back at once.
func newChunk[T any](owner *[][]T, n int) ([]T, func()) {
	if t := reflect.TypeFor[T](); !pointerFree(t) {
		panic("sim: a chunk of " + t.String() + ", which holds pointers, outside the Go heap")
	}
	var zero T
	size := int(unsafe.Sizeof(zero)) * n
	if size < hugePage {
		return make([]T, n), nil
	}
	size = (size + hugePage - 1) &^ (hugePage - 1)
	// Map one huge page more than needed, so that the chunk can start on
	// a huge-page boundary: the kernel backs only aligned 2 MiB ranges with
	// huge pages. The slack is address space only; nothing touches it.
	mem, err := syscall.Mmap(-1, 0, size+hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return make([]T, n), nil
	}
	skip := (hugePage - int(uintptr(unsafe.Pointer(&mem[0]))%hugePage)) % hugePage
	chunk := mem[skip : skip+size]
	_ = syscall.Madvise(chunk, syscall.MADV_HUGEPAGE) // a hint: without it, plain pages
	cleanup := runtime.AddCleanup(owner, func(mem []byte) { _ = syscall.Munmap(mem) }, mem)
	free := func() {
		cleanup.Stop()
		_ = syscall.Munmap(mem)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&chunk[0])), n), free
}
