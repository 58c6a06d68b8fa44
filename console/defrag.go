package console

import (
	"fmt"

	"github.com/raftsim/raftsim/sim"
)

// defrag [--cluster]: etcdctl defrag, each endpoint in turn. It rewrites
// a member's database file without its free pages: DB SIZE drops to IN
// USE. It involves no consensus; it takes no virtual time here (a real
// one blocks the member for as long as the rewrite takes).
func (c *Console) defrag(args []string, _ bool) error {
	f := newFlags("defrag")
	cluster := f.Bool("cluster", false, "use all endpoints from the cluster member list")
	if _, err := f.parse(args, 0, 0, "defrag [--cluster] [--endpoints M]"); err != nil {
		return err
	}
	eps, err := c.endpoints(f)
	if err != nil {
		return err
	}
	if *cluster {
		if eps, err = c.clusterEndpoints(eps); err != nil {
			return err
		}
	}
	failed := 0
	for _, ep := range eps {
		if _, err := c.do(sim.Command{Kind: sim.CmdDefrag, Node: ep}); err != nil {
			c.printf("Failed to defragment etcd member[%s]. took 0s. (%v)\n", c.label(ep), err)
			failed++
			continue
		}
		c.printf("Finished defragmenting etcd member[%s]. took 0s\n", c.label(ep))
	}
	if failed > 0 {
		return fmt.Errorf("failed to defragment %d of %d members", failed, len(eps))
	}
	return nil
}
