package experiment

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// lineColors tell the curves apart, in the order of the paper's legend:
// colour-blind-safe (Okabe and Ito), dark enough on white.
var lineColors = []color.RGBA{
	{0xd5, 0x5e, 0x00, 0xff}, // vermilion
	{0x00, 0x72, 0xb2, 0xff}, // blue
	{0x00, 0x9e, 0x73, 0xff}, // bluish green
	{0xcc, 0x79, 0xa7, 0xff}, // reddish purple
	{0xe6, 0x9f, 0x00, 0xff}, // orange
	{0x56, 0xb4, 0xe9, 0xff}, // sky blue
	{0x00, 0x00, 0x00, 0xff},
}

// CDFPlot draws each job's trials as a cumulative distribution of the time
// without a leader, as the paper's Figure 16 does, and beside each (same
// colour, dashed) the paper's own trials of the same range, where it ran
// it (PaperTrials). On a linear x axis (the bottom graph) the axis ends a
// little past the largest of our 99th percentiles and the paper's
// longest trial, and the label says how many of our trials took longer;
// on a logarithmic one (logX: the top graph, whose times span three
// decades) it holds every trial.
func (r *Results) CDFPlot(title, subtitle string, logX bool) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	if subtitle != "" {
		p.Title.Text += "\n" + wrap(subtitle, 110)
	}
	p.X.Label.Text = "time without leader (ms)"
	p.Y.Label.Text = "cumulative percent"
	p.Y.Min, p.Y.Max = 0, 100
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(8), vg.Points(8)
	p.Legend.TextStyle.Font.Size = vg.Points(11)
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.Add(plotter.NewGrid())

	ours := make([][]time.Duration, len(r.Plan.Jobs))
	papers := make([][]time.Duration, len(r.Plan.Jobs))
	lo, hi := time.Duration(math.MaxInt64), time.Duration(0)
	var xmax time.Duration
	for j, job := range r.Plan.Jobs {
		ds := make([]time.Duration, len(r.Trials[j]))
		for i, t := range r.Trials[j] {
			ds[i] = t.Downtime
		}
		slices.Sort(ds)
		ours[j], papers[j] = ds, PaperTrials[job.Range]
		xmax = max(xmax, Percentile(ds, 99))
		for _, all := range [][]time.Duration{ds, papers[j]} {
			if len(all) > 0 {
				lo, hi = min(lo, all[0]), max(hi, all[len(all)-1])
			}
		}
		if ps := papers[j]; len(ps) > 0 {
			xmax = max(xmax, ps[len(ps)-1]*10/11)
		}
	}
	xmax = xmax * 11 / 10
	if logX {
		xmax = hi * 5 / 4
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	beyond := 0
	for j, job := range r.Plan.Jobs {
		colour := lineColors[j%len(lineColors)]
		for k, ds := range [][]time.Duration{ours[j], papers[j]} {
			if len(ds) == 0 {
				continue
			}
			if k == 0 {
				for _, d := range ds {
					if d > xmax {
						beyond++
					}
				}
			}
			l, err := stepLine(ds, xmax)
			if err != nil {
				return nil, err
			}
			l.Color, l.Width = colour, vg.Points(1.5)
			if k == 1 {
				l.Width, l.Dashes = vg.Points(1), []vg.Length{vg.Points(4), vg.Points(2)}
			} else {
				p.Legend.Add(job.Name+" ms", l)
			}
			p.Add(l)
		}
	}
	if slices.ContainsFunc(papers, func(ds []time.Duration) bool { return len(ds) > 0 }) {
		l, _ := plotter.NewLine(plotter.XYs{{X: 1, Y: 0}})
		l.Color, l.Width, l.Dashes = color.Black, vg.Points(1), []vg.Length{vg.Points(4), vg.Points(2)}
		p.Legend.Add("dashed: the paper", l)
	}
	p.X.Min, p.X.Max = 0, xmax.Seconds()*1000
	if logX {
		p.X.Min = lo.Seconds() * 1000 * 4 / 5
	}
	var notes []string
	if beyond > 0 {
		notes = append(notes, fmt.Sprintf("%d of our trials took longer than %s and are drawn at its edge", beyond, ms1(xmax)+"ms"))
	}
	for j, job := range r.Plan.Jobs {
		if s := Summarize(job.Name, r.Trials[j]); s.NoLeader > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d of %d trials without a leader after %s", job.Name, s.NoLeader, s.Trials, job.patience()))
		}
	}
	if len(notes) > 0 {
		p.X.Label.Text += "\n" + strings.Join(notes, "\n")
	}
	return p, nil
}

// cdfSteps is the most steps a CDF is drawn with.
const cdfSteps = 5000

// stepLine draws sorted times as a CDF, a step per trial, as the paper
// draws it, up to cdfSteps of them; past that, a step per so many trials,
// which a picture 8 inches wide cannot tell apart. A time past xmax is
// drawn at xmax.
func stepLine(ds []time.Duration, xmax time.Duration) (*plotter.Line, error) {
	every := max(1, (len(ds)+cdfSteps-1)/cdfSteps)
	pts := make(plotter.XYs, 0, 2*len(ds)/every+3)
	pts = append(pts, plotter.XY{X: min(ds[0], xmax).Seconds() * 1000, Y: 0})
	for i := 0; i < len(ds); i += every {
		x := min(ds[i], xmax).Seconds() * 1000
		pts = append(pts, plotter.XY{X: x, Y: 100 * float64(i) / float64(len(ds))},
			plotter.XY{X: x, Y: 100 * float64(min(i+every, len(ds))) / float64(len(ds))})
	}
	return plotter.NewLine(pts)
}

// wrap breaks text into lines of at most width bytes, at ", ".
func wrap(text string, width int) string {
	var out, line string
	for _, part := range strings.SplitAfter(text, ", ") {
		if len(line)+len(part) > width && line != "" {
			out += strings.TrimSuffix(line, " ") + "\n"
			line = ""
		}
		line += part
	}
	return out + line
}

// WritePlot writes a plot as "png" or "svg", 8 by 5 inches.
func WritePlot(out io.Writer, p *plot.Plot, format string) error {
	wt, err := p.WriterTo(8*vg.Inch, 5*vg.Inch, format)
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(out)
	return err
}
