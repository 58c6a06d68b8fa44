package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/raftsim/raftsim/sim"
	"github.com/raftsim/raftsim/snapshot"
)

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

// snapshotSave writes one member's backend to a file in etcd v3.6's
// snapshot format (package snapshot), as etcdctl snapshot save does: it
// needs exactly one endpoint, and involves no consensus.
func (c *Console) snapshotSave(f *flags, file string) error {
	eps, err := c.endpoints(f)
	if err != nil {
		return err
	}
	if len(eps) != 1 {
		return fmt.Errorf("snapshot must be requested to one selected node, not multiple %v (add --endpoints=%s)", eps, eps[0])
	}
	in, _ := c.w.Info(eps[0])
	st, records, err := c.w.SnapshotOf(eps[0])
	if err != nil || in.Stalled {
		// NB: the real etcdctl v3.6.16 waits here for ever: its call waits
		// for a connection (clientv3's WaitForReady) and snapshot save has
		// no deadline (seen against a refusing endpoint: no output in 30 s).
		return fmt.Errorf("%s refuses the connection (it is down); the real etcdctl snapshot save would wait for it for ever (raftsim's note)", c.hostPort(eps[0]))
	}
	if _, err := snapshot.Write(c.path(file), st, records); err != nil {
		return unresolved(err, c.path(file), file)
	}
	// The world keeps it too, so that a restore of it replays.
	if _, err := c.do(sim.Command{Kind: sim.CmdSnapshotSave, Node: eps[0], File: file}); err != nil {
		return err
	}
	c.printf("Snapshot saved at %s\n", file)
	if st.StorageVersion != "" {
		c.printf("Server version %s\n", st.StorageVersion)
	}
	return nil
}

// unresolved names a file as the user gave it, not as it was resolved.
func unresolved(err error, resolved, given string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s %s: %v", pe.Op, given, pe.Err)
	}
	if resolved != given {
		return errors.New(strings.ReplaceAll(err.Error(), resolved, given))
	}
	return err
}

// snapshotStatus reads a snapshot file and prints what etcdutl snapshot
// status prints (etcdctl v3.6 has left the verb to etcdutl): hash,
// revision, total keys, total size and storage version.
func (c *Console) snapshotStatus(file, format string) error {
	s, err := snapshot.Open(c.path(file), snapshot.Options{})
	if err != nil {
		return unresolved(err, c.path(file), file)
	}
	defer s.Close()
	st, err := s.Status()
	if err != nil {
		return unresolved(err, c.path(file), file)
	}
	row := []string{fmt.Sprintf("%x", st.Hash), fmt.Sprint(st.Revision), fmt.Sprint(st.TotalKey),
		humanBytes(uint64(st.TotalSize)), st.Version}
	switch format {
	case "json":
		out, _ := json.Marshal(st)
		c.printf("%s\n", out)
	case "fields":
		// etcdutl's fieldsPrinter.DBStatus: numbers in decimal.
		c.printf("\"Hash\" : %d\n\"Revision\" : %d\n\"Keys\" : %d\n\"Size\" : %d\n\"Version\" : %s\n",
			st.Hash, st.Revision, st.TotalKey, st.TotalSize, st.Version)
	case "table":
		t := table{header: []string{"HASH", "REVISION", "TOTAL KEYS", "TOTAL SIZE", "VERSION"}, rows: [][]string{row}}
		c.printf("%s", t.String())
	default:
		c.printf("%s\n", strings.Join(row, ", "))
	}
	return nil
}
