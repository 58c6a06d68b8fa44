package sim

// Benchmarks come in pairs, BenchmarkBare<Name> and BenchmarkSim<Name>: the
// same workload driven bare (raft RawNodes with instant, in-order delivery,
// no network model, no history) and through the sim (scheduler, network,
// disk, clients, safety checks and full history), so that the cost of the
// simulation can be read off one run as a ratio.

import (
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/dbsize"
	"github.com/raftsim/raftsim/mvcc"
	"github.com/raftsim/raftsim/server"
)

// bareCluster is the bare driver: RawNodes over MemoryStorage, each Ready
// handled in DESIGN.md's order, messages delivered instantly in FIFO order.
type bareCluster struct {
	nodes   []*raft.RawNode
	disks   []*raft.MemoryStorage
	queue   []*pb.Message
	applied []uint64
	// stores, if not nil, are each member's MVCC store, to which it
	// applies every committed write as the sim's members do: etcd's own
	// work, without the simulation.
	stores []*mvcc.Store
}

func newBareCluster(b *testing.B, n int) *bareCluster {
	c := &bareCluster{}
	cs := &pb.ConfState{}
	for i := 1; i <= n; i++ {
		cs.Voters = append(cs.Voters, uint64(i))
	}
	for i := 1; i <= n; i++ {
		disk := raft.NewMemoryStorage()
		disk.ApplySnapshot(&pb.Snapshot{Metadata: &pb.SnapshotMetadata{Index: new(uint64(1)), Term: new(uint64(1)), ConfState: cs}})
		disk.SetHardState(&pb.HardState{Term: new(uint64(1)), Commit: new(uint64(1))})
		rn, err := raft.NewRawNode(&raft.Config{ID: uint64(i), ElectionTick: 10, HeartbeatTick: 1, Storage: disk,
			Applied: 1, MaxSizePerMsg: 1 << 20, MaxInflightMsgs: 256, CheckQuorum: true, PreVote: true,
			Logger: raftLogger{&member{name: "bare", w: &World{}}}})
		if err != nil {
			b.Fatal(err)
		}
		c.nodes = append(c.nodes, rn)
		c.disks = append(c.disks, disk)
		c.applied = append(c.applied, 1)
	}
	c.nodes[0].Campaign()
	c.settle()
	return c
}

func (c *bareCluster) settle() {
	for {
		progress := false
		for i, rn := range c.nodes {
			for rn.HasReady() {
				progress = true
				rd := rn.Ready()
				if !raft.IsEmptySnap(rd.Snapshot) {
					c.disks[i].ApplySnapshot(rd.Snapshot)
				}
				c.disks[i].Append(rd.Entries)
				if rd.HardState != nil {
					c.disks[i].SetHardState(rd.HardState)
				}
				c.queue = append(c.queue, rd.Messages...)
				if n := len(rd.CommittedEntries); n > 0 {
					c.applied[i] = rd.CommittedEntries[n-1].GetIndex()
				}
				if c.stores != nil {
					for _, e := range rd.CommittedEntries {
						if e.GetType() == pb.EntryType_EntryNormal && len(e.GetData()) > 0 {
							bareApply(c.stores[i], e.GetData())
						}
					}
				}
				rn.Advance(rd)
			}
		}
		for len(c.queue) > 0 {
			progress = true
			m := c.queue[0]
			c.queue = c.queue[1:]
			c.nodes[m.GetTo()-1].Step(m)
		}
		if !progress {
			return
		}
	}
}

// bareApply applies a committed write to a store as a member's apply does
// (server.Member.ApplyEntry): the entry decoded, the put made.
func bareApply(st *mvcc.Store, data []byte) {
	var r etcdserverpb.InternalRaftRequest
	if err := r.Unmarshal(data); err != nil || r.Put == nil {
		panic("bare: not a put")
	}
	st.ReportEvents(false)
	if _, _, err := st.Put(r.Put); err != nil {
		panic("bare: " + err.Error())
	}
}

