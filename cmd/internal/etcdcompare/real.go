package etcdcompare

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The real cluster listens on fixed loopback ports, so that its member IDs
// (computed from the peer URLs) are the same on every run; LockFile keeps
// two comparisons on one machine from starting clusters at once.
const (
	clientPortBase = 31790 // m1 is 31791
	peerPortBase   = 31800 // m1 is 31801
	// Token is the --initial-cluster-token of both clusters.
	Token = "raftsim"
	// LockFile serialises real clusters on one machine.
	LockFile = "/tmp/raftsim-etcdcompare.lock"
	// commandTimeout is etcdctl's default --command-timeout.
	commandTimeout = 5 * time.Second
)

// ClientURL is a member's client URL.
func ClientURL(m string) string {
	return fmt.Sprintf("http://127.0.0.1:%d", clientPortBase+memberIndex(m))
}

// PeerURL is a member's peer URL.
func PeerURL(m string) string {
	return fmt.Sprintf("http://127.0.0.1:%d", peerPortBase+memberIndex(m))
}

// Endpoints is the --endpoints value both sides are given: each member's
// client address, as etcdctl users write it.
func Endpoints() string {
	var eps []string
	for _, m := range Members {
		eps = append(eps, strings.TrimPrefix(ClientURL(m), "http://"))
	}
	return strings.Join(eps, ",")
}

func memberIndex(m string) int {
	for i, x := range Members {
		if x == m {
			return i + 1
		}
	}
	panic("etcdcompare: no member " + m)
}

// A RealCluster is three etcd processes on loopback.
type RealCluster struct {
	bin   string // the directory with etcd and etcdctl
	dir   string
	procs map[string]*exec.Cmd
	lock  *os.File
}

// StartReal starts a fresh cluster from the binaries in bin, with its data
// under dir, and waits until it has started as raftsim's console waits: a
// leader, every member published, the cluster version set (every member
// at the same applied index, its storage moved to 3.6). Who wins the first election is chance, and
// it shows in the output, so it starts clusters until m1 wins, as m1 does
// in SimConfig's simulation.
func StartReal(bin, dir string) (*RealCluster, error) { return StartRealFlags(bin, dir, nil) }

// StartRealFlags is StartReal with more flags for some members' etcd (by
// member: --quota-backend-bytes, say).
func StartRealFlags(bin, dir string, flags map[string][]string) (*RealCluster, error) {
	lock, err := lockPorts()
	if err != nil {
		return nil, err
	}
	want := KeptIDs()[0]
	for try := 1; try <= 30; try++ {
		c, leader, err := startReal(bin, filepath.Join(dir, strconv.Itoa(try)), startedIndex, flags)
		if err != nil {
			lock.Close()
			return nil, err
		}
		if leader == want {
			c.lock = lock
			return c, nil
		}
		c.Stop()
	}
	lock.Close()
	return nil, fmt.Errorf("m1 did not win the first election in 30 tries")
}

// StartRealOn starts a cluster on data directories that are there already
// (dir/m1, dir/m2, dir/m3: say, restored by etcdutl snapshot restore),
// whoever wins the first election.
func StartRealOn(bin, dir string) (*RealCluster, error) {
	lock, err := lockPorts()
	if err != nil {
		return nil, err
	}
	// A restored cluster's database holds the cluster version already: its
	// leader does not set it again, so it starts one index earlier.
	c, _, err := startReal(bin, dir, startedIndex-1, nil)
	if err != nil {
		unlockPorts(lock)
		return nil, err
	}
	c.lock = lock
	return c, nil
}

// startedIndex is the applied index at which a new cluster has started: n
// configuration changes, the leader's empty entry, n publications and the
// cluster version.
var startedIndex = uint64(2*len(Members) + 2)

func startReal(bin, dir string, started uint64, flags map[string][]string) (*RealCluster, uint64, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, 0, err
	}
	c := &RealCluster{bin: bin, dir: dir, procs: map[string]*exec.Cmd{}}
	var initial []string
	for _, m := range Members {
		initial = append(initial, m+"="+PeerURL(m))
	}
	for _, m := range Members {
		log, err := os.Create(filepath.Join(dir, m+".log"))
		if err != nil {
			c.Stop()
			return nil, 0, err
		}
		cmd := exec.Command(filepath.Join(bin, "etcd"), "--name", m, "--data-dir", filepath.Join(dir, m),
			"--listen-client-urls", ClientURL(m), "--advertise-client-urls", ClientURL(m),
			"--listen-peer-urls", PeerURL(m), "--initial-advertise-peer-urls", PeerURL(m),
			"--initial-cluster", strings.Join(initial, ","), "--initial-cluster-state", "new",
			"--initial-cluster-token", Token)
		cmd.Args = append(cmd.Args, flags[m]...)
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			log.Close()
			c.Stop()
			return nil, 0, err
		}
		log.Close()
		c.procs[m] = cmd
	}
	leader, err := c.waitStarted(30*time.Second, started)
	if err != nil {
		c.Stop()
		return nil, 0, err
	}
	return c, leader, nil
}

