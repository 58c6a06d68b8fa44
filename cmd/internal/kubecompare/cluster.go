package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/raftsim/raftsim/wire"
)

// The members of both clusters, and the one kube-apiserver talks to.
var members = []string{"m1", "m2", "m3"}

const kubeMember = "m1"

// A cluster is three members serving etcd's API over TLS on loopback.
type cluster interface {
	name() string
	describe() string    // who leads, once ready
	url(m string) string // a member's client URL
	partition() error    // cut kubeMember off
	heal() error         // undo partition
	stop()               // kill everything it started; idempotent
}

// freePorts returns n consecutive loopback ports that nobody listens on
// now, from 20000-60000 (other people's servers use this machine too).
func freePorts(n int) ([]int, error) {
	for try := 0; try < 100; try++ {
		base := 20000 + rand.IntN(40000-n)
		var ls []net.Listener
		for i := 0; i < n; i++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+i))
			if err != nil {
				break
			}
			ls = append(ls, l)
		}
		for _, l := range ls {
			l.Close()
		}
		if len(ls) == n {
			ports := make([]int, n)
			for i := range ports {
				ports[i] = base + i
			}
			return ports, nil
		}
	}
	return nil, errors.New("no free ports in 100 tries")
}

// A proc is a process we started, its output in a log file.
type proc struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed when it has exited
	err    error         // its exit status, once exited
}

func startProc(cmd *exec.Cmd, logPath string) (*proc, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	p := &proc{cmd: cmd, exited: make(chan struct{})}
	go func() { p.err = cmd.Wait(); log.Close(); close(p.exited) }()
	return p, nil
}

