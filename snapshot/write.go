//go:build !js

package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	bolt "go.etcd.io/bbolt"

	"github.com/raftsim/raftsim/outfile"
	"google.golang.org/protobuf/encoding/protowire"
)

// defragLimit is how many keys etcd's defrag copies per bbolt transaction
// (server/storage/backend/backend.go).
const defragLimit = 10000

// fillPercent is the fill percent etcd's defrag gives every bucket it
// copies, and its batch transaction the key bucket it appends to.
const fillPercent = 0.9

// Write writes a snapshot of st and the records to path, as etcdctl
// snapshot save does, whole or not at all: into a temporary file beside
// it, renamed over it once written (package outfile), so that a failed
// write leaves what was at path untouched. records calls yield for each
// record of the key bucket in revision order and stops at its first error.
//
// The database is built in a scratch file in dir (the directory of path
// when dir is ""), then copied to the temporary file with its sha256
// appended.
func Write(path string, st *State, records func(yield func(*Record) error) error) (Written, error) {
	// NB: etcdctl writes path.part (truncating one that is there, made by
	// anyone) and renames it over the destination, over a device too (as
	// root, over /dev/full itself); raftsim refuses any destination that
	// is there and is not a regular file, and writes through a temporary
	// file of its own.
	// NB: the output is opened before any work is done, so that a path that
	// cannot be written fails at once.
	out, err := outfile.CreateMode(path, 0o600)
	if err != nil {
		return Written{}, err
	}
	defer out.Abort()
	w, err := writeTo(out.File, filepath.Dir(path), st, records)
	if err != nil {
		return Written{}, err
	}
	if err := out.Commit(); err != nil {
		return Written{}, err
	}
	return w, nil
}

// WriteTo writes a snapshot to out (a pipe, a device, a file), building the
// database in a scratch file in dir (os.TempDir() when dir is "").
func WriteTo(out io.Writer, dir string, st *State, records func(yield func(*Record) error) error) (Written, error) {
	return writeTo(out, dir, st, records)
}

func writeTo(out io.Writer, dir string, st *State, records func(yield func(*Record) error) error) (Written, error) {
	scratch, err := os.CreateTemp(dir, ".raftsim-snapshot-*.db")
	if err != nil {
		scratch, err = os.CreateTemp("", "raftsim-snapshot-*.db")
		if err != nil {
			return Written{}, err
		}
	}
	name := scratch.Name()
	scratch.Close()
	defer os.Remove(name)
	w, err := buildDB(name, st, records)
	if err != nil {
		return Written{}, err
	}
	db, err := os.Open(name)
	if err != nil {
		return Written{}, err
	}
	defer db.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), db)
	if err != nil {
		return Written{}, fmt.Errorf("writing the snapshot: %w", err)
	}
	w.SHA256 = h.Sum(nil)
	if _, err := out.Write(w.SHA256); err != nil {
		return Written{}, fmt.Errorf("writing the snapshot: %w", err)
	}
	if f, ok := out.(*os.File); ok {
		if err := f.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) && !isNotSyncable(err) {
			return Written{}, fmt.Errorf("writing the snapshot: %w", err)
		}
	}
	w.Size = n + sha256.Size
	return w, nil
}

// buildDB writes the bbolt database at path as etcd's defragdb copies one:
// every bucket in name order, fill percent 90%, a commit every
// defragLimit keys.
func buildDB(path string, st *State, records func(yield func(*Record) error) error) (Written, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{NoFreelistSync: true, NoSync: true, NoGrowSync: true})
	if err != nil {
		return Written{}, err
	}
	c := &copier{db: db}
	var w Written
	err = c.begin()
	for _, name := range allBuckets {
		if err != nil {
			break
		}
		if err = c.bucket(name); err != nil {
			break
		}
		if name == bucketKey {
			err = records(func(r *Record) error {
				if r.Rev.Main < w.Revision {
					return fmt.Errorf("record at revision %d after revision %d", r.Rev.Main, w.Revision)
				}
				w.Revision = r.Rev.Main
				v, err := r.KV.Marshal()
				if err != nil {
					return err
				}
				return c.put(revKey(r.Rev, r.Tombstone), v)
			})
			continue
		}
		for _, kv := range smallBucket(name, st) {
			if err = c.put(kv[0], kv[1]); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = c.tx.Commit()
		c.tx = nil
	}
	if c.tx != nil {
		c.tx.Rollback()
	}
	if err == nil {
		err = db.View(func(tx *bolt.Tx) error { w.DBSize = tx.Size(); return nil })
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Written{}, fmt.Errorf("building the snapshot database: %w", err)
	}
	return w, nil
}

