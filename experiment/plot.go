package experiment

import (
	"fmt"
	"image/color"
	"io"
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
// without a leader, as the paper's Figure 16 does. The x axis ends a little
// past the largest 99th percentile; the title says how many trials took
// longer.
func (r *Results) CDFPlot(title, subtitle string) (*plot.Plot, error) {
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
	var xmax time.Duration
	for j := range r.Plan.Jobs {
		s := Summarize("", r.Trials[j])
		xmax = max(xmax, s.P99)
	}
	xmax = xmax * 11 / 10
	beyond := 0
	for j, job := range r.Plan.Jobs {
		ds := make([]time.Duration, len(r.Trials[j]))
		for i, t := range r.Trials[j] {
			ds[i] = t.Downtime
		}
		slices.Sort(ds)
		// A step per trial, drawn as the paper draws it.
		pts := make(plotter.XYs, 0, 2*len(ds)+1)
		pts = append(pts, plotter.XY{X: ds[0].Seconds() * 1000, Y: 0})
		for i, d := range ds {
			x := min(d, xmax).Seconds() * 1000
			if d > xmax {
				beyond++
			}
			pts = append(pts, plotter.XY{X: x, Y: 100 * float64(i) / float64(len(ds))},
				plotter.XY{X: x, Y: 100 * float64(i+1) / float64(len(ds))})
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.Color = lineColors[j%len(lineColors)]
		l.Width = vg.Points(1.5)
		l.Dashes = dashes(j / len(lineColors))
		p.Add(l)
		p.Legend.Add(job.Name+" ms", l)
	}
	p.X.Min, p.X.Max = 0, xmax.Seconds()*1000
	if beyond > 0 {
		p.X.Label.Text += fmt.Sprintf(" (%d trials took longer than %s and are drawn at its edge)", beyond, ms1(xmax)+"ms")
	}
	return p, nil
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

func dashes(k int) []vg.Length {
	if k == 0 {
		return nil
	}
	return []vg.Length{vg.Points(float64(2 + 2*k)), vg.Points(2)}
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
