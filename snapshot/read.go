//go:build !js

package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strconv"

	bolt "go.etcd.io/bbolt"
	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"google.golang.org/protobuf/encoding/protowire"
)

// boltDB is an open database (in a browser, where bbolt does not build,
// there is none: file_js.go).
type boltDB = bolt.DB

// hasChecksum reports whether a file of n bytes ends with a sha256, as
// etcdutl decides it: bbolt's files are whole pages, so a trailer leaves
// 32 bytes over a multiple of 512.
func hasChecksum(n int64) bool { return n%512 == sha256.Size }

// Open opens the snapshot at path, checks it, and reads everything but the
// key bucket (Records streams that). Every error names the file and says
// what is wrong with it.
func Open(path string, opt Options) (s *Snapshot, err error) {
	limit := opt.MaxBytes
	if limit <= 0 {
		limit = MaxBytes
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a snapshot file", path)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file, so not a snapshot file", path)
	}
	if fi.Size() > limit {
		bound := "the bound it was given"
		if limit == MaxBytes {
			bound = "snapshot.MaxBytes, etcd's default quota"
		}
		return nil, fmt.Errorf("%s is %d bytes, over the %d bytes (%d MiB: %s) that raftsim reads; compact and defragment the cluster before saving the snapshot",
			path, fi.Size(), limit, limit>>20, bound)
	}
	if fi.Size() < 2*4096 {
		return nil, fmt.Errorf("%s is not an etcd snapshot: %d bytes is too short for a bbolt database", path, fi.Size())
	}
	s = &Snapshot{path: path, hasSHA256: hasChecksum(fi.Size())}
	switch {
	case s.hasSHA256:
		if err := checkSHA256(path, fi.Size()); err != nil {
			return nil, err
		}
	case !opt.SkipHashCheck:
		return nil, fmt.Errorf("%s has no sha256 at its end (a snapshot that etcdctl saved has one; a database copied from a data directory has none): truncated or not a snapshot", path)
	}
	dbBytes := fi.Size()
	if s.hasSHA256 {
		dbBytes -= sha256.Size
	}
	if err := verifyFile(path, dbBytes); err != nil {
		if errors.Is(err, errNotBbolt) {
			return nil, fmt.Errorf("%s is not an etcd snapshot: %v", path, err)
		}
		return nil, fmt.Errorf("%s is corrupt: %v", path, err)
	}
	if err := s.open(); err != nil {
		return nil, err
	}
	return s, nil
}

// checkSHA256 compares the file's trailer with the sha256 of the rest, as
// etcdutl snapshot restore does.
func checkSHA256(path string, size int64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyN(h, f, size-sha256.Size); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	want := make([]byte, sha256.Size)
	if _, err := io.ReadFull(f, want); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if got := h.Sum(nil); !bytes.Equal(got, want) {
		return fmt.Errorf("%s is corrupt: its sha256 is %x, but its end says %x", path, got, want)
	}
	return nil
}

