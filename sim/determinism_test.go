package sim_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// busyRun drives a world through most of what it can do: lossy,
// duplicating links with random latency, disk latency, snapshots, crashes
// and restarts, a partition, a learner joining and being promoted, a
// transfer, a stall, a clock skew, and every kind of client request. It
// returns the trace (header and one line per event).
func busyRun(t *testing.T, seed uint64) []byte {
	t.Helper()
	cfg := sim.DefaultConfig()
	cfg.Seed = seed
	cfg.Network.Loss = netmodel.Ratio{Num: 1, Den: 20}
	cfg.Network.Duplicate = netmodel.Ratio{Num: 1, Den: 20}
	cfg.DiskLatency = 2 * time.Millisecond
	cfg.SnapshotEvery = 5
	cfg.Clients = []sim.ClientConfig{{Name: "ext", Endpoints: []string{"n1", "n2", "n3", "n4", "n5"}, Timeout: 2 * time.Second}}
	w, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	at := func(d time.Duration, c sim.Command) {
		t.Helper()
		if err := w.RunUntil(sim.Time(d)); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Do(c); err != nil {
			t.Logf("seed %d, %s at %s: %v", seed, c.Kind, w.Now(), err) // some depend on who leads
		}
	}
	put := func(d time.Duration, via, key string) {
		at(d, sim.Command{Kind: sim.CmdPut, Via: via, Req: server.Put(key, "v-"+key)})
	}
	s := time.Second
	at(1*s, sim.Command{Kind: sim.CmdWatch, Via: "n2", Req: server.WatchPrefix("k"), RequireLeader: true})
	for i := range 12 {
		put(2*s+time.Duration(i)*50*time.Millisecond, []string{"ext", "n1", "n2", "n3", "n4", "n5"}[i%6], fmt.Sprintf("k%d", i))
	}
	at(3*s, sim.Command{Kind: sim.CmdGet, Via: "n4", Req: server.Get("k1", false)})
	at(3*s, sim.Command{Kind: sim.CmdGet, Via: "n5", Req: server.GetPrefix("k", true)})
	at(4*s, sim.Command{Kind: sim.CmdCrash, Node: "n1"})
	at(4*s, sim.Command{Kind: sim.CmdCrash, Node: "n2"})
	put(5*s, "ext", "after-crash")
	at(6*s, sim.Command{Kind: sim.CmdRestart, Node: "n1"})
	at(6*s, sim.Command{Kind: sim.CmdPartition, Groups: [][]string{{"n1", "n3"}, {"n4", "n5"}}})
	put(7*s, "n4", "minority")
	at(9*s, sim.Command{Kind: sim.CmdRestart, Node: "n2"})
	at(9*s, sim.Command{Kind: sim.CmdHeal})
	at(11*s, sim.Command{Kind: sim.CmdAddMember, Node: "n6", Learner: true})
	at(13*s, sim.Command{Kind: sim.CmdPromote, Node: "n6"})
	at(15*s, sim.Command{Kind: sim.CmdTransferLeader, Node: "n3"})
	at(16*s, sim.Command{Kind: sim.CmdStall, Node: "n4", For: 1500 * time.Millisecond})
	at(16*s, sim.Command{Kind: sim.CmdClock, Node: "n5", Rate: 1.5})
	at(17*s, sim.Command{Kind: sim.CmdDelete, Via: "ext", Req: server.DeletePrefix("k")})
	at(18*s, sim.Command{Kind: sim.CmdRemoveMember, Node: "n6"})
	put(19*s, "ext", "end")
	if err := w.RunUntil(sim.Time(25 * s)); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := w.WriteTraceHeader(&b, "busy"); err != nil {
		t.Fatal(err)
	}
	var line []byte
	for i := range w.HistoryLen() {
		line = w.AppendTraceLine(line[:0], w.EventAt(i))
		b.Write(line)
	}
	return b.Bytes()
}

func hash(b []byte) string { return fmt.Sprintf("%x", sha256.Sum256(b))[:16] }

func TestSameSeedSameTrace(t *testing.T) {
	first := busyRun(t, 1)
	if n := bytes.Count(first, []byte("\n")); n < 5000 {
		t.Fatalf("the busy run recorded only %d events", n)
	}
	for range 5 {
		if again := busyRun(t, 1); !bytes.Equal(first, again) {
			t.Fatalf("seed 1 gave two different traces (%s, %s)", hash(first), hash(again))
		}
	}
	seen := map[string]uint64{hash(first): 1}
	for seed := uint64(2); seed <= 6; seed++ {
		h := hash(busyRun(t, seed))
		if prev, ok := seen[h]; ok {
			t.Fatalf("seeds %d and %d gave the same trace", prev, seed)
		}
		seen[h] = seed
	}
}

// TestNoUnroutedEntropy: every crypto/rand read raft makes must be routed
// to the stream of the member being driven. One read that is not means a
// run that cannot be reproduced.
func TestNoUnroutedEntropy(t *testing.T) {
	busyRun(t, 3)
	if n := sim.UnroutedEntropyReads(); n != 0 {
		t.Fatalf("%d crypto/rand reads escaped the seed", n)
	}
}

const traceHashEnv = "RAFTSIM_PRINT_TRACE_HASH"

// TestTraceHashHelper is run as a subprocess by TestTraceAcrossGOMAXPROCS.
func TestTraceHashHelper(t *testing.T) {
	if os.Getenv(traceHashEnv) == "" {
		t.Skip("only run as a subprocess")
	}
	fmt.Printf("trace-hash=%s\n", hash(busyRun(t, 1)))
}

// TestTraceAcrossGOMAXPROCS runs the same seed in fresh processes with
// GOMAXPROCS=1 and 2: the trace must be the same bytes.
func TestTraceAcrossGOMAXPROCS(t *testing.T) {
	if testing.Short() {
		t.Skip("starts subprocesses")
	}
	want := hash(busyRun(t, 1))
	for _, procs := range []string{"1", "2"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTraceHashHelper$", "-test.count=1")
		cmd.Env = append(os.Environ(), traceHashEnv+"=1", "GOMAXPROCS="+procs)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("GOMAXPROCS=%s: %v\n%s", procs, err, out)
		}
		_, got, ok := strings.Cut(string(out), "trace-hash=")
		if !ok {
			t.Fatalf("GOMAXPROCS=%s: no hash in\n%s", procs, out)
		}
		if got = strings.Fields(got)[0]; got != want {
			t.Fatalf("GOMAXPROCS=%s gave trace %s, this process %s", procs, got, want)
		}
	}
}