// copier puts keys as etcd's defragdb does.
type copier struct {
	db    *bolt.DB
	tx    *bolt.Tx
	b     *bolt.Bucket
	name  string
	count int
}

func (c *copier) begin() (err error) {
	c.tx, err = c.db.Begin(true)
	return err
}

func (c *copier) bucket(name string) (err error) {
	c.name = name
	c.b, err = c.tx.CreateBucketIfNotExists([]byte(name))
	if err == nil {
		c.b.FillPercent = fillPercent
	}
	return err
}

func (c *copier) put(k, v []byte) error {
	c.count++
	if c.count > defragLimit {
		if err := c.tx.Commit(); err != nil {
			c.tx = nil
			return err
		}
		if err := c.begin(); err != nil {
			return err
		}
		c.b = c.tx.Bucket([]byte(c.name))
		c.b.FillPercent = fillPercent
		c.count = 0
	}
	return c.b.Put(k, v)
}

// smallBucket returns the keys and values of every bucket but key, in key
// order.
func smallBucket(name string, st *State) [][2][]byte {
	var kvs [][2][]byte
	add := func(k string, v []byte) { kvs = append(kvs, [2][]byte{[]byte(k), v}) }
	u64 := func(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }
	switch name {
	case bucketMeta:
		if st.ScheduledCompact > 0 {
			add(metaScheduledCompact, revKey(Revision{Main: st.ScheduledCompact}, false))
		}
		if st.FinishedCompact > 0 {
			add(metaFinishedCompact, revKey(Revision{Main: st.FinishedCompact}, false))
		}
		cs, _ := json.Marshal(st.ConfState)
		add(metaConfState, cs)
		add(metaConsistentIndex, u64(st.ConsistentIndex))
		if st.StorageVersion != "" {
			add(metaStorageVersion, []byte(st.StorageVersion))
		}
		add(metaTerm, u64(st.Term))
	case bucketCluster:
		if st.ClusterVersion != "" {
			add(clusterVersionKey, []byte(st.ClusterVersion))
		}
	case bucketAuth:
		if st.AuthEnabled {
			add(authEnabledKey, []byte{1})
		}
		add(authRevisionKey, u64(st.AuthRevision))
	case bucketMembers:
		for _, m := range st.Members {
			v, _ := json.Marshal(m)
			add(memberKey(m.ID), v)
		}
	case bucketMembersRemoved:
		for _, id := range st.RemovedMembers {
			add(memberKey(id), []byte("removed"))
		}
	case bucketLease:
		for _, l := range st.Leases {
			add(string(u64(uint64(l.ID))), marshalLease(l))
		}
	case bucketAlarm:
		for _, a := range st.Alarms {
			v, _ := a.Marshal()
			kvs = append(kvs, [2][]byte{v, nil})
		}
	}
	slices.SortFunc(kvs, func(a, b [2][]byte) int { return bytes.Compare(a[0], b[0]) })
	return kvs
}

// memberKey is a member's key in the members buckets: its ID in hex, as
// types.ID.String writes it.
func memberKey(id uint64) string { return strconv.FormatUint(id, 16) }

// marshalLease encodes a lease as leasepb.Lease (ID 1, TTL 2,
// RemainingTTL 3; proto3, so zero fields are left out).
func marshalLease(l Lease) []byte {
	var b []byte
	for i, v := range []int64{l.ID, l.TTL, l.RemainingTTL} {
		if v != 0 {
			b = protowire.AppendTag(b, protowire.Number(i+1), protowire.VarintType)
			b = protowire.AppendVarint(b, uint64(v))
		}
	}
	return b
}

// isNotSyncable reports an fsync error that only says the file (a pipe, a
// character device) cannot be synced.
func isNotSyncable(err error) bool {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error() == "invalid argument"
	}
	return false
}
