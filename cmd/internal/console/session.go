package console

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/raftsim/raftsim/sim"
)

// bootLimit bounds how long Start waits for the first leader.
const bootLimit = 10 * time.Second

// Start prints the session's banner, seed first, and lets virtual time pass
// until the cluster has elected its first leader and every member has heard
// from it (at most 10s), since a cluster that etcdctl talks to is already
// running. what names the
// cluster's source, e.g. "sandbox" or a scenario file.
func (c *Console) Start(what string) error {
	cfg := c.w.Config()
	c.printf("raftsim shell: %s, seed=%d\n", what, c.w.Seed())
	c.printf("members: %s; heartbeat %s, election timeout %s\n", strings.Join(cfg.Members, ", "), cfg.Tick,
		time.Duration(cfg.ElectionTicks)*cfg.Tick)
	var clients []string
	for _, cl := range c.w.Clients() {
		clients = append(clients, cl.Name+"→"+strings.Join(cl.Endpoints, ","))
	}
	switch cfg.Topology {
	case "stacked":
		c.printf("topology: stacked (each kube-apiserver talks only to the member on its host)\n")
	case "external":
		c.printf("topology: external (each kube-apiserver has every member as an endpoint and fails over)\n")
	}
	if len(clients) > 0 {
		c.printf("clients: %s\n", strings.Join(clients, "  "))
	}
	j := &job{deadline: c.w.Now().Add(bootLimit)}
	j.poll = func() bool {
		l, ok := c.w.Leader()
		if !ok {
			return false
		}
		lead, _ := c.w.Info(l)
		for _, in := range c.w.Infos() {
			if in.Up && !in.Removed && in.Lead != lead.ID {
				return false // not every member has heard from the leader yet
			}
		}
		c.printf("%s leads in term %d; every member knows it at %s. Type help for the verbs.\n", l, lead.Term, c.w.Now())
		return true
	}
	j.onDeadline = func() { c.printf("no leader after %s. Type help for the verbs.\n", bootLimit) }
	if c.opts.Mode == Async {
		c.jobs = append(c.jobs, j)
		return nil
	}
	return c.wait(j)
}

// RunScript reads commands from r, one a line, and runs each, echoing it
// after the prompt so that the output reads like the session it was. It
// stops at the end of input, at exit, or at a safety violation (returned).
func (c *Console) RunScript(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		c.printf("%s%s\n", c.Prompt(), line)
		err := c.Exec(line)
		if errors.Is(err, ErrQuit) {
			break
		}
		if err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading commands: %w", err)
	}
	return c.Close()
}

// Violation is the safety violation that stopped the world, if any.
func (c *Console) Violation() *sim.Violation { return c.w.Violation() }
