package console

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/raftsim/raftsim/sim"
)

// load --for DUR [--rate N] [--via C1,C2] [--keys N] [--prefix P]
// [--distribution uniform|zipf] [--mix put=4,get=1] [&]: a client workload,
// as a scenario's load: step. It waits until every request has an answer
// (or its client gave up) and prints a summary; with & it runs in the
// background and prints the summary when it is done.
func (c *Console) load(args []string, bg bool) error {
	f := newFlags("load")
	forFlag := f.String("for", "", "how long the load runs, like 10s or 1h")
	rate := f.Int("rate", 10, "requests a second, 1 to 10000")
	via := f.String("via", "", "the clients (or members) that send the requests, in turn, comma-separated (default: every client)")
	keys := f.Int("keys", 10, "how many keys: PREFIX0 .. PREFIX(N-1)")
	prefix := f.String("prefix", "/load/", "the keys' prefix")
	dist := f.String("distribution", "uniform", "uniform, or zipf (key i drawn in proportion to 1/(i+1))")
	mix := f.String("mix", "put=1,get=1", "weights of put, get, serializable, delete and txn (create-if-absent)")
	usage := "load --for DUR [--rate N] [--via C1,C2] [--keys N] [--prefix P] [--distribution uniform|zipf] [--mix put=4,get=1] [&]"
	if _, err := f.parse(args, 0, 0, usage); err != nil {
		return err
	}
	if !f.Changed("for") {
		return fmt.Errorf("load needs --for DUR (usage: %s)", usage)
	}
	d, err := duration(*forFlag, "load for")
	if err != nil {
		return err
	}
	spec := sim.LoadSpec{For: d, Rate: *rate, Keys: *keys, Prefix: *prefix}
	switch *dist {
	case "uniform":
	case "zipf":
		spec.Zipf = true
	default:
		return fmt.Errorf("load distribution: want uniform or zipf, not %q", *dist)
	}
	if spec.Mix, err = parseMix(*mix); err != nil {
		return err
	}
	if *via != "" {
		spec.Via = strings.Split(*via, ",")
	} else {
		for _, cl := range c.w.Clients() {
			spec.Via = append(spec.Via, cl.Name)
		}
		if len(spec.Via) == 0 {
			spec.Via = c.members()
		}
	}
	if err := c.checkRunTime("load --for", d); err != nil {
		return err
	}
	c.w.RecordLoadLatencies() // for the summary's percentiles
	if _, err := c.do(sim.Command{Kind: sim.CmdLoad, Load: &spec}); err != nil {
		return err
	}
	n, start, want := c.w.Loads()-1, c.w.Now(), sim.LoadRequests(d, spec.Rate)
	j := &job{deadline: c.w.Now().Add(d + sim.DefaultClientTimeout + time.Second)}
	j.poll = func() bool {
		// NB: polled at every instant; it looks at the requests only once
		// the load has sent them all.
		if c.w.Now() < start.Add(d) {
			return false
		}
		if st := c.w.LoadStatsOf(n); st.Sent < want || st.Pending() > 0 {
			return false
		}
		c.output(j, loadSummary(c.w.LoadStatsOf(n), c.w.Now()-start))
		return true
	}
	j.onDeadline = func() { c.output(j, loadSummary(c.w.LoadStatsOf(n), c.w.Now()-start)) }
	if bg {
		c.printf("[%d] load started in the background: %d requests over %s\n", c.nextJob+1, want, d)
	}
	return c.start(j, bg)
}

// parseMix reads weights like put=4,get=1.
func parseMix(s string) (sim.LoadMix, error) {
	var m sim.LoadMix
	weights := map[string]*int{"put": &m.Put, "get": &m.Get, "serializable": &m.Serializable, "delete": &m.Delete, "txn": &m.Txn}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		w, known := weights[k]
		n, err := strconv.Atoi(v)
		if !ok || !known || err != nil || n < 0 || n > 1_000_000 {
			return m, fmt.Errorf("load mix: want weights like put=4,get=1 (of put, get, serializable, delete, txn), not %q", part)
		}
		*w = n
	}
	if m.Total() == 0 {
		return m, fmt.Errorf("load mix: want a weight above zero, like put=4,get=1")
	}
	return m, nil
}

// loadSummary says what became of a load's requests.
func loadSummary(st sim.LoadStats, took sim.Time) string {
	s := fmt.Sprintf("load: %d requests in %s: %d ok, %d failed, %d timed out", st.Sent, took.Duration(), st.OK, st.Failed, st.TimedOut)
	if p := st.Pending(); p > 0 {
		s += fmt.Sprintf(", %d still pending", p)
	}
	if lat := st.Latencies; len(lat) > 0 {
		slices.Sort(lat)
		q := func(p int) time.Duration { return lat[(len(lat)-1)*p/100] }
		s += fmt.Sprintf("; latency p50 %s, p99 %s, max %s", q(50), q(99), lat[len(lat)-1])
	}
	return s + "\n"
}
