package experiment

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteCSV writes every trial, one a line, in job and trial order.
func (r *Results) WriteCSV(out io.Writer) error {
	bw := bufio.NewWriter(out)
	fmt.Fprintln(bw, "job,trial,seed,crash_after_ms,downtime_ms,leader,term,elections,no_leader")
	for j, job := range r.Plan.Jobs {
		for _, t := range r.Trials[j] {
			fmt.Fprintf(bw, "%s,%d,%d,%s,%s,%s,%d,%d,%t\n", job.Name, t.Index, t.Seed,
				msFixed(t.CrashAfter), msFixed(t.Downtime), t.Leader, t.Term, t.Elections, t.NoLeader)
		}
	}
	return bw.Flush()
}

// msFixed formats a duration in milliseconds with microseconds.
func msFixed(d time.Duration) string { return strconv.FormatFloat(d.Seconds()*1000, 'f', 3, 64) }

// jsonSummary is one object of --format json.
type jsonSummary struct {
	Range     string  `json:"range"`
	Trials    int     `json:"trials"`
	Min       float64 `json:"min_ms"`
	Median    float64 `json:"median_ms"`
	Mean      float64 `json:"mean_ms"`
	P99       float64 `json:"p99_ms"`
	Max       float64 `json:"max_ms"`
	Elections float64 `json:"elections_mean"`
	Failed    int     `json:"trials_with_failed_elections"`
	// MoreThanOne is the share of trials that took more than one election.
	MoreThanOne float64    `json:"more_than_one_election"`
	NoLeader    int        `json:"trials_without_leader,omitempty"`
	Paper       *jsonPaper `json:"paper,omitempty"`
	// MedianVsPaper and P99VsPaper are ours divided by the paper's.
	MedianVsPaper float64 `json:"median_vs_paper,omitempty"`
	P99VsPaper    float64 `json:"p99_vs_paper,omitempty"`
}

// jsonPaper is the paper's summary of a range (see PaperTrials).
type jsonPaper struct {
	Trials int     `json:"trials"`
	Min    float64 `json:"min_ms"`
	Median float64 `json:"median_ms"`
	Mean   float64 `json:"mean_ms"`
	P99    float64 `json:"p99_ms"`
	Max    float64 `json:"max_ms"`
}

func msJSON(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 }

// ratio is a/b, rounded to three decimals.
func ratio(a, b time.Duration) float64 { return math.Round(float64(a)/float64(b)*1000) / 1000 }

// WriteJSON writes the summaries as a JSON array, one object per job, with
// the paper's summary of the same range where paper has one.
func WriteJSON(out io.Writer, sums []Summary, paper map[string]Summary) error {
	arr := make([]jsonSummary, 0, len(sums))
	for _, s := range sums {
		j := jsonSummary{Range: s.Name, Trials: s.Trials, Min: msJSON(s.Min), Median: msJSON(s.Median),
			Mean: msJSON(s.Mean), P99: msJSON(s.P99), Max: msJSON(s.Max),
			Elections: math.Round(s.Elections*1000) / 1000, Failed: s.Failed,
			MoreThanOne: math.Round(float64(s.Failed)/float64(max(s.Trials, 1))*1e4) / 1e4, NoLeader: s.NoLeader}
		if p, ok := paper[s.Name]; ok {
			j.Paper = &jsonPaper{Trials: p.Trials, Min: msJSON(p.Min), Median: msJSON(p.Median), Mean: msJSON(p.Mean),
				P99: msJSON(p.P99), Max: msJSON(p.Max)}
			if !s.censored(50) {
				j.MedianVsPaper = ratio(s.Median, p.Median)
			}
			if !s.censored(99) {
				j.P99VsPaper = ratio(s.P99, p.P99)
			}
		}
		arr = append(arr, j)
	}
	b, err := json.MarshalIndent(arr, "", "  ")
	if err != nil {
		return err
	}
	_, err = out.Write(append(b, '\n'))
	return err
}

// WriteTable writes the summaries as a table: for each range our min,
// median, mean, p99 and max, and the share of trials that took more than
// one election; and when paper is set, the paper's figures for the same
// range beside them and the ratios of our median and p99 to the paper's.
func WriteTable(out io.Writer, sums []Summary, paper map[string]Summary) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "range (ms)\ttrials\tmin\tmedian\tmean\tp99\tmax\t>1 election\t"
	if paper != nil {
		head += "\tpaper: min\tmedian\tmean\tp99\tmax\t\tmedian/paper\tp99/paper\t"
	}
	fmt.Fprintln(tw, head)
	for _, s := range sums {
		line := fmt.Sprintf("%s\t%d\t%s\t%s\t%s\t%s\t%s\t%.0f%%\t", s.Name, s.Trials, ms1(s.Min), ms1(s.Median), ms1(s.Mean),
			ms1(s.P99), ms1(s.Max), 100*float64(s.Failed)/float64(max(s.Trials, 1)))
		if p, ok := paper[s.Name]; ok {
			line += fmt.Sprintf("\t%s\t%s\t%s\t%s\t%s\t\t%s\t%s\t", ms1(p.Min), ms1(p.Median), ms1(p.Mean), ms1(p.P99), ms1(p.Max),
				s.vsPaper(50, s.Median, p.Median), s.vsPaper(99, s.P99, p.P99))
		} else if paper != nil {
			line += "\t" + strings.Repeat("-\t", 5) + "\t-\t-\t"
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range sums {
		if s.NoLeader > 0 {
			fmt.Fprintf(out, "%s: %d of %d trials had no leader after %s; they count as %s\n", s.Name, s.NoLeader, s.Trials, s.Patience, s.Patience)
		}
	}
	return nil
}

// censored reports whether s's pct-th percentile may be a trial that gave
// up waiting for a leader, and so only a lower bound.
func (s Summary) censored(pct float64) bool {
	return float64(s.NoLeader) > float64(s.Trials)*(100-pct)/100-1e-9 && s.NoLeader > 0
}

// vsPaper formats our pct-th percentile over the paper's, or "-" when ours
// is only a lower bound.
func (s Summary) vsPaper(pct float64, ours, paper time.Duration) string {
	if s.censored(pct) {
		return "-"
	}
	return strconv.FormatFloat(float64(ours)/float64(paper), 'f', 2, 64)
}

// ms1 formats a duration in milliseconds with one decimal.
func ms1(d time.Duration) string { return strconv.FormatFloat(d.Seconds()*1000, 'f', 1, 64) }

// PaperByName returns the paper's summaries by range name, for WriteTable
// and WriteJSON.
func PaperByName() map[string]Summary {
	out := map[string]Summary{}
	for r := range PaperTrials {
		s, _ := PaperSummary(r)
		out[r.String()] = s
	}
	return out
}
