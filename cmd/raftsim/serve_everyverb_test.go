//go:build !js

package main

// The build constraint: clientv3 and the real etcdctl, which this test
// drives, do not run on js/wasm.

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// TestEveryVerbRoundTrip serves, in one session, every verb of
// docs/console.md typed at serve's console and every RPC that serve
// answers sent by clientv3 (KV, Watch with progress, Lease with
// keep-alives, Cluster with refusals, Maintenance, Auth), and the real
// etcdctl's commands when RAFTSIM_ETCD names its directory; saves the
// session, replays it with raftsim run --trace and compares the two traces
// byte for byte. A request that did not replay as it was served shows as
// the first line at which the traces part.
func TestEveryVerbRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("about half a minute of wall time")
	}
	s := serve(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	var eps []string
	for _, ep := range s.eps {
		eps = append(eps, "http://"+ep)
	}
	c, _ := newClient(t, eps[0])
	ok := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	refused := func(what string, err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", what, err, want)
		}
	}

	// The console's verbs first: etcd's member-change checks want every
	// voter connected for the last 5 s, which the console's waits give.
	s.consoleVerbs(t, dir)

	// KV.
	_, err := c.Put(ctx, "k/a", "1")
	ok("put", err)
	_, err = c.Put(ctx, "k/a", "2", clientv3.WithPrevKV())
	ok("put --prev-kv", err)
	_, err = c.Put(ctx, "k/a", "", clientv3.WithIgnoreValue())
	ok("put --ignore-value", err)
	_, err = c.Put(ctx, "k/none", "", clientv3.WithIgnoreValue())
	refused("put --ignore-value of a missing key", err, "etcdserver: key not found")
	for i := range 5 {
		_, err = c.Put(ctx, fmt.Sprintf("k/%d", i), fmt.Sprint(i))
		ok("put", err)
	}
	for _, opts := range [][]clientv3.OpOption{
		{clientv3.WithPrefix()},
		{clientv3.WithPrefix(), clientv3.WithKeysOnly(), clientv3.WithLimit(2)},
		{clientv3.WithPrefix(), clientv3.WithCountOnly()},
		{clientv3.WithPrefix(), clientv3.WithSort(clientv3.SortByModRevision, clientv3.SortDescend)},
		{clientv3.WithFromKey(), clientv3.WithSerializable()},
		{clientv3.WithPrefix(), clientv3.WithMinModRev(3), clientv3.WithMaxCreateRev(20)},
		{clientv3.WithPrefix(), clientv3.WithRev(3)},
		{clientv3.WithRange("k/3")},
	} {
		_, err = c.Get(ctx, "k/", opts...)
		ok("get", err)
	}
	_, err = c.Delete(ctx, "k/0", clientv3.WithPrevKV())
	ok("delete --prev-kv", err)
	_, err = c.Delete(ctx, "k/1", clientv3.WithRange("k/3"))
	ok("delete a range", err)
	_, err = c.Txn(ctx).If(
		clientv3.Compare(clientv3.Value("k/a"), "=", "2"),
		clientv3.Compare(clientv3.Version("k/a"), ">", 0),
		clientv3.Compare(clientv3.CreateRevision("k/3"), "!=", 0),
		clientv3.Compare(clientv3.ModRevision("k/4"), "<", 1000),
		clientv3.Compare(clientv3.LeaseValue("k/4"), "=", 0),
	).Then(clientv3.OpPut("t/1", "x"), clientv3.OpGet("k/", clientv3.WithPrefix()), clientv3.OpDelete("k/4"),
		clientv3.OpTxn(nil, []clientv3.Op{clientv3.OpPut("t/2", "y")}, nil)).
		Else(clientv3.OpPut("t/else", "z")).Commit()
	ok("txn", err)
	_, err = c.Txn(ctx).If(clientv3.Compare(clientv3.Value("k/a"), "=", "no")).Else(clientv3.OpPut("t/3", "w")).Commit()
	ok("txn that fails its compare", err)
	_, err = c.Txn(ctx).Then(clientv3.OpPut("d", "1"), clientv3.OpPut("d", "2")).Commit()
	refused("a txn writing a key twice", err, "etcdserver: duplicate key given in txn request")

	// Watch, with progress.
	wctx, stopWatch := context.WithCancel(ctx)
	wc := clientv3.NewWatcher(c)
	w1 := wc.Watch(wctx, "w/", clientv3.WithPrefix(), clientv3.WithPrevKV(), clientv3.WithProgressNotify(), clientv3.WithCreatedNotify())
	<-w1 // created
	now, err := c.Get(ctx, "w/a")
	ok("get", err)
	w2 := wc.Watch(wctx, "w/a", clientv3.WithFilterDelete(), clientv3.WithRev(now.Header.Revision))
	_, err = c.Put(ctx, "w/a", "1")
	ok("put under a watch", err)
	if wr := <-w1; len(wr.Events) != 1 {
		t.Errorf("the watch: %+v", wr)
	}
	if wr := <-w2; len(wr.Events) != 1 {
		t.Errorf("the watch from a revision: %+v", wr)
	}
	ok("request progress", wc.RequestProgress(wctx))
	if wr := <-w1; !wr.IsProgressNotify() {
		t.Errorf("the watch after RequestProgress: %+v, want a progress notification", wr)
	}
	stopWatch()
	wc.Close()

	// Lease.
	l, err := c.Grant(ctx, 60)
	ok("lease grant", err)
	_, err = c.Put(ctx, "leased", "v", clientv3.WithLease(l.ID))
	ok("put with a lease", err)
	_, err = c.TimeToLive(ctx, l.ID, clientv3.WithAttachedKeys())
	ok("lease timetolive --keys", err)
	_, err = c.Leases(ctx)
	ok("lease list", err)
	_, err = c.KeepAliveOnce(ctx, l.ID)
	ok("lease keep-alive --once", err)
	kctx, stopKeepAlive := context.WithCancel(ctx)
	ka, err := c.KeepAlive(kctx, l.ID)
	ok("lease keep-alive", err)
	<-ka
	stopKeepAlive()
	_, err = c.Revoke(ctx, l.ID)
	ok("lease revoke", err)
	_, err = c.Revoke(ctx, l.ID)
	refused("a revoke of a revoked lease", err, "etcdserver: requested lease not found")
	_, err = c.TimeToLive(ctx, 12345)
	ok("timetolive of a lease there never was", err)

	// Cluster, with etcd's refusals.
	_, err = c.MemberList(ctx)
	ok("member list", err)
	_, err = c.MemberAdd(ctx, []string{"http://m1:2380"})
	refused("a member add with a peer URL in use", err, "etcdserver: Peer URLs already exists")
	// clientv3 checks URLs itself: etcd's own refusal needs the raw call.
	_, err = pb.NewClusterClient(c.ActiveConnection()).MemberAdd(ctx, &pb.MemberAddRequest{PeerURLs: []string{""}})
	refused("a member add without a peer URL", err, "etcdserver: given member URLs are invalid")
	ml, err := c.MemberAddAsLearner(ctx, []string{"http://m6:2380"})
	ok("member add --learner", err)
	_, err = c.MemberAddAsLearner(ctx, []string{"http://m7:2380"})
	refused("a second learner", err, "etcdserver: too many learner members in cluster")
	_, err = c.MemberPromote(ctx, ml.Member.ID)
	refused("a promotion of a learner that never started", err, "etcdserver: can only promote a learner member which is in sync with leader")
	_, err = c.MemberUpdate(ctx, ml.Member.ID, []string{"http://m6b:2380"})
	ok("member update", err)
	_, err = c.MemberRemove(ctx, ml.Member.ID)
	ok("member remove", err)
	_, err = c.MemberRemove(ctx, 0xdead)
	refused("a removal of a member there is not", err, "etcdserver: member not found")
	_, err = c.MemberPromote(ctx, ml.Member.ID)
	refused("a promotion of a removed member", err, "etcdserver: member not found")

	// Maintenance.
	var leader uint64
	var leaderEp string
	for _, ep := range eps {
		st, err := c.Status(ctx, ep)
		ok("status", err)
		if st.Leader == st.Header.MemberId {
			leader, leaderEp = st.Leader, ep
		}
	}
	_, err = c.AlarmList(ctx)
	ok("alarm list", err)
	_, err = c.AlarmDisarm(ctx, &clientv3.AlarmMember{})
	ok("alarm disarm", err)
	_, err = c.Defragment(ctx, eps[0])
	ok("defrag", err)
	_, err = c.HashKV(ctx, eps[1], 0)
	ok("hashkv", err)
	snap, err := c.Snapshot(ctx)
	ok("snapshot", err)
	n, err := io.Copy(io.Discard, snap)
	ok("reading the snapshot", err)
	snap.Close()
	if n == 0 {
		t.Error("the snapshot stream is empty")
	}
	_, err = c.Downgrade(ctx, clientv3.DowngradeValidate, "3.5.0")
	ok("downgrade validate", err)
	_, err = c.Downgrade(ctx, clientv3.DowngradeValidate, "3.4.0")
	refused("a downgrade validate two minors down", err, "invalid downgrade target version")
	_, err = c.Downgrade(ctx, clientv3.DowngradeCancel, "")
	ok("downgrade cancel", err)
	lc, _ := newClient(t, leaderEp)
	ms, err := lc.MemberList(ctx)
	ok("member list", err)
	var to uint64
	for _, m := range ms.Members {
		if m.ID != leader && !m.IsLearner && m.Name != "" {
			to = m.ID
			break
		}
	}
	_, err = lc.MoveLeader(ctx, to)
	ok("move-leader", err)

	// Auth.
	for _, step := range []struct {
		what string
		do   func() error
	}{
		{"user add bob --no-password", func() error {
			_, err := c.UserAddWithOptions(ctx, "bob", "", &clientv3.UserAddOptions{NoPassword: true})
			return err
		}},
		{"user add alice", func() error { _, err := c.UserAdd(ctx, "alice", "pw-alice"); return err }},
		{"user passwd alice", func() error { _, err := c.UserChangePassword(ctx, "alice", "pw-alice2"); return err }},
		{"role add app", func() error { _, err := c.RoleAdd(ctx, "app"); return err }},
		{"role add tmp", func() error { _, err := c.RoleAdd(ctx, "tmp"); return err }},
		{"role grant-permission", func() error {
			_, err := c.RoleGrantPermission(ctx, "app", "app/", clientv3.GetPrefixRangeEnd("app/"), clientv3.PermissionType(clientv3.PermReadWrite))
			return err
		}},
		{"role grant-permission tmp", func() error {
			_, err := c.RoleGrantPermission(ctx, "tmp", "x", "", clientv3.PermissionType(clientv3.PermRead))
			return err
		}},
		{"role revoke-permission", func() error { _, err := c.RoleRevokePermission(ctx, "tmp", "x", ""); return err }},
		{"user grant-role alice app", func() error { _, err := c.UserGrantRole(ctx, "alice", "app"); return err }},
		{"user grant-role bob tmp", func() error { _, err := c.UserGrantRole(ctx, "bob", "tmp"); return err }},
		{"user revoke-role", func() error { _, err := c.UserRevokeRole(ctx, "bob", "tmp"); return err }},
		{"user get", func() error { _, err := c.UserGet(ctx, "alice"); return err }},
		{"user list", func() error { _, err := c.UserList(ctx); return err }},
		{"role get", func() error { _, err := c.RoleGet(ctx, "app"); return err }},
		{"role list", func() error { _, err := c.RoleList(ctx); return err }},
		{"role delete", func() error { _, err := c.RoleDelete(ctx, "tmp"); return err }},
		{"user delete", func() error { _, err := c.UserDelete(ctx, "bob"); return err }},
		{"auth status", func() error { _, err := c.AuthStatus(ctx); return err }},
		{"auth enable", func() error { _, err := c.AuthEnable(ctx); return err }},
	} {
		ok(step.what, step.do())
	}
	_, err = c.Get(ctx, "app/x")
	refused("a get without a user", err, "etcdserver: user name is empty")
	alice, err := clientv3.New(clientv3.Config{Endpoints: eps[:1], DialTimeout: 2 * time.Second, Username: "alice", Password: "pw-alice2", Logger: zap.NewNop()})
	ok("alice authenticates", err)
	defer alice.Close()
	_, err = alice.Put(ctx, "app/x", "1")
	ok("alice's put", err)
	_, err = alice.Put(ctx, "other", "1")
	refused("alice's put outside her range", err, "etcdserver: permission denied")
	_, err = clientv3.New(clientv3.Config{Endpoints: eps[:1], DialTimeout: 2 * time.Second, Username: "alice", Password: "wrong", Logger: zap.NewNop()})
	refused("a wrong password", err, "etcdserver: authentication failed, invalid user ID or password")
	root, err := clientv3.New(clientv3.Config{Endpoints: eps[:1], DialTimeout: 2 * time.Second, Username: "root", Password: "rootpw", Logger: zap.NewNop()})
	ok("root authenticates", err)
	defer root.Close()
	_, err = root.AuthDisable(ctx)
	ok("auth disable", err)

	// KV's compaction last but one: the history it drops is what the
	// reads above saw.
	g, err := c.Get(ctx, "k/a")
	ok("get", err)
	_, err = c.Compact(ctx, g.Header.Revision-2)
	ok("compact", err)
	_, err = c.Compact(ctx, g.Header.Revision+100, clientv3.WithCompactPhysical())
	refused("a compaction of the future", err, "etcdserver: mvcc: required revision is a future revision")
	_, err = c.Get(ctx, "k/a", clientv3.WithRev(2))
	refused("a read of compacted history", err, "etcdserver: mvcc: required revision has been compacted")

	// The real etcdctl, last.
	if etcd := os.Getenv("RAFTSIM_ETCD"); etcd == "" {
		t.Log("RAFTSIM_ETCD is not set: the real etcdctl's part of the round trip is skipped (set RAFTSIM_ETCD=/work/etcd-v3.6.16)")
	} else {
		etcdctlVerbs(t, filepath.Join(etcd, "etcdctl"), eps, dir)
	}

	s.consoleEnd(t, dir)
	s.replaysToServedTrace()
}

