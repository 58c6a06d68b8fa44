//go:build !js

package main

// The build constraint: etcd's clientv3, which these tests drive, does not build for js/wasm.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// TestRealClientV3Partition runs partitionSteps against a real
// three-member etcd v3.6.16, each member in a network namespace of its own
// on a bridge, its leader partitioned by iptables rules in its namespace
// (its clients still reach it, as in the simulation). It is the by-hand
// comparison docs/semantics.md records: it needs root, ip and iptables,
// and runs only with RAFTSIM_REAL_PARTITION=1 and RAFTSIM_ETCD naming
// build-etcd.sh's directory.
func TestRealClientV3Partition(t *testing.T) {
	bin := os.Getenv("RAFTSIM_ETCD")
	if os.Getenv("RAFTSIM_REAL_PARTITION") != "1" || bin == "" {
		t.Skip("by hand: RAFTSIM_REAL_PARTITION=1 RAFTSIM_ETCD=$PWD/bin/etcd-v3.6.16 (root, ip, iptables)")
	}
	sh := func(cmd string) {
		t.Helper()
		if out, err := exec.Command("bash", "-c", cmd).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, out)
		}
	}
	const br = "rsbr0"
	ip := func(i int) string { return fmt.Sprintf("10.199.0.%d", i) }
	t.Cleanup(func() {
		_ = exec.Command("bash", "-c", "for i in 1 2 3; do ip netns del rs$i; done; ip link del "+br).Run()
	})
	sh("ip link add " + br + " type bridge && ip addr add 10.199.0.254/24 dev " + br + " && ip link set " + br + " up")
	for i := 1; i <= 3; i++ {
		sh(fmt.Sprintf("ip netns add rs%[1]d && ip link add rsv%[1]d type veth peer name rsp%[1]d && "+
			"ip link set rsp%[1]d master %[2]s && ip link set rsp%[1]d up && ip link set rsv%[1]d netns rs%[1]d && "+
			"ip netns exec rs%[1]d ip addr add %[3]s/24 dev rsv%[1]d && ip netns exec rs%[1]d ip link set rsv%[1]d up && "+
			"ip netns exec rs%[1]d ip link set lo up", i, br, ip(i)))
	}
	var initial []string
	for i := 1; i <= 3; i++ {
		initial = append(initial, fmt.Sprintf("m%d=http://%s:2380", i, ip(i)))
	}
	dir := t.TempDir()
	var procs []*exec.Cmd
	for i := 1; i <= 3; i++ {
		log, err := os.Create(filepath.Join(dir, fmt.Sprintf("m%d.log", i)))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("ip", "netns", "exec", fmt.Sprintf("rs%d", i), filepath.Join(bin, "etcd"),
			"--name", fmt.Sprintf("m%d", i), "--data-dir", filepath.Join(dir, fmt.Sprintf("m%d", i)),
			"--listen-client-urls", "http://"+ip(i)+":2379", "--advertise-client-urls", "http://"+ip(i)+":2379",
			"--listen-peer-urls", "http://"+ip(i)+":2380", "--initial-advertise-peer-urls", "http://"+ip(i)+":2380",
			"--initial-cluster", strings.Join(initial, ","), "--initial-cluster-state", "new")
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, cmd)
	}
	t.Cleanup(func() {
		for _, p := range procs {
			_ = p.Process.Kill()
			_ = p.Wait()
		}
	})
	var eps []string
	for i := 1; i <= 3; i++ {
		eps = append(eps, "http://"+ip(i)+":2379")
	}
	// Let it start, and make m1 lead, as it does in the simulation.
	c, err := clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for try := 0; ; try++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		st, err := c.Status(ctx, eps[0])
		cancel()
		if err == nil && st.Leader != 0 && st.Leader == st.Header.MemberId {
			break
		}
		if err == nil && st.Leader != 0 {
			moveLeader(t, eps, st.Header.MemberId)
		}
		if try > 60 {
			t.Fatalf("the real cluster did not start with m1 leading: %+v %v (logs in %s)", st, err, dir)
		}
		time.Sleep(500 * time.Millisecond)
	}
	rules := func(op string) string {
		return fmt.Sprintf("ip netns exec rs1 bash -c 'for p in %[2]s %[3]s; do iptables %[1]s INPUT -s $p -j DROP && iptables %[1]s OUTPUT -d $p -j DROP; done'",
			op, ip(2), ip(3))
	}
	partitionSteps(t, eps, func() { sh(rules("-A")) }, func() { sh(rules("-D")) })
}

// moveLeader asks the leader, wherever it is, to hand over to id.
func moveLeader(t *testing.T, eps []string, id uint64) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, ep := range eps {
		c, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, DialTimeout: time.Second, Logger: zap.NewNop()})
		if err != nil {
			continue
		}
		if s, err := c.Status(ctx, ep); err == nil && s.Leader == s.Header.MemberId {
			_, err = c.MoveLeader(ctx, id)
			t.Logf("moving the leadership from %s to m1: %v", ep, err)
		}
		c.Close()
	}
}
