package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
)

// LoadSpec is a client workload: requests at a fixed rate for a time, from
// clients taken in turn, on a set of keys. A load is one command, so an
// hour of requests is one line of a scenario, and a saved session replays
// it exactly: what it sends is drawn from its own random stream.
type LoadSpec struct {
	For  time.Duration
	Rate int // requests a second
	// Via are the clients that send the requests, in turn (a member's
	// name means its local client, as for a request's via).
	Via []string
	// Keys are Prefix followed by 0 .. Keys-1.
	Keys   int
	Prefix string
	// Zipf draws key i in proportion to 1/(i+1), as a few hot objects
	// get most of a cluster's writes; otherwise keys are drawn uniformly.
	Zipf bool
	Mix  LoadMix
}

// LoadMix weighs the kinds of request a load sends.
type LoadMix struct {
	Put, Get, Serializable, Delete int
	// Txn is a create-if-absent transaction, as kube-apiserver creates
	// an object: if the key's create revision is 0, put it; else get it.
	Txn int
}

// Total is the sum of the weights.
func (m LoadMix) Total() int { return m.Put + m.Get + m.Serializable + m.Delete + m.Txn }

// Limits of a load, which the scenario parser and the console check first.
const (
	MaxLoadRate = 10_000    // requests a second
	MaxLoadKeys = 1_000_000 // keys
	// MaxLoadRequests bounds the requests of all the loads of one run that
	// keeps its store and its raft log short (see LoadRequestLimit).
	MaxLoadRequests = 1_000_000
	// MaxLoadRequestsUncompacted bounds them in any other run: every
	// revision of every key, on every member, and every raft entry stay
	// in memory, about a kilobyte a request (docs/scenarios.md, Limits).
	MaxLoadRequestsUncompacted = 400_000
	// maxKeptForLoad is what LoadRequestLimit calls short: the requests of
	// the loads between two compactions, and the entries between two
	// snapshots (the measured maximum keeps 50,000 and 10,000).
	maxKeptForLoad = 100_000
)

// LoadRequestLimit returns the most requests the loads of a run with cfg
// may send, when their rates add up to rate a second, and, when that is
// MaxLoadRequestsUncompacted, why. It is a million when the store and the
// raft log stay short: kube-apiserver compacts the store (a topology and
// compaction_interval) before the loads send maxKeptForLoad requests, and
// etcd snapshots, and so compacts its raft log, at least every
// maxKeptForLoad entries. Otherwise every request's revision and entry
// stay, about a kilobyte each, and fewer requests fit 1 GiB.
func LoadRequestLimit(cfg *Config, rate int) (int, string) {
	if cfg.Topology != "" && cfg.CompactionInterval > 0 && cfg.SnapshotEvery > 0 && cfg.SnapshotEvery <= maxKeptForLoad &&
		int64(cfg.CompactionInterval/time.Millisecond)*int64(rate) <= maxKeptForLoad*1000 {
		return MaxLoadRequests, ""
	}
	return MaxLoadRequestsUncompacted, fmt.Sprintf("every revision stays in memory, unless a topology's compaction_interval lets the loads send at most %d requests between compactions and snapshot_every is at most %d",
		maxKeptForLoad, maxKeptForLoad)
}

// load is a running LoadSpec.
type load struct {
	spec  LoadSpec
	n     int // its number among the run's loads
	rng   *rand.Rand
	end   Time
	every Time
	sent  int
	zipf  []uint64 // cumulative weights, for Zipf
	stats LoadStats
	// latencies are stats.Latencies, in blocks of latencyBlock: one
	// slice that grew would leave a long run's heap the room of each copy
	// it outgrew.
	latencies     [][]time.Duration
	keepLatencies bool
}

const latencyBlock = 8192

// LoadStats count what became of a load's requests.
type LoadStats struct {
	Sent, OK, Failed, TimedOut int
	// Latencies are those of the requests that returned ok, in the order
	// they ended, if the world records them (RecordLoadLatencies).
	Latencies []time.Duration
}

// Pending returns how many requests have not ended yet.
func (s LoadStats) Pending() int { return s.Sent - s.OK - s.Failed - s.TimedOut }

