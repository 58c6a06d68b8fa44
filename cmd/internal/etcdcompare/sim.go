package etcdcompare

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/raftsim/raftsim/console"
	"github.com/raftsim/raftsim/membership"
	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/sim"
)

// SimConfig is the simulated twin of the real cluster: members m1, m2, m3
// with the real one's URLs and token, on loopback (latencies of a tenth of
// a millisecond), and no clients but etcdctl.
func SimConfig() sim.Config {
	cfg := sim.DefaultConfig()
	cfg.Members = Members
	cfg.Network.Latency = netmodel.Latency{Min: 100 * time.Microsecond, Max: 200 * time.Microsecond}
	cfg.ClientLatency = 50 * time.Microsecond
	cfg.ClusterToken = Token
	cfg.PeerURLs, cfg.ClientURLs = map[string]string{}, map[string]string{}
	for _, m := range Members {
		cfg.PeerURLs[m], cfg.ClientURLs[m] = PeerURL(m), ClientURL(m)
	}
	return cfg
}

// A SimCluster is raftsim's console on a SimConfig world.
type SimCluster struct {
	c   *console.Console
	out bytes.Buffer
}

// StartSim builds the world and lets it start, as `raftsim shell` does.
func StartSim() (*SimCluster, error) { return StartSimWith(SimConfig()) }

// StartSimWith starts the console on a world built from cfg (a SimConfig
// changed, for example to start from a snapshot).
func StartSimWith(cfg sim.Config) (*SimCluster, error) {
	w, err := sim.New(cfg)
	if err != nil {
		return nil, err
	}
	s := &SimCluster{}
	s.c = console.New(w, console.Options{Out: &s.out})
	if err := s.c.Start("etcd-compare"); err != nil {
		return nil, err
	}
	return s, nil
}

// commandGap is the time between two etcdctl commands: a new etcdctl
// process starts and dials its endpoints, which on this machine takes
// tens of milliseconds.
const commandGap = 20 * time.Millisecond

// Run runs one step and returns what the console printed for it.
func (s *SimCluster) Run(st Step) (string, error) {
	if err := s.exec("wait " + commandGap.String()); err != nil {
		return "", err
	}
	s.out.Reset()
	var line string
	switch {
	case st.Stop != nil:
		// A frozen process: a stall longer than any session.
		for _, m := range st.Stop {
			if err := s.exec("stall " + m + " 1h"); err != nil {
				return "", err
			}
		}
		s.out.Reset()
		return "", nil
	case st.Kill != nil:
		for _, m := range st.Kill {
			if err := s.exec("crash " + m); err != nil {
				return "", err
			}
		}
		s.out.Reset()
		return "", nil
	case st.Sleep > 0:
		line = "wait " + st.Sleep.String()
	case st.For > 0:
		line = st.Command + " --for " + st.For.String()
	default:
		line = st.Command
	}
	if st.Sleep == 0 && !strings.Contains(line, "--endpoints") {
		line += " --endpoints=" + Endpoints()
	}
	if st.Stdin != nil {
		// A here-document: the console reads the lines after the command
		// as the command's input (txn), as etcdctl reads its standard
		// input, without echoing them. Input that ends inside the command
		// is etcdctl's "Error: EOF", which Close prints.
		if err := s.exec(line); err != nil {
			return s.out.String(), err
		}
		for _, l := range st.Stdin {
			if err := s.c.Exec(l); err != nil {
				return s.out.String(), err
			}
		}
		if s.c.InTxn() {
			if err := s.c.Close(); err != nil {
				return s.out.String(), err
			}
		}
		return s.out.String(), nil
	}
	err := s.exec(line)
	if st.Sleep > 0 {
		s.out.Reset()
	}
	return s.out.String(), err
}

func (s *SimCluster) exec(line string) error {
	if err := s.c.Exec(line); err != nil {
		return fmt.Errorf("%s: %w", line, err)
	}
	return nil
}

// KeptIDs are the IDs compared as they are: the bootstrap members' and the
// cluster's, which both sides compute from the same URLs and token.
func KeptIDs() []uint64 {
	var ids []uint64
	for _, m := range Members {
		ids = append(ids, membership.MemberID([]string{PeerURL(m)}, Token, nil))
	}
	return append(ids, membership.ClusterID(ids))
}