// cpuPerOp, deferred just before a benchmark's loop, reports the
// process's CPU time an iteration (cpu-ns/op), garbage collection on the
// other core included. Unlike the wall time, it is not inflated by the
// other work of a shared machine, so make bench-ratio compares it.
func cpuPerOp(b *testing.B) func() {
	start := cpuTime()
	return func() { b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op") }
}

func BenchmarkBareIdleTick(b *testing.B) {
	c := newBareCluster(b, 5)
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for b.Loop() {
		for _, rn := range c.nodes {
			rn.Tick()
		}
		c.settle()
	}
}

func BenchmarkSimIdleTick(b *testing.B) {
	w := benchWorld(b)
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for b.Loop() {
		if err := w.Advance(w.cfg.Tick); err != nil {
			b.Fatal(err)
		}
	}
}

// The proposal workload: one write at a time at the leader, until every
// member has applied it.
func BenchmarkBareProposal(b *testing.B) {
	c := newBareCluster(b, 5)
	req := server.Put("/registry/pods/default/nginx", "v1")
	data := server.Encode(&etcdserverpb.InternalRaftRequest{Header: &etcdserverpb.RequestHeader{ID: 1<<62 + 1}, Put: req.Put})
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for b.Loop() {
		c.nodes[0].Propose(data)
		c.settle()
		for _, rn := range c.nodes {
			rn.Tick() // as the sim's clocks tick while the write is in flight
		}
		c.settle()
	}
}

// BenchmarkBareEtcdProposal is BenchmarkBareProposal with etcd's work
// too: every member applies each write to an MVCC store, whose records go
// to the model of bbolt's file, committed in batches, and the stores
// share equal records through one pool. The sim's members do the same, so
// BenchmarkSimProposal over it is the cost of the simulation itself (issue
// 23).
func BenchmarkBareEtcdProposal(b *testing.B) {
	c := newBareCluster(b, 5)
	var dbs []*dbsize.Model
	var records mvcc.RecordPool
	for range c.nodes {
		st, db := mvcc.New(), dbsize.New()
		st.SetSizeObserver(server.FileObserver{DB: db}) // the sim's members' observer without the batch
		st.ShareRecords(&records)
		c.stores, dbs = append(c.stores, st), append(dbs, db)
	}
	b.ReportAllocs()
	defer cpuPerOp(b)()
	n := 0
	for b.Loop() {
		// etcd encodes each request it proposes, as the sim does
		req := server.Put("/registry/pods/default/nginx", "v1")
		c.nodes[0].Propose(server.Encode(&etcdserverpb.InternalRaftRequest{Header: &etcdserverpb.RequestHeader{ID: 1<<62 + 1}, Put: req.Put}))
		c.settle()
		for _, rn := range c.nodes {
			rn.Tick()
		}
		c.settle()
		// Each member's bbolt commits its batch every 100ms (etcd's batch
		// interval); in BenchmarkSimProposal a write takes 33ms.
		if n++; n%3 == 0 {
			for _, db := range dbs {
				db.Commit()
			}
		}
	}
}

func BenchmarkSimProposal(b *testing.B) {
	w := benchWorld(b)
	lead, _ := w.Leader()
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for b.Loop() {
		op, err := w.Do(Command{Kind: CmdPut, Via: lead, Req: server.Put("/registry/pods/default/nginx", "v1")})
		if err != nil {
			b.Fatal(err)
		}
		for op.Status == OpPending || !allApplied(w) {
			if err := w.StepInstant(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func allApplied(w *World) bool {
	last := w.members[0].hard.GetCommit()
	for _, m := range w.members {
		if m.applied != last || m.hard.GetCommit() != last {
			return false
		}
	}
	return true
}

// benchWorld is five members at etcd defaults with a settled leader. The
// network's latencies (5-15ms) are drawn from the seed, so every run does
// the same work.
func benchWorld(b *testing.B) *World {
	cfg := DefaultConfig()
	w, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	if err := w.Advance(3 * time.Second); err != nil {
		b.Fatal(err)
	}
	if _, ok := w.Leader(); !ok {
		b.Fatal("no leader")
	}
	return w
}

// BenchmarkSimTenMinutes is ten minutes of virtual time at etcd defaults
// (five members, 100ms ticks) with a write every 10ms, history on. It
// reports virtual seconds per wall second.
func BenchmarkSimTenMinutes(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		w, err := New(DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Advance(3 * time.Second); err != nil {
			b.Fatal(err)
		}
		lead, _ := w.Leader()
		for i := 0; w.now < Time(10*time.Minute); i++ {
			if _, err := w.Do(Command{Kind: CmdPut, Via: lead, Req: server.Put("/k", "v")}); err != nil {
				b.Fatal(err)
			}
			if err := w.Advance(10 * time.Millisecond); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(600*float64(b.N)/b.Elapsed().Seconds(), "vsec/s")
}

// BenchmarkSimTenMinutesIdle is ten idle minutes at etcd defaults.
func BenchmarkSimTenMinutesIdle(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		w, err := New(DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		if err := w.RunUntil(Time(10 * time.Minute)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(600*float64(b.N)/b.Elapsed().Seconds(), "vsec/s")
}
