// Package dbsize models the size of etcd's bbolt database, so that a
// simulated member's `endpoint status` shows DB SIZE and IN USE that grow,
// stay and shrink as a real etcd v3.6.16's do, and a space quota can be
// exceeded.
//
// It follows bbolt v1.4.3's page accounting (node.go, bucket.go, tx.go)
// for the two buckets that grow, "key" (every change, keyed by revision)
// and "lease": 4 KiB pages; leaves and branches split at commit when a
// node outgrows its page, at etcd's 90% fill for the sequential key
// bucket; a leaf that deletes leave below a quarter of a page merges with
// its neighbour; every node a transaction touched is written to a new page
// at commit and its old page freed; freed pages become reusable two
// commits later (etcd keeps a read transaction open across each commit);
// new pages come from the free list first and grow the file otherwise.
// The file never shrinks: DB SIZE is bbolt's high-water mark, IN USE is
// that less the free pages, as etcd reports them. Defrag rewrites the live
// elements into a fresh file at 90% fill.
//
// What it leaves out: the small buckets (meta, members, cluster, alarm,
// auth), which live inline in the root page; the freelist's own page
// (etcd does not sync it); bbolt's map freelist's random choice among free
// spans (the model takes the lowest); and the real timing of etcd's batch
// commits (every 100ms of the member's clock, or 10,000 changes), which
// the caller decides. docs/semantics.md gives the measured difference
// from a real etcd.
//
// The package is pure and deterministic: no clock, no file, no goroutine.
package dbsize
