package snapshot

// MaxBytes is the largest snapshot raftsim reads: 2 GiB, etcd's default
// quota (--quota-backend-bytes). The members of a restored cluster hold
// its store in memory once, shared (copy on write), beside the file read:
// a 1 GiB Kubernetes-shaped snapshot opened with five members peaked at
// 1.67 GB (docs/scenarios.md's limits, issue 30). A larger production
// snapshot should be compacted and defragmented (or trimmed to the
// prefixes of interest) before it is brought in.
const MaxBytes = 2 << 30

// Options bound and relax Open.
type Options struct {
	MaxBytes      int64 // 0: MaxBytes
	SkipHashCheck bool  // read a database without a sha256 trailer (one copied from a data directory)
}

// A Snapshot is an open snapshot file. Close it.
type Snapshot struct {
	State
	path      string
	db        *boltDB // nil once closed
	hasSHA256 bool
	// Revision is the newest revision in the key bucket, and TotalKeys the
	// keys alive at it (what etcdutl snapshot status reports).
	Revision  int64
	TotalKeys int
	DBSize    int64 // bbolt's size of the database (etcdutl's TOTAL SIZE)
}

// Status is what etcdutl snapshot status reports of a file.
type Status struct {
	Hash      uint32 `json:"hash"`
	Revision  int64  `json:"revision"`
	TotalKey  int    `json:"totalKey"`
	TotalSize int64  `json:"totalSize"`
	Version   string `json:"version"`
}

// Written says what Write wrote.
type Written struct {
	Size     int64  // bytes in the file: the database and its sha256
	DBSize   int64  // bytes of the database alone (bbolt's size, etcdutl's TOTAL SIZE)
	Revision int64  // the newest revision in the key bucket
	SHA256   []byte // the trailer
}