func (c *RealCluster) waitStarted(limit time.Duration, started uint64) (leader uint64, err error) {
	deadline := time.Now().Add(limit)
	var last string
	for time.Now().Before(deadline) {
		out, err := exec.Command(filepath.Join(c.bin, "etcdctl"), "--endpoints="+Endpoints(),
			"endpoint", "status", "-w", "json").Output()
		last = string(out)
		var st []struct {
			Status struct {
				Leader           uint64 `json:"leader"`
				RaftAppliedIndex uint64 `json:"raftAppliedIndex"`
				StorageVersion   string `json:"storageVersion"`
			}
		}
		if err == nil && json.Unmarshal(out, &st) == nil && len(st) == len(Members) {
			ok := true
			for _, s := range st {
				ok = ok && s.Status.Leader != 0 && s.Status.RaftAppliedIndex == st[0].Status.RaftAppliedIndex &&
					s.Status.RaftAppliedIndex >= started && s.Status.StorageVersion == "3.6.0"
			}
			if ok {
				return st[0].Status.Leader, nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return 0, fmt.Errorf("the real cluster did not start within %s (last status: %s); see the logs in %s", limit, last, c.dir)
}

// Run runs one step and returns what it printed (standard output and
// error, in the order written).
func (c *RealCluster) Run(st Step) (string, error) {
	switch {
	case st.Stop != nil:
		for _, m := range st.Stop {
			if err := c.procs[m].Process.Signal(syscall.SIGSTOP); err != nil {
				return "", err
			}
		}
		return "", nil
	case st.Kill != nil:
		for _, m := range st.Kill {
			if err := c.procs[m].Process.Kill(); err != nil {
				return "", err
			}
			_ = c.procs[m].Wait()
		}
		return "", nil
	case st.Sleep > 0:
		time.Sleep(st.Sleep)
		return "", nil
	}
	return runEtcdctl(c.bin, st, "")
}

// Stop kills the cluster (frozen members too) and releases the lock.
func (c *RealCluster) Stop() {
	for _, p := range c.procs {
		if p.ProcessState != nil {
			continue // killed by the session
		}
		_ = p.Process.Signal(syscall.SIGCONT)
		_ = p.Process.Kill()
		_ = p.Wait()
	}
	unlockPorts(c.lock)
}

// runEtcdctl runs a step's etcdctl command line with the etcdctl in bin
// (its standard input the step's here-document; a watch interrupted with
// SIGINT after its duration) and returns what it printed, standard output
// and error in the order written. flags go before the command's own
// (TLS flags).
func runEtcdctl(bin string, st Step, flags string) (string, error) {
	args := st.Command
	if !strings.Contains(args, "--endpoints") {
		args = "--endpoints=" + Endpoints() + " " + args
	}
	if flags != "" {
		args = flags + " " + args
	}
	ctx, cancel := context.WithTimeout(context.Background(), 6*commandTimeout+st.For)
	defer cancel()
	script := "exec " + filepath.Join(bin, "etcdctl") + " " + args
	if st.For > 0 {
		script = "timeout -s INT " + strconv.FormatFloat(st.For.Seconds(), 'f', -1, 64) + " " +
			filepath.Join(bin, "etcdctl") + " " + args + "; true"
	}
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if st.Stdin != nil {
		cmd.Stdin = strings.NewReader(strings.Join(st.Stdin, "\n") + "\n")
	}
	err := cmd.Run()
	if ctx.Err() != nil {
		return out.String(), fmt.Errorf("line %d: etcdctl did not finish: %v", st.Line, ctx.Err())
	}
	if _, ok := err.(*exec.ExitError); ok {
		err = nil // etcdctl failed: its message is the output
	}
	return out.String(), err
}

// lockPorts takes LockFile: the clusters of two comparisons (a real one, or
// raftsim serve's) listen on the same ports.
func lockPorts() (*os.File, error) {
	lock, err := os.OpenFile(LockFile, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		lock.Close()
		return nil, err
	}
	return lock, nil
}

func unlockPorts(lock *os.File) {
	if lock != nil {
		_ = syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
		lock.Close()
	}
}
