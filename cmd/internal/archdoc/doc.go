// Package archdoc keeps docs/architecture.md's import graph true: the graph
// is generated from `go list`, and TestArchitectureGraph fails when the
// packages' imports and the document disagree. `make architecture` (go
// test -update) writes it again.
//
// Its test runs go list, so it is built for the desktop only (!js); this
// file lets `make vet-wasm` list the package on js/wasm too.
package archdoc