// consoleVerbs types every verb of docs/console.md at serve's console.
// Serve's console does not wait for a verb's answer before it reads the
// next line, so each line waits until its output has a new want (or, when
// want is empty, until a version typed after it has answered).
func (s *serving) consoleVerbs(t *testing.T, dir string) {
	t.Helper()
	snap := filepath.Join(dir, "console.db")
	s.consoleSteps(t, []consoleStep{
		{"help", "etcdctl verbs"}, {"help put", "usage: put"}, {"version", "API version"},
		{"put c/a 1", "OK"}, {"put c/a 2 --prev-kv", "OK"}, {"put c/a --ignore-value", "OK"}, {"put c/b 1 -w json", `"revision"`},
		{"get c/ --prefix", "c/a"}, {"get c/a --rev 2 --consistency=s", "c/a"},
		{"get c/ --prefix --keys-only --limit 1 --sort-by MODIFY --order DESCEND", "c/b"},
		{"get c/ --from-key --count-only -w fields", `"Count"`},
		{"get c/ --prefix --print-value-only --min-mod-rev 1 --max-create-rev 100", "2"},
		{"del c/b --prev-kv", "c/b"}, {"del c/x c/z", "0"},
		{"txn\nval(\"c/a\") = \"2\"\n\nput c/t yes\nget c/a\n\nput c/t no\n\n", "SUCCESS"},
		{"lease grant 30", "granted with TTL(30s)"}, {"lease list", "found 1 leases"},
		{"compaction 3", "compacted revision 3"}, {"compaction 3 --physical", "required revision has been compacted"},
		{"watch c/ --prefix --prev-kv --for 300ms", ""}, {"wait 400ms", ""},
		{"watch c/ --prefix &", "watching c/"}, {"put c/w 1", "] c/w"}, {"unwatch", "stopped "},
		{"watch c/ --prefix --progress-notify --for 200ms", ""}, {"wait 300ms", ""},
		{"endpoint health", "m3 is healthy"}, {"endpoint health --cluster", s.eps[2] + " is healthy"},
		{"endpoint status -w table", "RAFT APPLIED INDEX"}, {"endpoint status --cluster -w json", `"Endpoint"`},
		{"endpoint hashkv --cluster", s.eps[2] + ", "}, {"endpoint hashkv --rev 3", "m3, "},
		{"member list -w table", "IS LEARNER"}, {"alarm list", ""}, {"alarm disarm", ""},
		{"defrag", "etcd member[m3]"}, {"defrag --cluster", "etcd member[http://" + s.eps[2] + "]"},
		{"snapshot save " + snap + " --endpoints=m2", "Snapshot saved at"},
		{"snapshot status " + snap, "3.6.0"}, {"etcdutl snapshot status " + snap, "3.6.0"},
		{"downgrade validate 3.5", "Downgrade validate success"}, {"downgrade cancel", "Downgrade cancel success"},
		{"user add carol:pw", "User carol created"}, {"user add dave --new-user-password pw2", "User dave created"},
		{"user add eve --no-password", "User eve created"}, {"user passwd carol:pw3", "Password updated"},
		{"user get carol", "User: carol"}, {"user list", "eve"},
		{"role add r1", "Role r1 created"}, {"role grant-permission r1 readwrite c/ --prefix", "Role r1 updated"},
		{"role grant-permission r1 read x y", "Role r1 updated"}, {"role revoke-permission r1 x y", "is revoked from role r1"},
		{"role get r1", "KV Read:"}, {"role list", "r1"},
		{"user grant-role carol r1", "is granted to user carol"}, {"user revoke-role carol r1", "is revoked from user carol"},
		{"role delete r1", "Role r1 deleted"}, {"user delete eve", "User eve deleted"}, {"user delete dave", "User dave deleted"},
		{"auth status", "Authentication Status: false"}, {"user add root:rootpw", "User root created"},
		{"auth enable", "Authentication Enabled"}, {"get c/a --user carol:pw3", "etcdserver: permission denied"},
		{"auth disable --user root:rootpw", "Authentication Disabled"}, {"auth status", "Authentication Status: false"},
		{"tick 3", ""}, {"wait 6s", ""},
		{"load --for 500ms --rate 200 --keys 20 --prefix l/ --mix put=3,get=1", "load: "},
		{"trace on", "trace on"}, {"put c/traced 1", "OK"}, {"trace all", "trace all"}, {"tick 1", ""}, {"trace off", "trace off"},
		{"say every verb of the console", ""}, {"status", "requests pending"},
		{"member add m4 --peer-urls http://m4:2380 --learner", "added as learner"}, {"start m4", "m4 started"}, {"wait 2s", ""},
		{"member promote m4", "promoted in cluster"}, {"member update m4 --peer-urls http://m4b:2380", "updated in cluster"},
		{"member remove m4", "removed from cluster"},
		{"move-leader m2", "Leadership transferred"}, {"move-leader @follower", "Leadership transferred"},
		{"stall m3 200ms", "m3 stalls"}, {"clock m3 1.5", "1.5x"}, {"wait 300ms", ""}, {"clock m3 1", "runs at 1x"},
		{"partition m1 m2,m3", "partitioned"}, {"wait 2s", ""}, {"heal", "healed"},
		{"isolate m3", "m3 isolated"}, {"wait 1500ms", ""}, {"heal", "healed"},
		{"cut m1 m2 --one-way", "cut m1"}, {"restore m1 m2", "restored m1"},
		{"link m1 m3 --latency 2ms --loss 1%", "changed"}, {"wait 200ms", ""}, {"heal", "healed"},
		{"campaign m3", "m3 campaigns"}, {"wait 1s", ""}, {"raft-snapshot m1", "raft snapshot"},
		{"crash m2", "m2 crashed"}, {"put c/after-crash 1 --endpoints m1", ""}, {"restart m2", "m2 restarted"}, {"wait 1s", ""},
		{"save " + filepath.Join(dir, "console-save.yaml"), "saved "},
		{"wait 6s", ""}, // every voter connected for 5 s, for the member changes that follow
	})
}