// check refuses a load that breaks a limit or names a client that does
// not exist.
func (w *World) checkLoad(s *LoadSpec) error {
	switch {
	case s.For <= 0:
		return fmt.Errorf("load: want a duration above zero")
	case s.Rate < 1 || s.Rate > MaxLoadRate:
		return fmt.Errorf("load: rate %d: want 1 to %d requests a second", s.Rate, MaxLoadRate)
	case s.Keys < 1 || s.Keys > MaxLoadKeys:
		return fmt.Errorf("load: keys %d: want 1 to %d", s.Keys, MaxLoadKeys)
	case len(s.Via) == 0:
		return fmt.Errorf("load: want at least one client to send the requests")
	case s.Mix.Put < 0 || s.Mix.Get < 0 || s.Mix.Serializable < 0 || s.Mix.Delete < 0 || s.Mix.Txn < 0 || s.Mix.Total() <= 0:
		return fmt.Errorf("load: the mix needs a weight above zero, and none below")
	}
	n := LoadRequests(s.For, s.Rate)
	rate, keys := s.Rate, s.Keys
	for _, l := range w.loads {
		rate += l.spec.Rate
		keys += l.spec.Keys
	}
	if most, why := LoadLimit(&w.cfg, rate, keys, 0); w.loadRequests+n > most {
		if why != "" {
			why = " (" + why + ")"
		}
		return fmt.Errorf("load: %d requests, %d with the loads before it: more than %d, the most a run may send%s", n, w.loadRequests+n, most, why)
	}
	// The compactors write all through the run: up to this load's end at
	// least, they and the requests share the limit too.
	if err := CheckCompactors(&w.cfg, "load", w.now.Add(s.For).Duration(), w.loadRequests+n, rate, keys, 0); err != nil {
		return err
	}
	if err := CheckHeartbeats(&w.cfg, len(w.members), "load", w.now.Add(s.For).Duration()); err != nil {
		return err
	}
	for _, v := range s.Via {
		if w.client(v) == nil && w.byName[v] == nil {
			return fmt.Errorf("load: no client or member named %q", v)
		}
	}
	return nil
}

// LoadRequests returns how many requests a load of rate a second sends
// in d: one at its start, then one every 1s/rate while d lasts.
func LoadRequests(d time.Duration, rate int) int {
	if rate <= 0 {
		return 0
	}
	every := time.Second / time.Duration(rate)
	return int((d-1)/every) + 1
}

// startLoad starts a load that checkLoad accepted; its first request goes
// at once.
func (w *World) startLoad(s LoadSpec) {
	l := &load{spec: s, n: len(w.loads), keepLatencies: w.loadLatencies, rng: stream(w.cfg.Seed, "load/"+strconv.Itoa(len(w.loads))),
		end: w.now.Add(s.For), every: Time(time.Second / time.Duration(s.Rate))}
	l.spec.Via = slices.Clone(s.Via)
	if s.Zipf {
		l.zipf = make([]uint64, s.Keys)
		var sum uint64
		for i := range l.zipf {
			sum += (1 << 40) / uint64(i+1)
			l.zipf[i] = sum
		}
	}
	w.loadRequests += LoadRequests(s.For, s.Rate)
	w.loads = append(w.loads, l)
	w.loadFires(l)
}

