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
	NoLeader  int     `json:"trials_without_leader,omitempty"`
}

func msJSON(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 }

// WriteJSON writes the summaries as a JSON array, one object per job.
func WriteJSON(out io.Writer, sums []Summary) error {
	arr := make([]jsonSummary, 0, len(sums))
	for _, s := range sums {
		arr = append(arr, jsonSummary{Range: s.Name, Trials: s.Trials, Min: msJSON(s.Min), Median: msJSON(s.Median),
			Mean: msJSON(s.Mean), P99: msJSON(s.P99), Max: msJSON(s.Max),
			Elections: math.Round(s.Elections*1000) / 1000, Failed: s.Failed, NoLeader: s.NoLeader})
	}
	b, err := json.MarshalIndent(arr, "", "  ")
	if err != nil {
		return err
	}
	_, err = out.Write(append(b, '\n'))
	return err
}

// WriteTable writes the summaries as a table, with the paper's numbers for
// the ranges it measured beside them when paper is set.
func WriteTable(out io.Writer, sums []Summary, paper map[string]Summary) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "range (ms)\ttrials\tmin\tmedian\tmean\tp99\tmax\telections\t"
	if paper != nil {
		head += "\tpaper: min\tmedian\tmean\tp99\tmax\t"
	}
	fmt.Fprintln(tw, head)
	for _, s := range sums {
		line := fmt.Sprintf("%s\t%d\t%s\t%s\t%s\t%s\t%s\t%.2f\t", s.Name, s.Trials, ms1(s.Min), ms1(s.Median), ms1(s.Mean),
			ms1(s.P99), ms1(s.Max), s.Elections)
		if p, ok := paper[s.Name]; ok {
			line += fmt.Sprintf("\t%s\t%s\t%s\t%s\t%s\t", ms1(p.Min), ms1(p.Median), ms1(p.Mean), ms1(p.P99), ms1(p.Max))
		} else if paper != nil {
			line += "\t" + strings.Repeat("-\t", 5)
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range sums {
		if s.NoLeader > 0 {
			fmt.Fprintf(out, "%s: %d of %d trials had no leader after %s; they count as %s\n", s.Name, s.NoLeader, s.Trials, TrialPatience, TrialPatience)
		}
	}
	return nil
}

// ms1 formats a duration in milliseconds with one decimal.
func ms1(d time.Duration) string { return strconv.FormatFloat(d.Seconds()*1000, 'f', 1, 64) }

// PaperByName returns the paper's summaries by range name, for WriteTable.
func PaperByName() map[string]Summary {
	out := map[string]Summary{}
	for r, s := range PaperSummary {
		out[r.String()] = s
	}
	return out
}
