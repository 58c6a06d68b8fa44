package console

import (
	"fmt"
	"strings"

	"github.com/raftsim/raftsim/membership"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

// etcdutl snapshot restore FILE --name N --initial-cluster ... --data-dir D
// | etcdutl snapshot status FILE: etcd's offline tool, run on a host.
func (c *Console) etcdutl(args []string, _ bool) error {
	if len(args) < 2 || args[0] != "snapshot" || (args[1] != "restore" && args[1] != "status") {
		return fmt.Errorf("etcdutl: raftsim has etcdutl snapshot restore FILE and etcdutl snapshot status FILE")
	}
	if args[1] == "status" {
		f := newFlags("etcdutl snapshot status")
		rest, err := f.parse(args[2:], 1, 1, "etcdutl snapshot status FILE")
		if err != nil {
			return err
		}
		return c.snapshotStatus(rest[0], *f.writeOut)
	}
	f := newFlags("etcdutl snapshot restore")
	name := f.String("name", "", "the member restored (it runs on the host of that name)")
	cluster := f.String("initial-cluster", "", "the new cluster's members, NAME=PEER-URL,... (default: NAME=its advertised peer URL)")
	token := f.String("initial-cluster-token", membership.DefaultClusterToken, "the new cluster's token: with the peer URLs it makes the member and cluster IDs")
	peerURL := f.String("initial-advertise-peer-urls", "", "the member's peer URL (default: the host's)")
	dataDir := f.String("data-dir", "", "where on the host the data directory is written (default: NAME.etcd); it must not exist")
	rest, err := f.parse(args[2:], 1, 1, "etcdutl snapshot restore FILE --name NAME [--initial-cluster ...] [--initial-cluster-token T] [--initial-advertise-peer-urls URL] [--data-dir DIR]")
	if err != nil {
		return err
	}
	if *name == "" {
		return fmt.Errorf("etcdutl snapshot restore needs --name: the member it restores, on the host of that name")
	}
	file := rest[0]
	kv, version, err := scenarios.ReadSnapshot(c.path(file))
	if err != nil {
		return unresolved(err, c.path(file), file)
	}
	spec := &sim.RestoreSpec{File: file, Name: *name, InitialCluster: *cluster, Token: *token, PeerURL: *peerURL, DataDir: *dataDir,
		KV: kv, ClusterVersion: version}
	from := c.w.HistoryLen()
	if _, err := c.do(sim.Command{Kind: sim.CmdSnapshotRestore, Restore: spec}); err != nil {
		return err
	}
	// What etcdutl logs, and what the restore leaves behind: the
	// transcript's lines.
	for _, e := range c.w.EventsSince(from) {
		if e.Kind == sim.EvFault {
			c.printf("%s\n", e.Text)
		}
	}
	dir := *dataDir
	if dir == "" {
		dir = *name + ".etcd"
	}
	c.printf("start the member from it: restart %s --data-dir %s\n", *name, dir)
	return nil
}

// lose HOST...: hosts lost for good, their disks included.
func (c *Console) lose(args []string, _ bool) error {
	return c.perMember("lose", args, sim.Command{Kind: sim.CmdLose}, "is lost for good: its host and its disks are gone")
}

// restart MEMBER... [--data-dir DIR] [--force-new-cluster]
func (c *Console) restart(args []string, _ bool) error {
	f := newFlags("restart")
	dir := f.String("data-dir", "", "restart from this data directory on the member's host (one etcdutl snapshot restore wrote)")
	force := f.Bool("force-new-cluster", false, "restart as a cluster of one on the member's data directory, as etcd --force-new-cluster does")
	rest, err := f.parse(args, 1, -1, "restart MEMBER... [--data-dir DIR] [--force-new-cluster]")
	if err != nil {
		return err
	}
	done := "restarted from its disk"
	if *dir != "" {
		done = "restarted from " + *dir
	}
	cmd := sim.Command{Kind: sim.CmdRestart, DataDir: *dir, ForceNewCluster: *force}
	if !*force {
		return c.perMember("restart", rest, cmd, done)
	}
	// What etcd logs as it forces the new cluster, and what is lost: the
	// transcript's lines.
	for _, r := range rest {
		name, err := c.resolve(r)
		if err != nil {
			return err
		}
		cmd.Node = name
		from := c.w.HistoryLen()
		if _, err := c.do(cmd); err != nil {
			return err
		}
		c.printf("%s %s as a cluster of one (--force-new-cluster)\n", name, done)
		for _, e := range c.w.EventsSince(from) {
			if e.Kind == sim.EvFault && (strings.HasPrefix(e.Text, "--force-new-cluster") || strings.HasPrefix(e.Text, "the forced cluster")) {
				c.printf("%s\n", e.Text)
			}
		}
	}
	return nil
}
