package experiment

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/raftsim/raftsim/netmodel"
)

// SplitVotes is the plan of the split-vote experiment (Ongaro's thesis,
// chapter 9): for each cluster size and one-way latency, trials of a leader
// crash with every survivor's log equal, so that any of them can win and an
// election fails only because the votes split.
func SplitVotes(base Cluster, sizes []int, latencies []netmodel.Latency, r Range, trials int, seed uint64) Plan {
	p := Plan{Seed: seed}
	for _, n := range sizes {
		for _, l := range latencies {
			c := base
			c.Members, c.Latency, c.Behind = n, l, 0
			p.Jobs = append(p.Jobs, Job{Name: fmt.Sprintf("%d members, %s", n, l), Cluster: c, Range: r, Trials: trials})
		}
	}
	return p
}

// jsonSplit is one object of split-votes --format json.
type jsonSplit struct {
	Members   int     `json:"members"`
	Latency   string  `json:"latency"`
	Trials    int     `json:"trials"`
	SplitRate float64 `json:"split_vote_rate"`
	Elections float64 `json:"elections_mean"`
	Median    float64 `json:"median_ms"`
	Mean      float64 `json:"mean_ms"`
	P99       float64 `json:"p99_ms"`
	Max       float64 `json:"max_ms"`
}

// WriteSplitVotesJSON writes a JSON array, one object per cluster size and
// latency.
func (r *Results) WriteSplitVotesJSON(out io.Writer) error {
	var arr []jsonSplit
	for j, s := range r.Summaries() {
		c := r.Plan.Jobs[j].Cluster
		arr = append(arr, jsonSplit{Members: c.Members, Latency: c.Latency.String(), Trials: s.Trials,
			SplitRate: math.Round(float64(s.Failed)/float64(max(s.Trials, 1))*1e4) / 1e4,
			Elections: math.Round(s.Elections*1000) / 1000, Median: msJSON(s.Median), Mean: msJSON(s.Mean),
			P99: msJSON(s.P99), Max: msJSON(s.Max)})
	}
	b, err := json.MarshalIndent(arr, "", "  ")
	if err != nil {
		return err
	}
	_, err = out.Write(append(b, '\n'))
	return err
}

// WriteSplitVotesTable writes, for each cluster size and latency, how many
// trials needed more than one election, and how long they took.
func (r *Results) WriteSplitVotesTable(out io.Writer) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "members\tlatency\ttrials\tsplit votes\telections\tmedian\tmean\tp99\tmax\t")
	for j, s := range r.Summaries() {
		c := r.Plan.Jobs[j].Cluster
		fmt.Fprintf(tw, "%d\t%s\t%d\t%.1f%%\t%.2f\t%s\t%s\t%s\t%s\t\n", c.Members, c.Latency, s.Trials,
			100*float64(s.Failed)/float64(max(s.Trials, 1)), s.Elections, ms1(s.Median), ms1(s.Mean), ms1(s.P99), ms1(s.Max))
	}
	return tw.Flush()
}

// SplitVotePlot draws the split-vote rate against the one-way latency, a
// line per cluster size.
func (r *Results) SplitVotePlot(title, subtitle string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	if subtitle != "" {
		p.Title.Text += "\n" + wrap(subtitle, 110)
	}
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.X.Label.Text = "one-way latency (ms)"
	p.Y.Label.Text = "trials with a split vote (%)"
	p.Y.Min = 0
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(8), -vg.Points(8)
	p.Add(plotter.NewGrid())
	sums := r.Summaries()
	bySize := map[int]plotter.XYs{}
	var sizes []int
	for j, s := range sums {
		c := r.Plan.Jobs[j].Cluster
		if s.Trials == 0 {
			continue // an interrupted run finished none of this job
		}
		if _, ok := bySize[c.Members]; !ok {
			sizes = append(sizes, c.Members)
		}
		lat := float64(c.Latency.Min+c.Latency.Max) / 2 / 1e6
		bySize[c.Members] = append(bySize[c.Members], plotter.XY{X: lat, Y: 100 * float64(s.Failed) / float64(max(s.Trials, 1))})
	}
	if len(sizes) == 0 {
		return nil, fmt.Errorf("no trial finished: nothing to plot")
	}
	// The latencies on a log scale, each one ticked.
	var ticks []plot.Tick
	for _, pt := range bySize[sizes[0]] {
		ticks = append(ticks, plot.Tick{Value: pt.X, Label: strconv.FormatFloat(pt.X, 'f', -1, 64)})
	}
	if ticks[0].Value > 0 {
		p.X.Scale = plot.LogScale{}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	for i, n := range sizes {
		l, pts, err := plotter.NewLinePoints(bySize[n])
		if err != nil {
			return nil, err
		}
		l.Color, pts.Color = lineColors[i%len(lineColors)], lineColors[i%len(lineColors)]
		l.Width = vg.Points(1.5)
		p.Add(l, pts)
		p.Legend.Add(fmt.Sprintf("%d members", n), l, pts)
	}
	return p, nil
}
