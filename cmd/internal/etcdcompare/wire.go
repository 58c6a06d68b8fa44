package etcdcompare

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/raftsim/raftsim/console"
	"github.com/raftsim/raftsim/sim"
	"github.com/raftsim/raftsim/wire"
)

// A WireCluster is raftsim serve's engine on a SimConfig world, listening
// where the real cluster does, which the real etcdctl talks to. Directives
// go through raftsim's console, as a person would type them at raftsim
// serve: @stop stalls a member, @kill crashes it.
type WireCluster struct {
	bin   string // the directory with etcdctl
	flags string // etcdctl's TLS flags, if any
	World *sim.World
	do    chan func()
	stop  chan struct{}
	done  chan error
	srv   *wire.Server
	lock  *os.File
	// console is raftsim's console on the world, run on the loop's
	// goroutine.
	console *console.Console
}

// StartWire builds the world, lets it start as `raftsim shell` does, and
// serves it (with TLS, certificates made in tlsDir, when it is not "").
func StartWire(bin, tlsDir string) (*WireCluster, error) {
	return StartWireWith(bin, tlsDir, SimConfig())
}

// StartWireWith is StartWire on a world built from cfg (a SimConfig
// changed: a quota, say).
func StartWireWith(bin, tlsDir string, cfg sim.Config) (*WireCluster, error) {
	lock, err := lockPorts()
	if err != nil {
		return nil, err
	}
	c := &WireCluster{bin: bin, do: make(chan func()), stop: make(chan struct{}), done: make(chan error, 1), lock: lock}
	plan, err := wire.PlanEndpoints(&cfg, 0, tlsDir)
	if err != nil {
		unlockPorts(lock)
		return nil, err
	}
	if plan.TLS != nil {
		c.flags = "--cacert=" + plan.TLS.CA + " --cert=" + plan.TLS.ClientCert + " --key=" + plan.TLS.ClientKey
	}
	w, err := sim.New(cfg)
	if err != nil {
		unlockPorts(lock)
		return nil, err
	}
	c.World = w
	if err := console.New(w, console.Options{Out: io.Discard}).Start("etcd-compare"); err != nil {
		unlockPorts(lock)
		return nil, err
	}
	front := wire.NewFront(1024)
	if c.srv, err = wire.Listen(front, plan.Endpoints); err != nil {
		unlockPorts(lock)
		return nil, err
	}
	con := console.New(w, console.Options{Out: io.Discard, Mode: console.Async})
	go func() {
		c.done <- wire.Loop(w, front, c.srv, wire.LoopOptions{Rate: 1, Console: con, Stop: c.stop,
			Tick: func(*sim.World) error {
				for {
					select {
					case f := <-c.do:
						f()
					default:
						return nil
					}
				}
			}})
	}()
	c.console = con
	return c, nil
}

// exec runs a console line on the loop's goroutine and waits for it.
func (c *WireCluster) exec(line string) error {
	errc := make(chan error, 1)
	select {
	case c.do <- func() { errc <- c.console.Exec(line) }:
	case err := <-c.done:
		return fmt.Errorf("raftsim serve stopped: %v", err)
	}
	return <-errc
}

// Run runs one step: an etcdctl command, or a directive.
func (c *WireCluster) Run(st Step) (string, error) {
	switch {
	case st.Stop != nil:
		for _, m := range st.Stop {
			if err := c.exec("stall " + m + " 1h"); err != nil {
				return "", err
			}
		}
		return "", nil
	case st.Kill != nil:
		for _, m := range st.Kill {
			if err := c.exec("crash " + m); err != nil {
				return "", err
			}
		}
		return "", nil
	case st.Sleep > 0:
		time.Sleep(st.Sleep)
		return "", nil
	}
	out, err := runEtcdctl(c.bin, st, c.flags)
	if c.flags != "" {
		// The transport's name, in clientv3's log lines.
		out = strings.ReplaceAll(out, "AuthInfo: 'tls'", "AuthInfo: 'insecure'")
	}
	return out, err
}

// Stop stops serving and releases the ports.
func (c *WireCluster) Stop() error {
	close(c.stop)
	err := <-c.done
	c.srv.Stop()
	unlockPorts(c.lock)
	return err
}
