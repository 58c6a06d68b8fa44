package scenarios

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/raftsim/raftsim/sim"
)

// The memory goals of issue 13, measured as `raftsim run -q` runs them: the
// history given back as it goes, the client history checked at the end.
// Peak RSS is the process's (VmHWM), so run one benchmark per process:
//
//	make bench-memory
//
// or go test -run '^$' -bench '^BenchmarkLoadHour$' -benchtime 1x ./scenarios
// (LOAD_MINUTES=15 runs a quarter of it, to see that time is linear).

// loadHour is one virtual hour of a write every 10ms through three
// apiservers, with as many linearizable reads beside them, on 100 keys;
// etcd's snapshot count and kube-apiserver's 5-minute compaction keep the
// raft log and the store at what etcd would hold.
const loadHour = `name: load-hour
cluster:
  members: [etcd-1, etcd-2, etcd-3]
  topology: stacked
  snapshot_every: 10000
  compaction_interval: 5m
steps:
  - expect: {leader: any, within: 5s}
  - load: {for: %s, rate: 100, keys: 100, mix: {put: 1}, background: true}
  - load: {for: %s, rate: 100, keys: 100, mix: {get: 1}}
  - wait: 10s
`

func BenchmarkLoadHour(b *testing.B) {
	d := time.Hour
	if m, err := strconv.Atoi(os.Getenv("LOAD_MINUTES")); err == nil && m > 0 {
		d = time.Duration(m) * time.Minute
	}
	src := fmt.Sprintf(loadHour, d, d)
	s, err := Parse("load-hour.yaml", []byte(src))
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		start := time.Now()
		r, err := NewRunner(s, RunOptions{ForgetHistory: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Run(); err != nil {
			b.Fatal(err)
		}
		run := time.Since(start)
		lin := r.World().CheckLinearizability()
		if !lin.OK {
			b.Fatalf("%s: %s", lin.Result, lin.Detail)
		}
		b.ReportMetric(run.Seconds(), "run-s")
		b.ReportMetric(time.Since(start).Seconds()-run.Seconds(), "check-s")
		b.ReportMetric(float64(lin.Checked), "ops-checked")
		b.ReportMetric(float64(lin.Steps), "check-steps")
		b.ReportMetric(float64(r.World().HistoryLen()), "events")
	}
	reportMemory(b)
}

// BenchmarkIdleDay is 24 virtual hours of an idle five-member cluster. Its
// memory must stay flat: it reports the heap and RSS after the first hour
// and at the end.
func BenchmarkIdleDay(b *testing.B) {
	s, err := Parse("idle-day.yaml", []byte("name: idle-day\nsteps:\n  - wait: 1h\n  - wait: 23h\n"))
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		r, err := NewRunner(s, RunOptions{ForgetHistory: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Advance(sim.Time(time.Hour)); err != nil {
			b.Fatal(err)
		}
		heap1, rss1 := memNow()
		if _, err := r.Run(); err != nil {
			b.Fatal(err)
		}
		heap24, rss24 := memNow()
		b.ReportMetric(heap1, "heap-1h-MB")
		b.ReportMetric(heap24, "heap-24h-MB")
		b.ReportMetric(rss1, "rss-1h-MB")
		b.ReportMetric(rss24, "rss-24h-MB")
		b.ReportMetric(float64(r.World().HistoryLen()), "events")
	}
	reportMemory(b)
}

// memNow returns the live heap after a collection, and the RSS, in MB.
func memNow() (float64, float64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc) / (1 << 20), procStatusMB("VmRSS")
}

func reportMemory(b *testing.B) {
	b.ReportMetric(procStatusMB("VmHWM"), "peak-rss-MB")
}

// procStatusMB reads a field of /proc/self/status (Linux), in MB; 0
// elsewhere.
func procStatusMB(field string) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}