// open opens the database read-only and reads the small buckets. The
// pages have been verified (verifyPages); bbolt's own check is not run,
// because it reports damage by panicking where no caller can recover.
// Whatever else panics in bbolt is an error here.
func (s *Snapshot) open() (err error) {
	defer func() {
		if r := recover(); r != nil {
			if s.db != nil {
				s.db.Close()
				s.db = nil
			}
			err = fmt.Errorf("%s is corrupt: %v", s.path, r)
		}
	}()
	s.db, err = bolt.Open(s.path, 0o400, &bolt.Options{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("%s is not an etcd snapshot: %w", s.path, err)
	}
	err = s.db.View(func(tx *bolt.Tx) error {
		s.DBSize = tx.Size()
		return s.readState(tx)
	})
	if err != nil {
		s.db.Close()
		s.db = nil
		return err
	}
	return nil
}

// Close closes the file.
func (s *Snapshot) Close() error {
	if s.db == nil {
		return nil
	}
	err := s.db.Close()
	s.db = nil
	return err
}

func (s *Snapshot) readState(tx *bolt.Tx) error {
	bad := func(bucket, key string, why string) error {
		return fmt.Errorf("%s is not an etcd v3 snapshot: bucket %q, key %q: %s", s.path, bucket, key, why)
	}
	for _, name := range []string{bucketKey, bucketMeta} {
		if tx.Bucket([]byte(name)) == nil {
			return fmt.Errorf("%s is not an etcd v3 snapshot: it has no %q bucket", s.path, name)
		}
	}
	u64 := func(bucket, key string, v []byte) (uint64, error) {
		if len(v) != 8 {
			return 0, bad(bucket, key, fmt.Sprintf("%d bytes, want 8", len(v)))
		}
		return binary.BigEndian.Uint64(v), nil
	}
	st := &s.State
	err := tx.Bucket([]byte(bucketMeta)).ForEach(func(k, v []byte) error {
		var err error
		switch string(k) {
		case metaConsistentIndex:
			st.ConsistentIndex, err = u64(bucketMeta, string(k), v)
		case metaTerm:
			st.Term, err = u64(bucketMeta, string(k), v)
		case metaConfState:
			if json.Unmarshal(v, &st.ConfState) != nil {
				err = bad(bucketMeta, string(k), "not a raft ConfState")
			}
		case metaStorageVersion:
			st.StorageVersion = string(v)
		case metaScheduledCompact, metaFinishedCompact:
			rev, _, perr := parseRevKey(v)
			if perr != nil {
				return bad(bucketMeta, string(k), perr.Error())
			}
			if string(k) == metaScheduledCompact {
				st.ScheduledCompact = rev.Main
			} else {
				st.FinishedCompact = rev.Main
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	if b := tx.Bucket([]byte(bucketCluster)); b != nil {
		st.ClusterVersion = string(b.Get([]byte(clusterVersionKey)))
	}
	if b := tx.Bucket([]byte(bucketAuth)); b != nil {
		if v := b.Get([]byte(authRevisionKey)); v != nil {
			if st.AuthRevision, err = u64(bucketAuth, authRevisionKey, v); err != nil {
				return err
			}
		}
		if v := b.Get([]byte(authEnabledKey)); len(v) == 1 && v[0] == 1 {
			st.AuthEnabled = true
		}
	}
	if b := tx.Bucket([]byte(bucketMembers)); b != nil {
		if err := b.ForEach(func(k, v []byte) error {
			var m Member
			if json.Unmarshal(v, &m) != nil {
				return bad(bucketMembers, string(k), "not a member")
			}
			st.Members = append(st.Members, m)
			return nil
		}); err != nil {
			return err
		}
	}
	if b := tx.Bucket([]byte(bucketMembersRemoved)); b != nil {
		if err := b.ForEach(func(k, _ []byte) error {
			id, err := strconv.ParseUint(string(k), 16, 64)
			if err != nil {
				return bad(bucketMembersRemoved, string(k), "not a member ID")
			}
			st.RemovedMembers = append(st.RemovedMembers, id)
			return nil
		}); err != nil {
			return err
		}
	}
	if b := tx.Bucket([]byte(bucketLease)); b != nil {
		if err := b.ForEach(func(k, v []byte) error {
			l, err := unmarshalLease(v)
			if err != nil || len(k) != 8 || uint64(l.ID) != binary.BigEndian.Uint64(k) {
				return bad(bucketLease, fmt.Sprintf("%x", k), "not a lease")
			}
			st.Leases = append(st.Leases, l)
			return nil
		}); err != nil {
			return err
		}
	}
	if b := tx.Bucket([]byte(bucketAlarm)); b != nil {
		if err := b.ForEach(func(k, _ []byte) error {
			a := &etcdserverpb.AlarmMember{}
			if a.Unmarshal(k) != nil {
				return bad(bucketAlarm, fmt.Sprintf("%x", k), "not an alarm")
			}
			st.Alarms = append(st.Alarms, a)
			return nil
		}); err != nil {
			return err
		}
	}
	// The revision and the keys alive at it, as etcdutl counts them.
	seen := map[string]struct{}{}
	err = s.records(tx, func(r *Record) error {
		s.Revision = r.Rev.Main
		if r.Tombstone {
			delete(seen, string(r.KV.Key))
		} else {
			seen[string(r.KV.Key)] = struct{}{}
		}
		return nil
	})
	s.TotalKeys = len(seen)
	return err
}

// Records calls visit for every record of the key bucket, in revision
// order, and stops at its first error. The record is reused between calls,
// but the bytes of its key and value are its own (unmarshalled afresh for
// each record, never changed afterwards): visit may keep them.
func (s *Snapshot) Records(visit func(*Record) error) (err error) {
	if s.db == nil {
		return errors.New("snapshot: Records on a closed snapshot")
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s is corrupt: %v", s.path, r)
		}
	}()
	return s.db.View(func(tx *bolt.Tx) error { return s.records(tx, visit) })
}

func (s *Snapshot) records(tx *bolt.Tx, visit func(*Record) error) error {
	var r Record
	return tx.Bucket([]byte(bucketKey)).ForEach(func(k, v []byte) error {
		rev, tomb, err := parseRevKey(k)
		if err != nil {
			return fmt.Errorf("%s is not an etcd v3 snapshot: %v", s.path, err)
		}
		r = Record{Rev: rev, Tombstone: tomb} // a new key and value: see Records
		if err := r.KV.Unmarshal(v); err != nil {
			return fmt.Errorf("%s is corrupt: the value at revision %d_%d is not a key-value: %v", s.path, rev.Main, rev.Sub, err)
		}
		return visit(&r)
	})
}

func unmarshalLease(b []byte) (Lease, error) {
	var l Lease
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || typ != protowire.VarintType {
			return Lease{}, errors.New("not a lease")
		}
		b = b[n:]
		v, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return Lease{}, errors.New("not a lease")
		}
		b = b[n:]
		switch num {
		case 1:
			l.ID = int64(v)
		case 2:
			l.TTL = int64(v)
		case 3:
			l.RemainingTTL = int64(v)
		}
	}
	return l, nil
}

// Status computes what etcdutl snapshot status reports, as it computes it
// (etcdutl/snapshot/v3_snapshot.go): CRC-32C over every bucket's name and
// every key and value in it, the newest revision, the keys alive at it,
// bbolt's size and the storage version.
func (s *Snapshot) Status() (st Status, err error) {
	if s.db == nil {
		return Status{}, errors.New("snapshot: Status on a closed snapshot")
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s is corrupt: %v", s.path, r)
		}
	}()
	h := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	err = s.db.View(func(tx *bolt.Tx) error {
		c := tx.Cursor()
		for name, _ := c.First(); name != nil; name, _ = c.Next() {
			b := tx.Bucket(name)
			if b == nil {
				return fmt.Errorf("%s: nil bucket %q", s.path, name)
			}
			h.Write(name)
			if err := b.ForEach(func(k, v []byte) error {
				h.Write(k)
				h.Write(v)
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return Status{}, err
	}
	return Status{Hash: h.Sum32(), Revision: s.Revision, TotalKey: s.TotalKeys, TotalSize: s.DBSize,
		Version: s.StorageVersion}, nil
}
