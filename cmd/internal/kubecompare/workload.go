package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// A kind is a resource the workload creates and lists, in namespace default.
type kind struct {
	name, path string
	body       func(i int) string
}

var kinds = []kind{
	{"ConfigMaps", "/api/v1/namespaces/default/configmaps", func(i int) string {
		return fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%03d"},"data":{"greeting":"hello %d"}}`, i, i)
	}},
	{"Secrets", "/api/v1/namespaces/default/secrets", func(i int) string {
		return fmt.Sprintf(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"secret-%03d"},"stringData":{"password":"p%d"}}`, i, i)
	}},
	{"Deployments", "/apis/apps/v1/namespaces/default/deployments", func(i int) string {
		return fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web-%03d"},"spec":{"replicas":1,`+
			`"selector":{"matchLabels":{"app":"web-%03d"}},"template":{"metadata":{"labels":{"app":"web-%03d"}},`+
			`"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}}}`, i, i, i)
	}},
}

// A result is what one cluster gave.
type result struct {
	name, leader string
	kubeReady    time.Duration
	created      int
	createTime   time.Duration
	before       [][]time.Duration // lists by kind, before the partition
	after        [][]time.Duration // and after healing
	during       struct {
		ok, failed int
		firstErr   string
	}
	recovered         time.Duration // from heal to the first list that succeeds
	watchEvents       int
	watchEnded        string // "" while it was open at the end
	goAways, tooLarge []string
}

// A counter counts a watch's events.
type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) add(string) { c.mu.Lock(); c.n++; c.mu.Unlock() }
func (c *counter) get() int   { c.mu.Lock(); defer c.mu.Unlock(); return c.n }

