package experiment

import (
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The trials of the Raft paper's Figure 16, read off the figure itself.
// The paper's text gives only a few of its numbers (12-24: a mean of 35ms,
// the longest trial 152ms; 150-155: a median of 287ms; 150-200: the
// longest trial 513ms; 150-150: "consistently took longer than 10
// seconds"). The rest come from the figure's SVGs in the thesis's
// repository (github.com/ongardie/dissertation,
// leaderelection/benchmarks-scale.svg for the bottom graph and
// benchmarks-randomness.svg for the top one), in which each CDF is a path
// of one step per trial, so that a step's place on the axes gives that
// trial's time: to about 0.3ms on the bottom graph's linear axis, to about
// 1% on the top graph's logarithmic one. experiment/paper/digitize reads
// them; TestPaperTrials checks them against the text.
var (
	//go:embed paper/bottom.txt
	paperBottom string
	//go:embed paper/top.txt
	paperTop string
)

// PaperTrials are the paper's trials by range, fastest first: 1,000 for
// each range but 150-150, which had 100. 150-300 is in both graphs, from
// the same trials; this is the bottom graph's reading.
var PaperTrials = func() map[Range][]time.Duration {
	out := parsePaperTrials(paperTop)
	for r, ds := range parsePaperTrials(paperBottom) {
		out[r] = ds
	}
	return out
}()

// parsePaperTrials reads the lines "RANGE: ms ms ..." of a file of
// experiment/paper.
func parsePaperTrials(text string) map[Range][]time.Duration {
	out := map[Range][]time.Duration{}
	for _, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, values, ok := strings.Cut(line, ":")
		r, err := ParseRange(name)
		if !ok || err != nil {
			panic(fmt.Sprintf("experiment: paper data: bad line %.40q", line))
		}
		var ds []time.Duration
		for _, f := range strings.Fields(values) {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				panic("experiment: paper data: " + err.Error())
			}
			ds = append(ds, time.Duration(v*float64(time.Millisecond)))
		}
		slices.Sort(ds)
		out[r] = ds
	}
	return out
}

// PaperSummary summarizes the paper's trials of range r, if the paper ran
// it. Its Elections and Failed are unknown, and zero.
func PaperSummary(r Range) (Summary, bool) {
	ds, ok := PaperTrials[r]
	if !ok {
		return Summary{}, false
	}
	trials := make([]Trial, len(ds))
	for i, d := range ds {
		trials[i].Downtime = d
	}
	s := Summarize(r.String(), trials)
	s.Failed = -1
	return s, true
}
