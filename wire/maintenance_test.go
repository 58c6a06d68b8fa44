//go:build !js

package wire

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/raftsim/raftsim/sim"
)

// TestDefragmentOverTheWire: Defragment does what the console's defrag
// does, and is logged as it: after writes and a compaction, DB SIZE drops
// to about IN USE. (Seen to fail before: the wire answered OK and did nothing,
// "the simulated store keeps no free pages".)
func TestDefragmentOverTheWire(t *testing.T) {
	eps, do := served(t)
	c := client(t, eps[0])
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	value := strings.Repeat("v", 4096)
	var last int64
	for i := range 200 {
		r, err := c.Put(ctx, "k"+string(rune('a'+i%20)), value)
		if err != nil {
			t.Fatal(err)
		}
		last = r.Header.Revision
	}
	if _, err := c.Compact(ctx, last, clientv3.WithCompactPhysical()); err != nil {
		t.Fatal(err)
	}
	// etcd's backend commits every 100ms of the world's time: the
	// compaction's frees land at the next commit, however late the world
	// runs on a loaded machine. Ask until they have (or ctx's deadline).
	var before *clientv3.StatusResponse
	for {
		var err error
		if before, err = c.Status(ctx, eps[0]); err != nil {
			t.Fatalf("waiting for the compaction's frees (DB SIZE above IN USE): %v", err)
		}
		if before.DbSize > before.DbSizeInUse {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("nothing to defragment: DB SIZE %d, IN USE %d", before.DbSize, before.DbSizeInUse)
		case <-time.After(20 * time.Millisecond):
		}
	}
	if _, err := c.Defragment(ctx, eps[0]); err != nil {
		t.Fatal(err)
	}
	after, err := c.Status(ctx, eps[0])
	if err != nil {
		t.Fatal(err)
	}
	// The rewritten file holds what is in use, and bbolt's meta and
	// freelist pages.
	if after.DbSize >= before.DbSize || after.DbSize > after.DbSizeInUse+4*4096 {
		t.Fatalf("after Defragment: DB SIZE %d → %d, IN USE %d (want DB SIZE about IN USE)", before.DbSize, after.DbSize, after.DbSizeInUse)
	}
	logged := make(chan bool)
	do <- func(w *sim.World) {
		n := 0
		for _, cmd := range w.Commands() {
			if cmd.Kind == sim.CmdDefrag && cmd.Node == "m1" {
				n++
			}
		}
		logged <- n == 1
	}
	if !<-logged {
		t.Error("the defragmentation is not in the command log (a saved session would not replay it)")
	}
}

// TestAlarmsOverTheWire: a member past its quota raises NOSPACE; the
// wire's alarm list shows it and AlarmDisarm (etcdctl alarm disarm)
// disarms it, as the console's alarm verbs do. (Seen to fail before: the
// list answered no alarm, and a deactivation did nothing.)
func TestAlarmsOverTheWire(t *testing.T) {
	eps, _ := servedWith(t, func(cfg *sim.Config) { cfg.QuotaBackendBytes = 256 * 1024 })
	c := client(t, eps[0])
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	value := strings.Repeat("v", 16*1024)
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		_, err = c.Put(ctx, "k"+string(rune('a'+i)), value)
	}
	if err == nil || !strings.Contains(err.Error(), "database space exceeded") {
		t.Fatalf("100 puts of 16 KiB past a 256 KiB quota: %v", err)
	}
	list, err := c.AlarmList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Alarms) == 0 || list.Alarms[0].Alarm != pb.AlarmType_NOSPACE {
		t.Fatalf("alarm list: %+v, want NOSPACE", list.Alarms)
	}
	disarmed, err := c.AlarmDisarm(ctx, &clientv3.AlarmMember{})
	if err != nil {
		t.Fatal(err)
	}
	if len(disarmed.Alarms) != len(list.Alarms) {
		t.Fatalf("disarmed %+v, want %+v", disarmed.Alarms, list.Alarms)
	}
	if list, err = c.AlarmList(ctx); err != nil || len(list.Alarms) != 0 {
		t.Fatalf("after disarm: %+v %v", list, err)
	}
}

// TestMemberAddChecksURLs: a member add whose peer URLs etcd's types.NewURLs
// refuses (none, an empty one, no port, another scheme) is refused before
// raft with etcd's "etcdserver: given member URLs are invalid", and adds
// no member. (Seen to fail before: an empty URL added etcd-style member
// m4 at http://m4:2380, none answered Unimplemented.)
func TestMemberAddChecksURLs(t *testing.T) {
	eps, do := served(t)
	conn, err := grpc.NewClient(eps[0], grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cl := pb.NewClusterClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, urls := range [][]string{nil, {""}, {"http://127.0.0.1"}, {"ftp://127.0.0.1:2380"}, {"http://127.0.0.1:2380/x"}} {
		_, err := cl.MemberAdd(ctx, &pb.MemberAddRequest{PeerURLs: urls})
		if status.Code(err) != codes.InvalidArgument || status.Convert(err).Message() != "etcdserver: given member URLs are invalid" {
			t.Errorf("member add %q: %v, want etcd's InvalidArgument: etcdserver: given member URLs are invalid", urls, err)
		}
	}
	members := make(chan int)
	do <- func(w *sim.World) { members <- len(w.MemberNames()) }
	if n := <-members; n != 3 {
		t.Errorf("%d members after refused adds, want 3", n)
	}
}

// TestSnapshotStreamsLeaveNoFiles: Snapshot streams whose clients never
// read past the first chunk, and then leave, leave no temporary file in
// $TMPDIR, while they are open or after. (Seen to fail before: each open
// stream kept its file of the whole database until it ended.)
func TestSnapshotStreamsLeaveNoFiles(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	eps, _ := served(t)
	c := client(t, eps[0])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// A database larger than gRPC's flow-control window, so that a
	// stream nobody reads cannot finish.
	value := strings.Repeat("v", 32*1024)
	for i := range 200 {
		if _, err := c.Put(ctx, "k"+string(rune('a'+i%26))+string(rune('a'+i/26)), value); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := grpc.NewClient(eps[0], grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mc := pb.NewMaintenanceClient(conn)
	streamCtx, leave := context.WithCancel(ctx)
	for range 5 {
		s, err := mc.Snapshot(streamCtx, &pb.SnapshotRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Recv(); err != nil {
			t.Fatal(err)
		}
	}
	files := func() []string {
		entries, err := os.ReadDir(tmp)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	if left := files(); len(left) != 0 {
		t.Errorf("five open snapshot streams keep %d files in $TMPDIR: %v", len(left), left)
	}
	leave()
	deadline := time.Now().Add(5 * time.Second)
	for len(files()) != 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if left := files(); len(left) != 0 {
		t.Errorf("after their client left, %d files are left in $TMPDIR: %v", len(left), left)
	}
}
