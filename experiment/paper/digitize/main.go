// Command digitize reads the trials of the Raft paper's Figure 16 off the
// figure's own SVGs and writes them as experiment/paper/bottom.txt and
// top.txt, which package experiment embeds.
//
// The two graphs of Figure 16 are, in Ongaro's thesis (chapter 9), the
// files leaderelection/benchmarks-scale.svg (the bottom graph: the
// minimum timeout scaled) and leaderelection/benchmarks-randomness.svg
// (the top graph: the randomness varied) of github.com/ongardie/dissertation
// (read at commit 0c10ea1). Each is a ggplot2 plot in which a range's CDF
// is one <path> of steps: trial i of n is a point at height (i-0.5)/n,
// joined to the next by a horizontal then a vertical segment. So the first
// point's x is the fastest trial's time, and each vertical segment at x
// rises by (trials that took x) steps of 1/n. The axes are calibrated from
// the figure's own tick marks (the constants below, in SVG points): the
// bottom graph's x axis is linear, a tick every 25ms from 0 at 41.910156;
// the top graph's is logarithmic, 100ms at 54.425781 and 1000ms at
// 127.074219; both y axes run from 0 at 145.140625 to 1 at 12.242188.
//
// Usage:
//
//	go run ./experiment/paper/digitize DISSERTATION/leaderelection experiment/paper
package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// graph is one SVG of Figure 16: its curves in the order it draws them,
// and how an x in SVG points becomes milliseconds.
type graph struct {
	svg, out string
	ranges   []string
	trials   func(rng string) int
	ms       func(x float64) float64
}

const y0, y1 = 145.140625, 12.242188 // the y axis: 0 and 1

var graphs = []graph{
	{
		svg: "benchmarks-scale.svg", out: "bottom.txt",
		ranges: []string{"12-24", "25-50", "50-100", "100-200", "150-300"},
		trials: func(string) int { return 1000 },
		ms:     func(x float64) float64 { return (x - 41.910156) / (11.722656 / 25) },
	},
	{
		svg: "benchmarks-randomness.svg", out: "top.txt",
		ranges: []string{"150-150", "150-151", "150-155", "150-175", "150-200", "150-300"},
		// "Each line represents 1000 trials (except for 100 trials for
		// 150-150ms)": the thesis, leaderelection/real.tex, lines 67-68.
		trials: func(rng string) int {
			if rng == "150-150" {
				return 100
			}
			return 1000
		},
		ms: func(x float64) float64 { return 100 * math.Pow(10, (x-54.425781)/(127.074219-54.425781)) },
	},
}

var (
	pathRE  = regexp.MustCompile(`<path style="([^"]*)" d="([^"]*)"`)
	pointRE = regexp.MustCompile(`([\d.]+) ([\d.]+)`)
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: digitize DISSERTATION/leaderelection OUTDIR")
		os.Exit(2)
	}
	for _, g := range graphs {
		if err := g.write(os.Args[1], os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "digitize:", err)
			os.Exit(1)
		}
	}
}

func (g graph) write(in, out string) error {
	b, err := os.ReadFile(filepath.Join(in, g.svg))
	if err != nil {
		return err
	}
	var curves [][][2]float64
	for _, m := range pathRE.FindAllStringSubmatch(string(b), -1) {
		// A curve is an unfilled path of many segments; the grid and the
		// axes are single segments, the glyphs filled.
		if !strings.Contains(m[1], "fill:none") || strings.Count(m[2], "L") < 50 {
			continue
		}
		var pts [][2]float64
		for _, p := range pointRE.FindAllStringSubmatch(m[2], -1) {
			x, _ := strconv.ParseFloat(p[1], 64)
			y, _ := strconv.ParseFloat(p[2], 64)
			pts = append(pts, [2]float64{x, y})
		}
		curves = append(curves, pts)
	}
	if len(curves) != len(g.ranges) {
		return fmt.Errorf("%s: %d curves, want %d", g.svg, len(curves), len(g.ranges))
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "# Figure 16 of the Raft paper, read off %s (github.com/ongardie/dissertation,\n", g.svg)
	sb.WriteString("# leaderelection/) by experiment/paper/digitize: a range, then each trial's time without a\n# leader in ms, fastest first.\n")
	for i, pts := range curves {
		n := g.trials(g.ranges[i])
		step := (y0 - y1) / float64(n)
		xs := []float64{pts[0][0]}
		for j := 1; j < len(pts); j++ {
			a, b := pts[j-1], pts[j]
			if a[0] == b[0] && b[1] < a[1] {
				for range int(math.Round((a[1] - b[1]) / step)) {
					xs = append(xs, b[0])
				}
			}
		}
		if len(xs) != n {
			return fmt.Errorf("%s, %s: %d trials, want %d", g.svg, g.ranges[i], len(xs), n)
		}
		sb.WriteString(g.ranges[i] + ":")
		for _, x := range xs {
			sb.WriteString(" " + strconv.FormatFloat(g.ms(x), 'f', 1, 64))
		}
		sb.WriteString("\n")
	}
	return os.WriteFile(filepath.Join(out, g.out), []byte(sb.String()), 0o644)
}
