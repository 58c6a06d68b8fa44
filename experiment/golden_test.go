package experiment

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/sim"
)

// TestGolden runs the golden files in testdata/: short experiments whose
// summaries must not move unless the simulation does (then read the diff,
// and refresh with go test ./experiment -rewrite).
//
// Commands:
//
//	election-time trials=N ranges=12-24,150-300 [seed=N] [pre-vote] [behind=N] [members=N] [timer-rule=logcabin] [patience=60s]
//	split-votes trials=N sizes=3,5 latencies=1ms,20ms [range=150-300]
func TestGolden(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "election-time":
				c := PaperCluster()
				trials, seed, ranges, patience := 20, uint64(1), "12-24,150-300", "60s"
				for _, a := range d.CmdArgs {
					switch a.Key {
					case "trials":
						d.ScanArgs(t, "trials", &trials)
					case "seed":
						d.ScanArgs(t, "seed", &seed)
					case "ranges":
						d.ScanArgs(t, "ranges", &ranges)
					case "pre-vote":
						c.PreVote = true
					case "behind":
						d.ScanArgs(t, "behind", &c.Behind)
					case "members":
						d.ScanArgs(t, "members", &c.Members)
					case "timer-rule":
						var rule string
						d.ScanArgs(t, "timer-rule", &rule)
						var err error
						if c.TimerRule, err = sim.ParseTimerRule(rule); err != nil {
							t.Fatal(err)
						}
					case "patience":
						d.ScanArgs(t, "patience", &patience)
					default:
						t.Fatalf("unknown argument %q", a.Key)
					}
				}
				var rs []Range
				for _, s := range strings.Split(ranges, ",") {
					r, err := ParseRange(s)
					if err != nil {
						t.Fatal(err)
					}
					rs = append(rs, r)
				}
				p := ElectionTime(c, rs, trials, seed)
				for i := range p.Jobs {
					var err error
					if p.Jobs[i].Patience, err = time.ParseDuration(patience); err != nil {
						t.Fatal(err)
					}
				}
				var trialsRun []Trial
				if err := RunShare(p, 0, 1, func(tr Trial) error { trialsRun = append(trialsRun, tr); return nil }); err != nil {
					return fmt.Sprintf("error: %v\n", err)
				}
				res, err := Collect(p, trialsRun)
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				if err := WriteTable(&b, res.Summaries(), nil); err != nil {
					t.Fatal(err)
				}
				return b.String()
			case "split-votes":
				trials, sizes, latencies, rng := 20, "3,5", "1ms,20ms", "150-300"
				for _, a := range d.CmdArgs {
					switch a.Key {
					case "trials":
						d.ScanArgs(t, "trials", &trials)
					case "sizes":
						d.ScanArgs(t, "sizes", &sizes)
					case "latencies":
						d.ScanArgs(t, "latencies", &latencies)
					case "range":
						d.ScanArgs(t, "range", &rng)
					default:
						t.Fatalf("unknown argument %q", a.Key)
					}
				}
				var ns []int
				for _, s := range strings.Split(sizes, ",") {
					n, err := strconv.Atoi(s)
					if err != nil {
						t.Fatal(err)
					}
					ns = append(ns, n)
				}
				var ls []netmodel.Latency
				for _, s := range strings.Split(latencies, ",") {
					l, err := netmodel.ParseLatency(s)
					if err != nil {
						t.Fatal(err)
					}
					ls = append(ls, l)
				}
				r, err := ParseRange(rng)
				if err != nil {
					t.Fatal(err)
				}
				c := PaperCluster()
				c.DiskLatency = 0
				p := SplitVotes(c, ns, ls, r, trials, 1)
				var got []Trial
				if err := RunShare(p, 0, 1, func(tr Trial) error { got = append(got, tr); return nil }); err != nil {
					return fmt.Sprintf("error: %v\n", err)
				}
				res, err := Collect(p, got)
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				if err := res.WriteSplitVotesTable(&b); err != nil {
					t.Fatal(err)
				}
				return b.String()
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}