// consoleEnd types the console's verbs that end the cluster as it was: a
// host lost and its member restored from a snapshot, as a new cluster.
func (s *serving) consoleEnd(t *testing.T, dir string) {
	t.Helper()
	snap := filepath.Join(dir, "console.db")
	s.consoleSteps(t, []consoleStep{
		{"lose m3", "m3"},
		{"etcdutl snapshot restore " + snap + " --name m3 --data-dir m3.restored", "restart m3 --data-dir m3.restored"},
		{"restart m3 --data-dir m3.restored", ""}, {"wait 2s", ""}, {"status", "requests pending"},
	})
}

// consoleStep is a line typed at serve's console and a text its output
// holds once the line has been done ("": the version typed after it).
type consoleStep struct{ line, want string }

// consoleSteps types each step's line and waits until the output holds
// its want once more than it did.
func (s *serving) consoleSteps(t *testing.T, steps []consoleStep) {
	t.Helper()
	for _, step := range steps {
		want := step.want
		if want == "" {
			want = "etcdctl version: 3.6.16"
		}
		before := strings.Count(s.out.String(), want)
		for l := range strings.SplitSeq(step.line, "\n") {
			s.console(l)
		}
		if step.want == "" {
			s.console("version")
		}
		deadline := time.Now().Add(15 * time.Second)
		for strings.Count(s.out.String(), want) <= before {
			if time.Now().After(deadline) {
				t.Fatalf("the console's %q printed no %q:\n%s", step.line, want, tail(s.out.String(), 2000))
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	out := s.out.String()
	if i := strings.Index(out, "unknown command"); i >= 0 {
		t.Errorf("the console answered:\n%s", out[max(0, i-300):min(len(out), i+300)])
	}
}

// etcdctlVerbs runs the real etcdctl's commands against serve.
func etcdctlVerbs(t *testing.T, etcdctl string, eps []string, dir string) {
	t.Helper()
	if _, err := os.Stat(etcdctl); err != nil {
		t.Fatalf("RAFTSIM_ETCD: %v", err)
	}
	all := "--endpoints=" + strings.Join(eps, ",")
	one := "--endpoints=" + eps[0]
	for _, args := range [][]string{
		{one, "put", "e/a", "1"},
		{one, "get", "e/", "--prefix", "-w", "json"},
		{one, "del", "e/a", "--prev-kv"},
		{one, "lease", "grant", "20"},
		{one, "lease", "list"},
		{all, "member", "list", "-w", "table"},
		{all, "endpoint", "status", "-w", "table"},
		{all, "endpoint", "health"},
		{all, "endpoint", "hashkv"},
		{one, "alarm", "list"},
		{one, "defrag"},
		{one, "snapshot", "save", filepath.Join(dir, "etcdctl.db")},
		{one, "downgrade", "validate", "3.5"},
		{one, "downgrade", "cancel"},
		{one, "user", "add", "frank", "--new-user-password", "pw"},
		{one, "role", "add", "r2"},
		{one, "user", "grant-role", "frank", "r2"},
		{one, "user", "get", "frank"},
		{one, "version"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		out, err := exec.CommandContext(ctx, etcdctl, args...).CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("etcdctl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	// A lease's life, by the ID etcdctl printed.
	out, err := exec.Command(etcdctl, one, "lease", "grant", "30").CombinedOutput()
	var id string
	if _, e := fmt.Sscanf(string(out), "lease %s granted", &id); err != nil || e != nil {
		t.Fatalf("etcdctl lease grant: %v %v\n%s", err, e, out)
	}
	for _, args := range [][]string{
		{one, "put", "e/leased", "v", "--lease=" + id},
		{one, "lease", "timetolive", id, "--keys"},
		{one, "lease", "keep-alive", "--once", id},
		{one, "lease", "revoke", id},
	} {
		if out, err := exec.Command(etcdctl, args...).CombinedOutput(); err != nil {
			t.Errorf("etcdctl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	// A watch, ended as a person ends one.
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	watch := exec.CommandContext(ctx, etcdctl, one, "watch", "e/", "--prefix", "--prev-kv")
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if out, err := exec.Command(etcdctl, one, "put", "e/watched", "1").CombinedOutput(); err != nil {
		t.Errorf("etcdctl put: %v\n%s", err, out)
	}
	watch.Wait()
	// etcdctl txn reads its input.
	cmd := exec.Command(etcdctl, one, "txn")
	cmd.Stdin = strings.NewReader("value(\"e/a\") = \"1\"\n\nput e/t yes\n\nput e/t no\n\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("etcdctl txn: %v\n%s", err, out)
	}
}
