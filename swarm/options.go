package swarm

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/raftsim/raftsim/sim"
)

// Fault is a kind of fault a seed may draw.
type Fault string

// The kinds of fault. Each seed enables a random half of the ones allowed
// (swarm testing: a fault that is always on can hide the bugs another one
// would reveal) and draws its schedule from those.
const (
	FaultPartition  Fault = "partition"  // two groups, every link between them cut
	FaultIsolate    Fault = "isolate"    // one member cut from all others
	FaultOneWay     Fault = "one-way"    // one direction of one link cut
	FaultPartial    Fault = "partial"    // two groups cut apart, one member still linked to both
	FaultCrash      Fault = "crash"      // crash (often the leader), usually restarted later
	FaultStall      Fault = "stall"      // a process frozen, as by a GC pause
	FaultLoss       Fault = "loss"       // lossy links, and a little loss everywhere
	FaultDuplicate  Fault = "duplicate"  // links that duplicate messages
	FaultLatency    Fault = "latency"    // latency spikes on links
	FaultClock      Fault = "clock"      // a member's ticks run fast or slow
	FaultDisk       Fault = "disk"       // writes take time to become durable
	FaultMembership Fault = "membership" // members added (as learners or voters), promoted, removed
	FaultTransfer   Fault = "transfer"   // leadership transfers
	FaultCampaign   Fault = "campaign"   // a member's election timer fires early
	FaultSnapshot   Fault = "snapshot"   // snapshots and log compaction
)

// AllFaults lists every fault kind, in the order they are drawn.
var AllFaults = []Fault{FaultPartition, FaultIsolate, FaultOneWay, FaultPartial, FaultCrash, FaultStall,
	FaultLoss, FaultDuplicate, FaultLatency, FaultClock, FaultDisk, FaultMembership, FaultTransfer,
	FaultCampaign, FaultSnapshot}

// Request is a kind of client request a seed's workload may draw.
type Request string

// The kinds of request.
const (
	RequestPut             Request = "put"
	RequestGet             Request = "get" // linearizable
	RequestSerializableGet Request = "serializable-get"
	RequestDelete          Request = "delete"
	RequestWatch           Request = "watch"
	// RequestTxn is a compare-and-swap transaction on a key under /txn/: if
	// the key holds a value one written before (or none was), put a new
	// one, else read it.
	RequestTxn Request = "txn"
	// RequestLease grants a lease, puts a key with it (under /lease/, which
	// the linearizability check leaves out: a lease may delete it at any
	// time), and keeps it alive or revokes it later.
	RequestLease Request = "lease"
	// RequestRange is a linearizable get of every key under a prefix. It is
	// not in the default workload: a prefix read ties every key's history
	// together, which makes the linearizability check much slower.
	RequestRange Request = "range"
)

// AllRequests lists every request kind, in the order they are drawn.
var AllRequests = []Request{RequestPut, RequestGet, RequestSerializableGet, RequestDelete, RequestWatch, RequestTxn, RequestLease, RequestRange}

// DefaultRequests is the default workload.
var DefaultRequests = []Request{RequestPut, RequestGet, RequestSerializableGet, RequestDelete, RequestWatch, RequestTxn, RequestLease}

// Options are what every seed of a campaign draws from.
type Options struct {
	// Members are the cluster sizes a seed draws from.
	Members []int
	// Faults are the fault kinds a seed may enable.
	Faults []Fault
	// Requests are the request kinds a seed's workload may draw.
	Requests []Request
	// Duration is how long faults and requests go on before the final heal.
	Duration time.Duration
	// RequestsPerSecond is the highest mean rate of requests a seed draws
	// (each draws its own, from a tenth of it up to it).
	RequestsPerSecond int
	// Bugs are injected into every seed's simulator (sim.Bug).
	Bugs []sim.Bug
	// Shrink says to shrink a failing seed's scenario to a minimal
	// reproducer.
	Shrink bool
}

// DefaultOptions are the options of `raftsim swarm` with no flags.
func DefaultOptions() Options {
	return Options{
		Members:           []int{3, 5},
		Faults:            slices.Clone(AllFaults),
		Requests:          slices.Clone(DefaultRequests),
		Duration:          20 * time.Second,
		RequestsPerSecond: 10,
		Shrink:            true,
	}
}

// Limits on the options, so that a campaign stays a campaign.
const (
	MinMembers     = 1
	MaxMembers     = 9
	MaxDuration    = time.Hour
	MaxRequestRate = 1000
	// MaxRequests bounds Duration (in seconds) × RequestsPerSecond, the
	// most requests a seed's workload may draw on average: a seed's steps
	// are made before it runs, and each request costs its run about 10 kB
	// (36s at 1000 a second, seed 76 of the 36,000 allowed, drew 32,485
	// requests and peaked at 343 MB; docs/swarm.md). 1h at 1000 a second
	// ran out of memory in the generator (issue 29).
	MaxRequests = 36_000
)