// kill ends the process (a stopped one too) and waits for it.
func (p *proc) kill() {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGCONT)
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// poll calls ready every 200ms until it says yes, the deadline passes,
// ctx ends or one of procs exits.
func poll(ctx context.Context, what string, limit time.Duration, procs []*proc, ready func(context.Context) (bool, string)) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	last := ""
	for {
		ok, why := ready(ctx)
		if ok {
			return nil
		}
		if why != "" {
			last = why
		}
		for _, p := range procs {
			select {
			case <-p.exited:
				return fmt.Errorf("%s: %s exited (%v) before it was ready; last: %s", what, filepath.Base(p.cmd.Path), p.err, last)
			default:
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: not ready within %s (%v); last: %s", what, limit, ctx.Err(), last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// leaderOf asks each member for its status, over TLS, and returns the
// member every one of them names as leader.
func leaderOf(ctx context.Context, urls map[string]string, pki *wire.TLSFiles) (string, string) {
	tc, err := pki.ClientTLS()
	if err != nil {
		return "", err.Error()
	}
	leader := ""
	for _, m := range members {
		cli, err := clientv3.New(clientv3.Config{Endpoints: []string{urls[m]}, TLS: tc, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
		if err != nil {
			return "", err.Error()
		}
		sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		st, err := cli.Status(sctx, urls[m])
		var ml *clientv3.MemberListResponse
		if err == nil {
			ml, err = cli.MemberList(sctx)
		}
		cancel()
		cli.Close()
		if err != nil {
			return "", m + ": " + err.Error()
		}
		if st.Leader == 0 {
			return "", m + ": no leader"
		}
		name := ""
		for _, x := range ml.Members {
			if x.ID == st.Leader {
				name = x.Name
			}
		}
		if name == "" || (leader != "" && name != leader) {
			return "", fmt.Sprintf("%s: leader %x (%q), others say %q", m, st.Leader, name, leader)
		}
		leader = name
	}
	return leader, ""
}

// etcd is a real three-member etcd v3.6.16: clients over TLS with
// kubeadm's certificates, peers over plain HTTP.
type etcd struct {
	procs  map[string]*proc
	urls   map[string]string
	leader string
}

func startEtcd(ctx context.Context, bin, dir string, pki *wire.TLSFiles) (cluster, error) {
	ports, err := freePorts(2 * len(members))
	if err != nil {
		return nil, err
	}
	e := &etcd{procs: map[string]*proc{}, urls: map[string]string{}}
	var initial []string
	peer := map[string]string{}
	for i, m := range members {
		e.urls[m] = fmt.Sprintf("https://127.0.0.1:%d", ports[2*i])
		peer[m] = fmt.Sprintf("http://127.0.0.1:%d", ports[2*i+1])
		initial = append(initial, m+"="+peer[m])
	}
	var all []*proc
	for _, m := range members {
		cmd := exec.Command(filepath.Join(bin, "etcd"), "--name", m, "--data-dir", filepath.Join(dir, m+".etcd"),
			"--listen-client-urls", e.urls[m], "--advertise-client-urls", e.urls[m],
			"--listen-peer-urls", peer[m], "--initial-advertise-peer-urls", peer[m],
			"--initial-cluster", strings.Join(initial, ","), "--initial-cluster-state", "new",
			"--initial-cluster-token", "kube-compare",
			"--cert-file", pki.ServerCert[m], "--key-file", pki.ServerKey[m],
			"--trusted-ca-file", pki.CA, "--client-cert-auth")
		p, err := startProc(cmd, filepath.Join(dir, m+".log"))
		if err != nil {
			e.stop()
			return nil, err
		}
		e.procs[m] = p
		all = append(all, p)
	}
	err = poll(ctx, "etcd", time.Minute, all, func(ctx context.Context) (bool, string) {
		l, why := leaderOf(ctx, e.urls, pki)
		e.leader = l
		return l != "", why
	})
	if err != nil {
		e.stop()
		return nil, err
	}
	return e, nil
}

func (e *etcd) name() string        { return "etcd v3.6.16" }
func (e *etcd) describe() string    { return e.leader + " leads; loopback" }
func (e *etcd) url(m string) string { return e.urls[m] }

// partition freezes the member, as no iptables is at hand: kube-apiserver
// is cut off from it too, where serve's partition leaves it reachable.
func (e *etcd) partition() error { return e.procs[kubeMember].cmd.Process.Signal(syscall.SIGSTOP) }
func (e *etcd) heal() error      { return e.procs[kubeMember].cmd.Process.Signal(syscall.SIGCONT) }
func (e *etcd) stop() {
	for _, p := range e.procs {
		p.kill()
	}
}

// serve is `raftsim serve --tls` on a three-member cluster, its console on
// a pipe.
type serve struct {
	p      *proc
	stdin  io.WriteCloser
	urls   map[string]string
	leader string
	links  string        // the latency flag
	ready  chan struct{} // closed when serve printed that it serves
	once   sync.Once
}

// The cluster serve runs: three members, and, unless latency is
// "defaults", every link (member to member, client to member) given that
// one-way latency, as loopback's are for the real cluster.
func serveScenario(latency string) string {
	s := "name: kube-compare\ncluster: {members: [" + strings.Join(members, ", ") + "]"
	if latency == "defaults" {
		return s + "}\n"
	}
	return s + ", client_latency: " + latency + "}\nnetwork: {latency: " + latency + "}\n"
}

func startServe(ctx context.Context, raftsim, dir, latency string, pki *wire.TLSFiles) (cluster, error) {
	ports, err := freePorts(len(members))
	if err != nil {
		return nil, err
	}
	scenario := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(scenario, []byte(serveScenario(latency)), 0o644); err != nil {
		return nil, err
	}
	s := &serve{urls: map[string]string{}, links: latency, ready: make(chan struct{})}
	for i, m := range members {
		s.urls[m] = fmt.Sprintf("https://127.0.0.1:%d", ports[i])
	}
	cmd := exec.Command(raftsim, "serve", scenario, "--tls", pki.Dir, "--port", fmt.Sprint(ports[0]),
		"--save", filepath.Join(dir, "session.yaml"), "--trace", filepath.Join(dir, "trace.jsonl"))
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	// serve's output goes to serve.log through a pipe, watched for the
	// line it prints once it listens.
	r, w := io.Pipe()
	log, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		return nil, err
	}
	go func() {
		defer log.Close()
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			fmt.Fprintln(log, sc.Text())
			if strings.HasPrefix(sc.Text(), "time runs at") {
				s.once.Do(func() { close(s.ready) })
			}
		}
		_, _ = io.Copy(log, r)
	}()
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, err
	}
	s.p = &proc{cmd: cmd, exited: make(chan struct{})}
	go func() { s.p.err = cmd.Wait(); w.Close(); close(s.p.exited) }()
	select {
	case <-s.ready:
	case <-s.p.exited:
		return nil, fmt.Errorf("raftsim serve exited (%v) before it served", s.p.err)
	case <-time.After(time.Minute):
		s.stop()
		return nil, errors.New("raftsim serve did not serve within a minute")
	case <-ctx.Done():
		s.stop()
		return nil, ctx.Err()
	}
	err = poll(ctx, "raftsim serve", time.Minute, []*proc{s.p}, func(ctx context.Context) (bool, string) {
		l, why := leaderOf(ctx, s.urls, pki)
		s.leader = l
		return l != "", why
	})
	if err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

func (s *serve) name() string        { return "raftsim serve" }
func (s *serve) describe() string    { return s.leader + " leads; links " + s.links }
func (s *serve) url(m string) string { return s.urls[m] }

func (s *serve) console(line string) error {
	_, err := io.WriteString(s.stdin, line+"\n")
	return err
}

func (s *serve) partition() error {
	var rest []string
	for _, m := range members {
		if m != kubeMember {
			rest = append(rest, m)
		}
	}
	return s.console("partition " + kubeMember + " " + strings.Join(rest, ","))
}
func (s *serve) heal() error { return s.console("heal") }

// stop ends serve as Ctrl-C does (it saves the session and its trace),
// and kills it if it has not exited two minutes later.
func (s *serve) stop() {
	select {
	case <-s.p.exited:
		return
	default:
	}
	_ = s.p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.p.exited:
	case <-time.After(2 * time.Minute):
		s.p.kill()
	}
}