func workload(ctx context.Context, o options, c cluster, k *kube, out io.Writer) (*result, error) {
	r := &result{name: c.name(), leader: c.describe(), kubeReady: k.ready}
	var events counter
	wctx, cancelWatch := context.WithCancel(ctx)
	defer cancelWatch()
	ended, err := k.watch(wctx, kinds[0].path+"?watch=true", &events)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	for i := 0; i < o.objects; i++ {
		kd := kinds[i%len(kinds)]
		code, body, err := k.do(ctx, "POST", kd.path, kd.body(i/len(kinds)))
		if err != nil {
			return nil, fmt.Errorf("create %s %d: %w", kd.name, i, err)
		}
		if code != 201 {
			return nil, fmt.Errorf("create %s %d: %d %s", kd.name, i, code, body)
		}
		r.created++
	}
	r.createTime = time.Since(start)
	want := make([]int, len(kinds))
	for i := 0; i < o.objects; i++ {
		want[i%len(kinds)]++
	}
	fmt.Fprintf(out, "kubecompare: created %d objects in %s; listing each kind %d times\n", r.created, r.createTime.Round(time.Millisecond), o.lists)
	if r.before, err = lists(ctx, k, o.lists, want); err != nil {
		return nil, err
	}

	fmt.Fprintf(out, "kubecompare: cutting %s off for %s\n", kubeMember, o.partition)
	if err := c.partition(); err != nil {
		return nil, err
	}
	healAt := time.Now().Add(o.partition)
	for time.Now().Before(healAt) {
		lctx, cancel := context.WithDeadline(ctx, minTime(time.Now().Add(5*time.Second), healAt))
		code, body, err := k.do(lctx, "GET", kinds[0].path, "")
		cancel()
		switch {
		case err == nil && code == 200:
			r.during.ok++
		default:
			r.during.failed++
			if r.during.firstErr == "" {
				if err != nil {
					r.during.firstErr = err.Error()
				} else {
					r.during.firstErr = fmt.Sprintf("%d %s", code, oneLine(body))
				}
			}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		select {
		case <-time.After(minDur(2*time.Second, time.Until(healAt))):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if err := c.heal(); err != nil {
		return nil, err
	}
	healed := time.Now()
	err = poll(ctx, "a list after healing", 2*time.Minute, []*proc{k.p}, func(ctx context.Context) (bool, string) {
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		code, body, err := k.do(lctx, "GET", kinds[0].path, "")
		if err != nil {
			return false, err.Error()
		}
		return code == 200, fmt.Sprintf("%d %s", code, oneLine(body))
	})
	if err != nil {
		return nil, err
	}
	r.recovered = time.Since(healed)
	fmt.Fprintf(out, "kubecompare: healed; lists succeed again after %s; listing each kind %d times\n", r.recovered.Round(time.Millisecond), o.lists)
	if r.after, err = lists(ctx, k, o.lists, want); err != nil {
		return nil, err
	}
	r.watchEvents = events.get()
	select {
	case err := <-ended:
		r.watchEnded = fmt.Sprintf("ended (%v)", err)
	default:
	}
	return r, nil
}

// lists lists each kind n times, the kinds in turn, and checks that each
// list holds the objects created.
func lists(ctx context.Context, k *kube, n int, want []int) ([][]time.Duration, error) {
	d := make([][]time.Duration, len(kinds))
	for i := 0; i < n; i++ {
		for j, kd := range kinds {
			start := time.Now()
			code, body, err := k.do(ctx, "GET", kd.path, "")
			took := time.Since(start)
			if err != nil {
				return nil, fmt.Errorf("list %s: %w", kd.name, err)
			}
			if code != 200 {
				return nil, fmt.Errorf("list %s: %d %s", kd.name, code, oneLine(body))
			}
			var l struct{ Items []json.RawMessage }
			if err := json.Unmarshal([]byte(body), &l); err != nil {
				return nil, fmt.Errorf("list %s: %w", kd.name, err)
			}
			// ConfigMaps: kube-apiserver's own kube-root-ca.crt is not there
			// without a controller manager, so the count is exact.
			if len(l.Items) != want[j] {
				return nil, fmt.Errorf("list %s: %d items, want %d", kd.name, len(l.Items), want[j])
			}
			d[j] = append(d[j], took)
		}
	}
	return d, nil
}

// quantile is the nearest-rank q-quantile of ds.
func quantile(ds []time.Duration, q float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(q*float64(len(s))+0.999999) - 1
	if i < 0 {
		i = 0
	}
	return s[i]
}

func all(ds [][]time.Duration) []time.Duration {
	var a []time.Duration
	for _, d := range ds {
		a = append(a, d...)
	}
	return a
}

// report prints the results side by side and whether serve met the goal:
// its median list latency within 1.5x of the real etcd's, no GoAway, no
// Too large resource version.
func report(out io.Writer, rs []*result) bool {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000) }
	fmt.Fprintln(out)
	row := func(what string, f func(*result) string) {
		fmt.Fprintf(out, "%-34s", what)
		for _, r := range rs {
			fmt.Fprintf(out, " %-26s", f(r))
		}
		fmt.Fprintln(out)
	}
	row("", func(r *result) string { return r.name })
	row("leader at start", func(r *result) string { return r.leader })
	row("kube-apiserver ready after", func(r *result) string { return r.kubeReady.Round(time.Millisecond).String() })
	row("objects created, in", func(r *result) string {
		return fmt.Sprintf("%d in %s", r.created, r.createTime.Round(time.Millisecond))
	})
	for _, phase := range []struct {
		name string
		get  func(*result) [][]time.Duration
	}{{"before the partition", func(r *result) [][]time.Duration { return r.before }}, {"after healing", func(r *result) [][]time.Duration { return r.after }}} {
		for j, kd := range kinds {
			row(fmt.Sprintf("list %s %s", kd.name, phase.name), func(r *result) string {
				d := phase.get(r)[j]
				return fmt.Sprintf("median %s p99 %s", ms(quantile(d, 0.5)), ms(quantile(d, 0.99)))
			})
		}
		row("list all kinds "+phase.name, func(r *result) string {
			d := all(phase.get(r))
			return fmt.Sprintf("median %s p99 %s", ms(quantile(d, 0.5)), ms(quantile(d, 0.99)))
		})
	}
	row("lists while cut off: ok/failed", func(r *result) string { return fmt.Sprintf("%d/%d", r.during.ok, r.during.failed) })
	row("first failure while cut off", func(r *result) string { return clip(r.during.firstErr, 26) })
	row("first list after heal, after", func(r *result) string { return r.recovered.Round(time.Millisecond).String() })
	row("ConfigMap watch: events, state", func(r *result) string {
		s := r.watchEnded
		if s == "" {
			s = "open"
		}
		return fmt.Sprintf("%d, %s", r.watchEvents, clip(s, 18))
	})
	row("GoAway lines in its log", func(r *result) string { return fmt.Sprint(len(r.goAways)) })
	row("Too large resource version lines", func(r *result) string { return fmt.Sprint(len(r.tooLarge)) })
	for _, r := range rs {
		for _, l := range append(r.goAways, r.tooLarge...) {
			fmt.Fprintf(out, "%s: %s\n", r.name, clip(l, 300))
		}
	}
	if len(rs) != 2 {
		fmt.Fprintln(out, "\none cluster only: no comparison")
		return true
	}
	real, serve := rs[0], rs[1]
	ratio := float64(quantile(all(serve.before), 0.5)) / float64(quantile(all(real.before), 0.5))
	ok := ratio <= 1.5 && len(serve.goAways) == 0 && len(serve.tooLarge) == 0
	verdict := "met"
	if !ok {
		verdict = "NOT met"
	}
	fmt.Fprintf(out, "\nmedian list latency, serve/etcd: %.2fx (before the partition; goal 1.5x); serve: %d GoAway, %d Too large resource version: goal %s\n",
		ratio, len(serve.goAways), len(serve.tooLarge), verdict)
	return ok
}

func oneLine(s string) string { return clip(strings.Join(strings.Fields(s), " "), 200) }

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n-1] + "…"
	}
	return s
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func minDur(a, b time.Duration) time.Duration {
	if a < b {
		return a
	}
	return b
}
