//go:build !js

package main

// The build constraint: etcd's clientv3, which these tests drive, does not build for js/wasm.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/raftsim/raftsim/wire"
)

// wireTLSFiles are the certificates serve --tls wrote in dir.
func wireTLSFiles(dir string) *wire.TLSFiles {
	f, err := wire.WriteCerts(dir, nil) // all there: only read
	if err != nil {
		panic(err)
	}
	return f
}

// syncBuffer is a bytes.Buffer that serve writes from its goroutine while
// the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serving is a `raftsim serve` run in this process.
type serving struct {
	t     *testing.T
	eps   []string // m1, m2, m3's host:port
	in    *io.PipeWriter
	out   *syncBuffer
	done  chan error
	saved string // the session file
	trace string
	tls   string // the certificate directory, if any
}

// freePorts returns n loopback ports free a moment ago.
func freePorts(t *testing.T, n int) []string {
	t.Helper()
	var addrs []string
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addrs = append(addrs, ln.Addr().String())
		defer ln.Close()
	}
	return addrs
}

// servedScenario writes dir/served.yaml, a three-member cluster (m1, m2,
// m3) on loopback ports of their own with client URLs of scheme, and
// returns the file and the members' host:port. Every serve test, in this
// process or in one of its own, serves this cluster.
func servedScenario(t *testing.T, dir, scheme string) (string, []string) {
	t.Helper()
	eps := freePorts(t, 3)
	scenario := fmt.Sprintf(`name: served
cluster:
  members: [m1, m2, m3]
  client_urls: {m1: "%[1]s://%[2]s", m2: "%[1]s://%[3]s", m3: "%[1]s://%[4]s"}
network:
  latency: 100us-200us
`, scheme, eps[0], eps[1], eps[2])
	file := filepath.Join(dir, "served.yaml")
	if err := os.WriteFile(file, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	return file, eps
}

// replaysTo checks that raftsim run replays the session saved to the
// trace served, byte for byte, and returns the session.
func replaysTo(t *testing.T, saved, served string) []byte {
	t.Helper()
	data, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	replayed := filepath.Join(t.TempDir(), "replayed.jsonl")
	var out, errOut bytes.Buffer
	if code := run([]string{"run", saved, "--trace", replayed, "-q"}, nil, &out, &errOut); code != exitOK {
		t.Fatalf("raftsim run %s: exit %d\n%s%s", saved, code, out.String(), errOut.String())
	}
	sameFiles(t, served, replayed)
	return data
}

// replaysToServedTrace ends the session and checks that raftsim run
// replays the saved file to serve's own trace; it returns the session.
func (s *serving) replaysToServedTrace() []byte {
	s.t.Helper()
	if err := s.quit(); err != nil {
		s.t.Fatalf("serve: %v\n%s", err, s.out.String())
	}
	return replaysTo(s.t, s.saved, s.trace)
}

// serve starts `raftsim serve` on a three-member cluster (m1, m2, m3 on
// loopback ports of their own) with extra flags, and waits until it
// serves.
func serve(t *testing.T, extra ...string) *serving {
	t.Helper()
	dir := t.TempDir()
	scheme := "http"
	if len(extra) > 0 && extra[0] == "--tls" {
		scheme = "https"
	}
	file, eps := servedScenario(t, dir, scheme)
	s := &serving{t: t, eps: eps, out: &syncBuffer{}, done: make(chan error, 1),
		saved: filepath.Join(dir, "session.yaml"), trace: filepath.Join(dir, "trace.jsonl")}
	args := append([]string{file, "--save", s.saved, "--trace", s.trace}, extra...)
	if len(extra) > 1 && extra[0] == "--tls" {
		s.tls = extra[1]
	}
	var in *io.PipeReader
	in, s.in = io.Pipe()
	go func() { s.done <- serveCmd(args, in, s.out, s.out) }()
	s.waitFor("m3 serves etcd's API", 20*time.Second)
	t.Cleanup(func() { s.quit() })
	return s
}

// waitFor waits until serve has printed text.
func (s *serving) waitFor(text string, limit time.Duration) {
	s.t.Helper()
	deadline := time.Now().Add(limit)
	for !strings.Contains(s.out.String(), text) {
		select {
		case err := <-s.done:
			s.t.Fatalf("serve ended (%v) before printing %q:\n%s", err, text, s.out.String())
		default:
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("serve did not print %q within %s:\n%s", text, limit, s.out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// console types a line at serve's console.
func (s *serving) console(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

// quit ends the session as a person does, with exit, and returns what
// serve returned.
func (s *serving) quit() error {
	select {
	case err := <-s.done:
		s.done <- err
		return err
	default:
	}
	s.console("exit")
	s.in.Close()
	select {
	case err := <-s.done:
		s.done <- err
		return err
	case <-time.After(20 * time.Second):
		s.t.Fatalf("serve did not end after exit:\n%s", s.out.String())
	}
	return nil
}

// retries is clientv3's log of failed attempts it retried.
type retries struct{ logs *observer.ObservedLogs }

func (r retries) count() int {
	return r.logs.FilterMessage("retrying of unary invoker failed").Len()
}

// errors returns the errors of the retried attempts, in order.
func (r retries) errors() []string {
	var out []string
	for _, e := range r.logs.FilterMessage("retrying of unary invoker failed").All() {
		out = append(out, fmt.Sprint(e.ContextMap()["error"]))
	}
	return out
}

func newClient(t *testing.T, eps ...string) (*clientv3.Client, retries) {
	t.Helper()
	core, logs := observer.New(zap.WarnLevel)
	c, err := clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: 2 * time.Second, Logger: zap.New(core)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, retries{logs}
}

func code(err error) codes.Code { return status.Code(errors.Unwrap(err)) }

// TestServeClientV3Partition drives raftsim serve with clientv3 as a
// kube-apiserver would, one client per member (a stacked control plane),
// and partitions the leader away through serve's console mid-way. What
// each client sees is what the same steps gave against a real three-member
// etcd v3.6.16 whose leader was partitioned the same way
// (docs/semantics.md, "raftsim serve against a real cluster").
func TestServeClientV3Partition(t *testing.T) {
	if testing.Short() {
		t.Skip("several seconds of wall time")
	}
	s := serve(t)
	var eps []string
	for _, ep := range s.eps {
		eps = append(eps, "http://"+ep)
	}
	partitionSteps(t, eps, func() { s.console("partition m1 m2,m3") }, func() { s.console("heal") })
	if err := s.quit(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.out.String(), "saved ") {
		t.Errorf("serve did not say it saved the session:\n%s", s.out.String())
	}
}

// partitionSteps are the steps of TestServeClientV3Partition, against the
// members at eps (m1, m2, m3; m1 leads), with the partition of m1 from the
// others and its healing done by partition and heal. The same steps ran
// against a real cluster (TestRealClientV3Partition).
func partitionSteps(t *testing.T, eps []string, partition, heal func()) {
	c1, r1 := newClient(t, eps[0])
	c2, _ := newClient(t, eps[1])
	c3, _ := newClient(t, eps[2])
	ctx := context.Background()
	within := func(d time.Duration) context.Context {
		c, cancel := context.WithTimeout(ctx, d)
		t.Cleanup(cancel)
		return c
	}
	st, err := c1.Status(within(2*time.Second), eps[0])
	if err != nil || st.Leader != st.Header.MemberId {
		t.Fatalf("m1 should lead: %+v %v", st, err)
	}
	term := st.RaftTerm
	// Before: a write through a follower, watches on both sides, a lease.
	if _, err := c2.Put(within(2*time.Second), "k", "v1"); err != nil {
		t.Fatal(err)
	}
	w1 := c1.Watch(clientv3.WithRequireLeader(ctx), "k")
	w3 := c3.Watch(clientv3.WithRequireLeader(ctx), "k")
	l, err := c3.Grant(within(2*time.Second), 10)
	if err != nil {
		t.Fatal(err)
	}

	partition()
	time.Sleep(50 * time.Millisecond) // the partition is in place

	// The old leader cannot commit: its client's deadline passes; clientv3
	// does not send a Put again.
	_, err = c1.Put(within(2*time.Second), "k", "lost")
	t.Logf("put at the isolated leader: %v", err)
	if code(err) != codes.DeadlineExceeded && !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a put at the isolated leader: %v, want the deadline", err)
	}
	// A serializable read there still answers, with what it has.
	if g, err := c1.Get(within(2*time.Second), "k", clientv3.WithSerializable()); err != nil || string(g.Kvs[0].Value) != "v1" {
		t.Errorf("a serializable read at the isolated leader: %v %v, want v1", g, err)
	}
	// A linearizable read there waits for a read index it never gets.
	before := r1.count()
	_, err = c1.Get(within(2*time.Second), "k")
	t.Logf("linearizable get at the isolated leader: %v; clientv3 retried it %d times: %q", err, r1.count()-before, r1.errors()[before:])
	if code(err) != codes.DeadlineExceeded && !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a linearizable read at the isolated leader: %v, want the deadline", err)
	}
	// The majority elects a leader of its own; a write there commits.
	var put *clientv3.PutResponse
	for try := 0; try < 10; try++ {
		if put, err = c2.Put(within(2*time.Second), "k", "v2"); err == nil {
			break
		}
		t.Logf("put at m2 while the majority elects: %v", err)
	}
	if err != nil {
		t.Fatalf("the majority never took a write: %v", err)
	}
	t.Logf("put at m2 committed in term %d (m1 led in term %d)", put.Header.RaftTerm, term)
	if put.Header.RaftTerm <= term {
		t.Errorf("the write committed in term %d, want a term after %d", put.Header.RaftTerm, term)
	}
	select {
	case wr := <-w3:
		if len(wr.Events) != 1 || string(wr.Events[0].Kv.Value) != "v2" {
			t.Errorf("the majority's watch: %+v", wr)
		}
	case <-within(5 * time.Second).Done():
		t.Error("the majority's watch saw nothing")
	}
	// The isolated member's require-leader watch is cancelled.
	select {
	case wr, ok := <-w1:
		t.Logf("require-leader watch at the isolated leader: canceled %v, %v", wr.Canceled, wr.Err())
		if !ok || !errors.Is(wr.Err(), rpctypes.ErrNoLeader) {
			t.Errorf("the isolated member's watch: %+v (open %v), want it cancelled with %v", wr, ok, rpctypes.ErrNoLeader)
		}
	case <-within(10 * time.Second).Done():
		t.Error("the isolated member's require-leader watch was never cancelled")
	}
	// The lease lives on in the majority.
	if ka, err := c3.KeepAliveOnce(within(2*time.Second), l.ID); err != nil || ka.TTL != 10 {
		t.Errorf("a keep-alive in the majority: %+v %v", ka, err)
	}

	heal()
	// Healed, the old leader follows the new one and serves the newest value.
	var g *clientv3.GetResponse
	for try := 0; try < 10; try++ {
		if g, err = c1.Get(within(2*time.Second), "k"); err == nil {
			break
		}
	}
	if err != nil || string(g.Kvs[0].Value) != "v2" {
		t.Errorf("a linearizable read at the healed member: %v %v, want v2", g, err)
	}
}

// TestServedSessionReplays: a session served over the wire (writes, a
// read, a watch, a lease, a request whose client gave up), once saved,
// replays headless with raftsim run to the same trace, byte for byte.
func TestServedSessionReplays(t *testing.T) {
	s := serve(t)
	c, _ := newClient(t, "http://"+s.eps[1])
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	wctx, stopWatch := context.WithCancel(ctx)
	wch := c.Watch(wctx, "a", clientv3.WithPrefix(), clientv3.WithPrevKV())
	for i := range 3 {
		if _, err := c.Put(ctx, fmt.Sprintf("a%d", i), "v"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Get(ctx, "a", clientv3.WithPrefix()); err != nil {
		t.Fatal(err)
	}
	l, err := c.Grant(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Put(ctx, "leased", "x", clientv3.WithLease(l.ID)); err != nil {
		t.Fatal(err)
	}
	for n := 0; n < 3; {
		n += len((<-wch).Events)
	}
	stopWatch()
	// Without a quorum the put waits at m2 until its client gives up: a
	// cancel in the log.
	s.console("stall m1 400ms")
	s.console("stall m3 400ms")
	time.Sleep(20 * time.Millisecond)
	short, stop := context.WithTimeout(ctx, 150*time.Millisecond)
	_, err = c.Put(short, "late", "v")
	stop()
	if err == nil {
		t.Error("a put without a quorum answered within 150ms")
	}
	time.Sleep(400 * time.Millisecond)
	if err := s.quit(); err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(s.saved)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"external: true", "by: '127.0.0.1:", "key: late", "cancel: x", "client_urls:"} {
		if !strings.Contains(string(saved), want) {
			t.Errorf("the saved session has no %q:\n%s", want, saved)
		}
	}
	replaysTo(t, s.saved, s.trace)
}

// TestServeTLSRefusesClientsWithoutCertificates: with --tls, as with
// kubeadm's etcd, a client without a certificate signed by the CA is
// refused; kube-apiserver's certificate is accepted.
func TestServeTLSRefusesClientsWithoutCertificates(t *testing.T) {
	dir := t.TempDir()
	s := serve(t, "--tls", dir)
	for _, f := range []string{"ca.crt", "ca.key", "m1.crt", "m1.key", "apiserver-etcd-client.crt", "apiserver-etcd-client.key"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(s.out.String(), "--cacert="+filepath.Join(dir, "ca.crt")) {
		t.Errorf("serve did not print etcdctl's TLS flags:\n%s", s.out.String())
	}
	ep := "https://" + s.eps[0]
	files := wireTLSFiles(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	// Trusting the CA but without a certificate of its own.
	noCert, err := files.ClientTLS()
	if err != nil {
		t.Fatal(err)
	}
	noCert.Certificates = nil
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, TLS: noCert, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	short, stop := context.WithTimeout(ctx, 2*time.Second)
	_, err = c.Put(short, "k", "v")
	stop()
	if err == nil {
		t.Fatal("a client without a certificate could write")
	}
	t.Logf("without a certificate: %v", err)

	withCert, err := files.ClientTLS()
	if err != nil {
		t.Fatal(err)
	}
	c2, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, TLS: withCert, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if _, err := c2.Put(ctx, "k", "v"); err != nil {
		t.Fatalf("kube-apiserver's certificate was refused: %v", err)
	}
}

// TestServedSessionWithLeaseListAndRefusalsReplays: a lease list, and
// requests etcd refuses before raft (an empty key in a put, a get, a
// delete and inside a txn), are answered as etcd answers them, and the
// session is still saved and replays to the served trace. Before the fix
// serve could not save it (no scenario step for lease_list; an empty key
// without prefix) and lost the whole session.
func TestServedSessionWithLeaseListAndRefusalsReplays(t *testing.T) {
	s := serve(t)
	c, _ := newClient(t, "http://"+s.eps[0])
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l, err := c.Grant(ctx, 60)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := c.Leases(ctx)
	if err != nil || len(ls.Leases) != 1 || ls.Leases[0].ID != l.ID {
		t.Fatalf("lease list: %+v, %v; want lease %x", ls, err, l.ID)
	}
	empty := "etcdserver: key is not provided"
	if _, err := c.Put(ctx, "", "v"); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("put with an empty key: %v, want %q", err, empty)
	}
	if _, err := c.Delete(ctx, ""); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("delete with an empty key: %v, want %q", err, empty)
	}
	if _, err := c.Txn(ctx).Then(clientv3.OpPut("", "v")).Commit(); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("txn with an empty key: %v, want %q", err, empty)
	}
	if _, err := c.Put(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}
	saved := s.replaysToServedTrace()
	if !strings.Contains(string(saved), "lease_list:") {
		t.Errorf("the saved session has no lease_list step:\n%s", saved)
	}
}

// TestServeChecksSaveBeforeServing: a --save or --trace serve could not
// write is refused up front (exit 2), before a session is served.
func TestServeChecksSaveBeforeServing(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--save", filepath.Join(dir, "no-such-dir", "s.yaml")},
		{"--save", dir},
		{"--trace", filepath.Join(dir, "no-such-dir", "t.jsonl")},
	} {
		var out bytes.Buffer
		err := serveCmd(append(args, "--port", "1"), strings.NewReader(""), &out, &out)
		var e *exitError
		if !errors.As(err, &e) || e.code != exitBadInput || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("serve %q: %v (%T), want exit %d naming %s", args, err, err, exitBadInput, args[0])
		}
		if strings.Contains(out.String(), "serves etcd's API") {
			t.Errorf("serve %q served:\n%s", args, out.String())
		}
	}
}

// TestServedDowngradeReplays: a downgrade enable, a validate refused while
// it is in progress (before the leader's monitor lowers the cluster
// version), and a cancel, served over the wire, are saved as
// downgrade steps and replay to the served trace (the enable and cancel go
// through raft, and the leader's version monitor moves the cluster version).
func TestServedDowngradeReplays(t *testing.T) {
	s := serve(t)
	c, _ := newClient(t, "http://"+s.eps[0])
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if r, err := c.Downgrade(ctx, clientv3.DowngradeEnable, "3.5"); err != nil || r.Version != "3.6" {
		t.Fatalf("downgrade enable 3.5: %+v, %v; want cluster version 3.6", r, err)
	}
	inProcess := "etcdserver: cluster has a downgrade job in progress"
	if _, err := c.Downgrade(ctx, clientv3.DowngradeValidate, "3.5"); err == nil || !strings.Contains(err.Error(), inProcess) {
		t.Errorf("downgrade validate 3.5 during the downgrade: %v, want %q", err, inProcess)
	}
	if _, err := c.Downgrade(ctx, clientv3.DowngradeCancel, ""); err != nil {
		t.Fatal(err)
	}
	saved := s.replaysToServedTrace()
	if n := strings.Count(string(saved), "downgrade:"); n != 3 {
		t.Errorf("the saved session has %d downgrade steps, want 3:\n%s", n, saved)
	}
}