// loadFires sends a load's next request and schedules the one after.
func (w *World) loadFires(l *load) {
	c := &Command{Via: l.spec.Via[l.sent%len(l.spec.Via)]}
	key := []byte(l.spec.Prefix + strconv.Itoa(l.key()))
	value := []byte("l" + strconv.Itoa(l.n) + "-" + strconv.Itoa(l.sent))
	m := l.spec.Mix
	switch r := l.rng.IntN(m.Total()); {
	case r < m.Put:
		c.Kind, c.Req.Put = CmdPut, &etcdserverpb.PutRequest{Key: key, Value: value}
	case r < m.Put+m.Get:
		c.Kind, c.Req.Range = CmdGet, &etcdserverpb.RangeRequest{Key: key}
	case r < m.Put+m.Get+m.Serializable:
		c.Kind, c.Req.Range = CmdGet, &etcdserverpb.RangeRequest{Key: key, Serializable: true}
	case r < m.Put+m.Get+m.Serializable+m.Delete:
		c.Kind, c.Req.DeleteRange = CmdDelete, &etcdserverpb.DeleteRangeRequest{Key: key}
	default:
		c.Kind = CmdTxn
		c.Req.Txn = &etcdserverpb.TxnRequest{
			Compare: []*etcdserverpb.Compare{{Key: key, Target: etcdserverpb.Compare_CREATE, Result: etcdserverpb.Compare_EQUAL,
				TargetUnion: &etcdserverpb.Compare_CreateRevision{CreateRevision: 0}}},
			Success: []*etcdserverpb.RequestOp{{Request: &etcdserverpb.RequestOp_RequestPut{
				RequestPut: &etcdserverpb.PutRequest{Key: key, Value: value}}}},
			Failure: []*etcdserverpb.RequestOp{{Request: &etcdserverpb.RequestOp_RequestRange{
				RequestRange: &etcdserverpb.RangeRequest{Key: key}}}},
		}
	}
	if op, err := w.doRequest(c); err == nil {
		l.stats.Sent++
		if op.Status != OpPending {
			l.count(op)
		} else {
			op.after = l.count
		}
	}
	l.sent++
	if next := w.now.plus(l.every); next < l.end {
		e := w.sched.after(w.now, l.every)
		e.kind, e.peer = evLoad, uint64(l.n)
	}
}

// key draws the next key's number.
func (l *load) key() int {
	if l.zipf == nil {
		return l.rng.IntN(l.spec.Keys)
	}
	u := l.rng.Uint64N(l.zipf[len(l.zipf)-1])
	i, _ := slices.BinarySearch(l.zipf, u+1)
	return i
}

// count counts a request that has ended.
func (l *load) count(op *Op) {
	switch op.Status {
	case OpOK:
		l.stats.OK++
		if !l.keepLatencies {
			break
		}
		if n := len(l.latencies); n == 0 || len(l.latencies[n-1]) == latencyBlock {
			l.latencies = append(l.latencies, make([]time.Duration, 0, latencyBlock))
		}
		last := &l.latencies[len(l.latencies)-1]
		*last = append(*last, op.Latency(op.End))
	case OpTimeout:
		l.stats.TimedOut++
	default:
		l.stats.Failed++
	}
}

// RecordLoadLatencies makes the loads of the run keep the latency of each
// request that returned ok, for LoadStatsOf. A headless run, which never
// reads them, does not keep them: 8 bytes a request for ever.
func (w *World) RecordLoadLatencies() { w.loadLatencies = true }

// LoadStatsOf returns what became of the requests of the n-th load of the
// run so far.
func (w *World) LoadStatsOf(n int) LoadStats {
	if n < 0 || n >= len(w.loads) {
		return LoadStats{}
	}
	l := w.loads[n]
	s := l.stats
	s.Latencies = make([]time.Duration, 0, len(l.latencies)*latencyBlock)
	for _, b := range l.latencies {
		s.Latencies = append(s.Latencies, b...)
	}
	return s
}

// Loads returns how many loads the run has started.
func (w *World) Loads() int { return len(w.loads) }

// loadRunning reports whether a load has requests still to send.
func (w *World) loadRunning() bool {
	for _, l := range w.loads {
		if l.sent < LoadRequests(l.spec.For, l.spec.Rate) {
			return true
		}
	}
	return false
}

// describeLoad says what a load does, for the history.
func describeLoad(s *LoadSpec) string {
	dist := "uniform"
	if s.Zipf {
		dist = "zipf"
	}
	m := s.Mix
	return fmt.Sprintf(loadText,
		s.For, s.Rate, strings.Join(s.Via, ","), s.Keys, s.Prefix, dist, m.Put, m.Get, m.Serializable, m.Delete, m.Txn)
}

// CheckCompactors is the package's CheckCompactors for this world: its
// loads so far, and the virtual time end a command would take it to.
func (w *World) CheckCompactors(what string, end Time) error {
	rate, keys := 0, 0
	for _, l := range w.loads {
		rate += l.spec.Rate
		keys += l.spec.Keys
	}
	return CheckCompactors(&w.cfg, what, end.Duration(), w.loadRequests, rate, keys, 0)
}

// CheckHeartbeats is the package's CheckHeartbeats for this world, up to
// the virtual time end a command would take it to.
func (w *World) CheckHeartbeats(what string, end Time) error {
	return CheckHeartbeats(&w.cfg, len(w.members), what, end.Duration())
}
