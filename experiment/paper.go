package experiment

import "time"

// PaperSummary is what the Raft paper's Figure 16 (bottom) shows for one
// election-timeout range, over 1,000 trials.
//
// The paper's text gives only the 12-24ms range (an average of 35ms, the
// longest trial 152ms). The rest was read off the figure itself: in the
// thesis's repository (github.com/ongardie/dissertation, file
// leaderelection/benchmarks-scale.svg, the graph that is also the bottom of
// the paper's Figure 16) each CDF is a path of 1,000 steps, one per trial,
// and a step's place on the axes gives that trial's time to about 0.3ms.
// Read that way, 12-24 gives a mean of 35ms and a longest trial of 152ms,
// as the text says.
var PaperSummary = map[Range]Summary{
	{12}:  paperMS("12-24", 15, 30, 35, 87, 152),
	{25}:  paperMS("25-50", 24, 43, 48, 118, 276),
	{50}:  paperMS("50-100", 37, 67, 71, 168, 253),
	{100}: paperMS("100-200", 67, 120, 125, 273, 335),
	{150}: paperMS("150-300", 93, 171, 181, 405, 603),
}

func paperMS(name string, min, median, mean, p99, max int) Summary {
	ms := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	return Summary{Name: name, Trials: 1000, Min: ms(min), Median: ms(median), Mean: ms(mean), P99: ms(p99), Max: ms(max)}
}
