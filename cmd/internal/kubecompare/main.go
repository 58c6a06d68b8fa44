// Command kubecompare runs one workload through a real kube-apiserver
// v1.34.4 against a real three-member etcd v3.6.16 and against `raftsim
// serve --tls` (three members), kube-apiserver talking to one member as in
// a stacked control plane, and prints what it measured side by side: list
// latency, GoAways and `Too large resource version` lines in
// kube-apiserver's log, and what a partition of its member does.
//
// The workload, on each cluster in turn: create objects of three kinds
// (ConfigMaps, Secrets, Deployments) through the REST API, holding a watch
// on ConfigMaps; list each kind -lists times; cut off the member
// kube-apiserver talks to for -partition (the real etcd's member is
// SIGSTOPped, there being no iptables here; serve's is partitioned from the
// others with the console's partition verb); heal; list again.
//
// It is `make kube-compare`: a long check run by hand, not in CI. Every
// wait polls with a deadline or ends on a process's exit; every process it
// starts is killed before it returns; its temporary directory is removed
// unless -keep.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/raftsim/raftsim/wire"
)

type options struct {
	kube, etcd, raftsim string
	latency             string
	objects, lists      int
	partition           time.Duration
	only                string
	keep                bool
}

func main() {
	var o options
	flag.StringVar(&o.kube, "kube", "bin/kube-apiserver-v1.34.4", "the directory holding kube-apiserver (../shared/tools/kube-apiserver build DIR)")
	flag.StringVar(&o.etcd, "etcd", "bin/etcd-v3.6.16", "the directory holding etcd v3.6.16 (cmd/internal/etcdcompare/build-etcd.sh)")
	flag.StringVar(&o.raftsim, "raftsim", "bin/raftsim", "the raftsim binary (make build)")
	flag.StringVar(&o.latency, "latency", "100us", "the one-way latency of serve's links, member to member and client to member (the real cluster's are loopback's); defaults: the scenario format's (5ms-15ms, 1ms)")
	flag.IntVar(&o.objects, "objects", 200, "objects to create, of three kinds in turn")
	flag.IntVar(&o.lists, "lists", 50, "lists of each kind, before the partition and after it")
	flag.DurationVar(&o.partition, "partition", time.Minute, "how long the member kube-apiserver talks to is cut off")
	flag.StringVar(&o.only, "only", "", "run against one cluster only: etcd or serve")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory (logs, serve's session and trace)")
	flag.Parse()
	if flag.NArg() > 0 || o.objects < 3 || o.lists < 1 || o.partition < 0 || (o.only != "" && o.only != "etcd" && o.only != "serve") {
		fmt.Fprintln(os.Stderr, "usage: kubecompare [-kube DIR] [-etcd DIR] [-raftsim BIN] [-latency D|defaults] [-objects N>=3] [-lists N>=1] [-partition D] [-only etcd|serve] [-keep]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ok, err := run(ctx, o, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubecompare:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

// run checks the binaries, runs the workload on each cluster and reports.
// ok is whether serve met the goal (issue 34's Done-when).
func run(ctx context.Context, o options, out io.Writer) (ok bool, err error) {
	for _, f := range []string{filepath.Join(o.kube, "kube-apiserver"), filepath.Join(o.etcd, "etcd"), o.raftsim} {
		if fi, err := os.Stat(f); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return false, fmt.Errorf("%s: not an executable file (make kube-compare builds them)", f)
		}
	}
	tmp, err := os.MkdirTemp("", "kubecompare-")
	if err != nil {
		return false, err
	}
	if o.keep {
		fmt.Fprintf(out, "kubecompare: keeping %s\n", tmp)
	} else {
		defer os.RemoveAll(tmp) // made above, by us
	}
	pki, err := wire.WriteCerts(filepath.Join(tmp, "pki"), members)
	if err != nil {
		return false, err
	}
	var results []*result
	for _, c := range []struct {
		name string
		new  func(dir string) (cluster, error)
	}{
		{"etcd", func(dir string) (cluster, error) { return startEtcd(ctx, o.etcd, dir, pki) }},
		{"serve", func(dir string) (cluster, error) { return startServe(ctx, o.raftsim, dir, o.latency, pki) }},
	} {
		if o.only != "" && o.only != c.name {
			continue
		}
		dir := filepath.Join(tmp, c.name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return false, err
		}
		r, err := measure(ctx, o, dir, pki, c.new, out)
		if err != nil {
			return false, fmt.Errorf("%s: %w (logs in %s%s)", c.name, err, dir, keptOrNot(o.keep))
		}
		results = append(results, r)
	}
	return report(out, results), nil
}

func keptOrNot(keep bool) string {
	if keep {
		return ""
	}
	return ", removed on exit: -keep keeps them"
}

// measure starts a cluster and kube-apiserver on it, runs the workload,
// and stops both.
func measure(ctx context.Context, o options, dir string, pki *wire.TLSFiles, start func(string) (cluster, error), out io.Writer) (*result, error) {
	fmt.Fprintf(out, "kubecompare: starting %s in %s\n", filepath.Base(dir), dir)
	c, err := start(dir)
	if err != nil {
		return nil, err
	}
	defer c.stop()
	fmt.Fprintf(out, "kubecompare: %s is ready (%s); kube-apiserver talks to %s at %s\n", c.name(), c.describe(), kubeMember, c.url(kubeMember))
	k, err := startKube(ctx, o.kube, dir, c.url(kubeMember), pki)
	if err != nil {
		return nil, err
	}
	defer k.stop()
	fmt.Fprintf(out, "kubecompare: kube-apiserver is ready after %s\n", k.ready.Round(time.Millisecond))
	r, err := workload(ctx, o, c, k, out)
	if err != nil {
		return nil, err
	}
	k.stop()
	r.goAways, r.tooLarge, err = k.countLog()
	return r, err
}