// Check reports the first option out of range.
func (o Options) Check() error {
	if len(o.Members) == 0 {
		return fmt.Errorf("--members: want at least one cluster size")
	}
	for _, n := range o.Members {
		if n < MinMembers || n > MaxMembers {
			return fmt.Errorf("--members: %d is not a cluster size from %d to %d", n, MinMembers, MaxMembers)
		}
	}
	if o.Duration < time.Second || o.Duration > MaxDuration {
		return fmt.Errorf("--duration: %s is not from 1s to %s", o.Duration, MaxDuration)
	}
	if o.RequestsPerSecond < 0 || o.RequestsPerSecond > MaxRequestRate {
		return fmt.Errorf("--rate: %d is not from 0 to %d requests a second", o.RequestsPerSecond, MaxRequestRate)
	}
	// In milliseconds, as a duration from 1s to 1h times a rate up to
	// 1000 fits an int64 exactly.
	if n := int64(o.Duration/time.Millisecond) * int64(o.RequestsPerSecond); n > MaxRequests*1000 {
		return fmt.Errorf("--duration %s with --rate %d: up to %d requests a seed, more than %d, the most a seed may draw (--duration in seconds times --rate): shorten --duration or lower --rate",
			o.Duration, o.RequestsPerSecond, (n+999)/1000, MaxRequests)
	}
	return nil
}

// ParseMembers reads "3,5" or "3".
func ParseMembers(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("--members: %q is not a number; want sizes like 3,5", f)
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

// ParseFaults reads "all", "none", or a list like "crash,partition"; a
// list may also start from all and take some away: "all,-membership".
func ParseFaults(s string) ([]Fault, error) {
	return parseKinds(s, "--faults", AllFaults, nil)
}

// ParseRequests reads "default", "all", or a list like "put,get".
func ParseRequests(s string) ([]Request, error) {
	return parseKinds(s, "--workload", AllRequests, DefaultRequests)
}

// parseKinds reads a list of names out of all; "all", "none" and
// "default" (when def is not nil) stand for sets, and -name removes one.
func parseKinds[K ~string](s, flag string, all, def []K) ([]K, error) {
	var out []K
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "all":
			out = slices.Clone(all)
		case f == "none":
			out = []K{}
		case f == "default" && def != nil:
			out = slices.Clone(def)
		case strings.HasPrefix(f, "-") && slices.Contains(all, K(f[1:])):
			out = slices.DeleteFunc(out, func(k K) bool { return k == K(f[1:]) })
		case slices.Contains(all, K(f)):
			if !slices.Contains(out, K(f)) {
				out = append(out, K(f))
			}
		default:
			names := make([]string, len(all))
			for i, k := range all {
				names[i] = string(k)
			}
			return nil, fmt.Errorf("%s: unknown %q; want all, none or a list of: %s", flag, f, strings.Join(names, ", "))
		}
	}
	// In the canonical order, so that the same set always draws the same.
	slices.SortFunc(out, func(a, b K) int { return slices.Index(all, a) - slices.Index(all, b) })
	return out, nil
}

// String describes the options in one line, the same way for the same
// options: the first line of a campaign's summary.
func (o Options) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "members %s, duration %s, %d requests/s at most", joinInts(o.Members), o.Duration, o.RequestsPerSecond)
	fmt.Fprintf(&b, ", faults %s, workload %s", kindList(o.Faults, AllFaults), kindList(o.Requests, AllRequests))
	if len(o.Bugs) > 0 {
		var names []string
		for _, bug := range o.Bugs {
			names = append(names, bug.String())
		}
		fmt.Fprintf(&b, ", bugs %s", strings.Join(names, ","))
	}
	return b.String()
}

// Args returns the flags that give these options, for a worker process.
func (o Options) Args() []string {
	args := []string{"--members", joinInts(o.Members), "--duration", o.Duration.String(),
		"--rate", strconv.Itoa(o.RequestsPerSecond),
		"--faults", kindList(o.Faults, AllFaults), "--workload", kindList(o.Requests, AllRequests)}
	for _, b := range o.Bugs {
		args = append(args, "--bug", b.String())
	}
	if !o.Shrink {
		args = append(args, "--no-shrink")
	}
	return args
}

func kindList[K ~string](ks, all []K) string {
	switch {
	case len(ks) == 0:
		return "none"
	case len(ks) == len(all):
		return "all"
	}
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = string(k)
	}
	return strings.Join(names, ",")
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}
