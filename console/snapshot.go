package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"strings"

	"github.com/raftsim/raftsim/scenarios"
)

// snapshotFile is what `snapshot save` writes: one member's state machine
// and where it stood in the log. It is JSON, so a reader can look inside.
type snapshotFile struct {
	Format   string         `json:"format"` // snapshotFormat
	Member   string         `json:"member"`
	Time     string         `json:"virtual_time"`
	Term     uint64         `json:"raft_term"`
	Applied  uint64         `json:"raft_applied_index"`
	Revision int64          `json:"revision"`
	KVs      []snapshotItem `json:"kvs"`
}

type snapshotItem struct {
	Key            string `json:"key"`
	Value          string `json:"value"`
	CreateRevision int64  `json:"create_revision"`
	ModRevision    int64  `json:"mod_revision"`
	Version        int64  `json:"version"`
}

const snapshotFormat = "raftsim-snapshot-v1"

// maxSnapshotBytes bounds a snapshot file that snapshot status reads: far
// more than any simulated cluster's keys take.
const maxSnapshotBytes = 64 << 20

// snapshot save FILE | snapshot status FILE
func (c *Console) snapshot(args []string, _ bool) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("snapshot needs a subcommand: save FILE or status FILE")
	}
	f := newFlags("snapshot " + args[0])
	rest, err := f.parse(args[1:], 1, 1, "snapshot "+args[0]+" FILE")
	if err != nil {
		return err
	}
	switch args[0] {
	case "save":
		return c.snapshotSave(f, rest[0])
	case "status":
		return c.snapshotStatus(rest[0], *f.writeOut)
	}
	return fmt.Errorf("unknown snapshot subcommand %q (want save or status)", args[0])
}

// snapshotSave streams one member's state to a file, as etcdctl snapshot
// save does: it needs exactly one endpoint, and involves no consensus.
func (c *Console) snapshotSave(f *flags, file string) error {
	eps, err := c.endpoints(f)
	if err != nil {
		return err
	}
	if len(eps) != 1 {
		return fmt.Errorf("snapshot must be requested to one selected node, not multiple %v (add --endpoints=%s)", eps, eps[0])
	}
	in, _ := c.w.Info(eps[0])
	rev, kvs, ok := c.w.MemberKV(eps[0])
	if !ok || in.Stalled {
		return fmt.Errorf("rpc error: code = Unavailable desc = connection refused: %s is down", eps[0])
	}
	s := snapshotFile{Format: snapshotFormat, Member: in.Name, Time: c.w.Now().String(), Term: in.Term,
		Applied: in.Applied, Revision: rev, KVs: []snapshotItem{}}
	for _, kv := range kvs {
		s.KVs = append(s.KVs, snapshotItem{Key: kv.Key, Value: kv.Value, CreateRevision: kv.CreateRevision,
			ModRevision: kv.ModRevision, Version: kv.Version})
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := c.writeFile(file, append(data, '\n')); err != nil {
		return err
	}
	c.printf("Snapshot saved at %s (%s at applied index %d, revision %d, %d keys)\n", file, in.Name, in.Applied, rev, len(kvs))
	return nil
}

// snapshotStatus reads a snapshot file and prints etcd's columns: hash,
// revision, total keys, total size.
func (c *Console) snapshotStatus(file, format string) error {
	data, err := scenarios.ReadFileLimited(c.path(file), file, maxSnapshotBytes, "a snapshot file")
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s %s: %v", pe.Op, file, pe.Err) // the name as given, not as resolved
	} else if err != nil {
		return err
	}
	var s snapshotFile
	if err := json.Unmarshal(data, &s); err != nil || s.Format != snapshotFormat {
		return fmt.Errorf("%s is not a snapshot written by snapshot save", file)
	}
	hash := crc32.ChecksumIEEE(data)
	switch format {
	case "json":
		out, _ := json.Marshal(map[string]any{"hash": hash, "revision": s.Revision, "totalKey": len(s.KVs), "totalSize": len(data)})
		c.printf("%s\n", out)
	case "table":
		t := table{header: []string{"HASH", "REVISION", "TOTAL KEYS", "TOTAL SIZE"},
			rows: [][]string{{fmt.Sprintf("%x", hash), fmt.Sprint(s.Revision), fmt.Sprint(len(s.KVs)), humanBytes(uint64(len(data)))}}}
		c.printf("%s", t.String())
	default:
		c.printf("%x, %d, %d, %s\n", hash, s.Revision, len(s.KVs), humanBytes(uint64(len(data))))
	}
	return nil
}
