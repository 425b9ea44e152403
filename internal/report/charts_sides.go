package report

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/sectax/sectax/internal/compare"
)

// The charts of a comparison of three or more sides: one impact chart with
// a bar per side (charts.go draws the pairwise ones).

// sideColors are the colours of the sides B, C, … in multi-side charts (A,
// the baseline, is the zero line); they repeat after eight sides.
var sideColors = []color.RGBA{colorB, colorA, colorPub,
	{R: 0xe7, G: 0x29, B: 0x8a, A: 0xff}, {R: 0x66, G: 0xa6, B: 0x1e, A: 0xff}, {R: 0xe6, G: 0xab, B: 0x02, A: 0xff},
	{R: 0xa6, G: 0x76, B: 0x1d, A: 0xff}, {R: 0x66, G: 0x66, B: 0x66, A: 0xff}}

// pale mixes c with white: the bar of a change that is not significant.
func pale(c color.RGBA) color.RGBA {
	mix := func(v uint8) uint8 { return uint8((int(v) + 2*255) / 3) }
	return color.RGBA{R: mix(c.R), G: mix(c.G), B: mix(c.B), A: 0xff}
}

// primaryLine is one workload of the impact chart: each side's primary
// metric against A (a side's primary metric is the first one it shares
// with A, so sides may differ), nil where a side lacks the workload.
type primaryLine struct {
	w     compare.Workload
	names []string
	sides []*compare.Metric
}

// primaryLines collects the primary metric of each workload and side, in
// the rows' order.
func primaryLines(mr *compare.Comparison) []primaryLine {
	var out []primaryLine
	index := map[string]int{}
	for _, r := range mr.Rows {
		k := r.Workload.ID + "\x00" + r.Workload.ParamsKey + "\x00" + r.Workload.Engine
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, primaryLine{w: r.Workload, sides: make([]*compare.Metric, len(r.Sides))})
		}
		l := &out[i]
		for s, m := range r.Sides {
			if m == nil || l.sides[s] != nil || (m.Role != compare.RolePrimary && !(r.Workload.Control && m.Role == compare.RoleControl)) {
				continue
			}
			l.sides[s] = m
			seen := false
			for _, n := range l.names {
				seen = seen || n == m.Name
			}
			if !seen {
				l.names = append(l.names, m.Name)
			}
		}
	}
	return out
}

// sidesCharts draws the impact chart of a comparison of three or more
// sides (Charts): per workload, one bar per side, the change of its
// primary metric from the baseline A in percent, as the table gives it
// (pale: not significant after the correction), then the geometric means
// as changes of cost.
func sidesCharts(mr *compare.Comparison) ([]Chart, error) {
	type line struct {
		name string
		vs   []float64 // per side
		sig  []bool
	}
	var lines []line
	for _, pl := range primaryLines(mr) {
		l := line{name: pl.w.ID + " " + strings.Join(pl.names, " / ")}
		if pl.w.Control {
			l.name = pl.w.ID + " (control) " + strings.Join(pl.names, " / ")
		}
		for _, m := range pl.sides {
			v, sig := 0.0, false
			if m != nil {
				if x, ok := change(*m); ok {
					v = x
				}
				sig = m.Verdict != compare.VerdictSame
			}
			l.vs, l.sig = append(l.vs, v), append(l.sig, sig)
		}
		lines = append(lines, l)
	}
	geo := line{name: "geomean (of cost)"}
	hasGeo := false
	for _, rep := range mr.Comparisons {
		v := 0.0
		if g := rep.Geomean; g != nil {
			v, hasGeo = geomeanChange(g.Speedup), true
		}
		geo.vs, geo.sig = append(geo.vs, v), append(geo.sig, rep.Geomean == nil || !rep.Geomean.Tested || rep.Geomean.Significant)
	}
	if hasGeo {
		lines = append(lines, geo)
	}
	k := len(mr.Comparisons)
	p := newPlot(fmt.Sprintf("Impact against A (%s), primary metric of each workload", mr.Baseline.Ref))
	p.X.Label.Text = impactXLabel
	n := len(lines)
	barW := vg.Points(9)
	lo, hi := 0.0, 0.0
	for s := 0; s < k; s++ {
		c := sideColors[s%len(sideColors)]
		sigVals, paleVals := make(plotter.Values, n), make(plotter.Values, n)
		for i, l := range lines {
			y := n - 1 - i // the first workload on top
			if l.sig[s] {
				sigVals[y] = l.vs[s]
			} else {
				paleVals[y] = l.vs[s]
			}
			lo, hi = math.Min(lo, l.vs[s]), math.Max(hi, l.vs[s])
		}
		// Side B on top within a workload's group.
		off := barW * vg.Length(float64(k-1)/2-float64(s))
		for _, part := range []struct {
			vals plotter.Values
			c    color.RGBA
			leg  bool
		}{{sigVals, c, true}, {paleVals, pale(c), false}} {
			bar, err := plotter.NewBarChart(part.vals, barW)
			if err != nil {
				return nil, err
			}
			bar.Horizontal = true
			bar.Offset = off
			bar.Color = part.c
			bar.LineStyle.Width = 0
			p.Add(bar)
			if part.leg {
				p.Legend.Add(fmt.Sprintf("%s %s", compare.SideLetter(s+1), mr.Comparisons[s].B.Ref), bar)
			}
		}
	}
	names := make([]string, n)
	for i, l := range lines {
		names[n-1-i] = l.name
	}
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	if pad := (hi - lo) * 0.06; pad > 0 {
		p.X.Min, p.X.Max = lo-pad, hi+pad
	}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	h := vg.Points(float64(90 + n*(10*k+12) + 12*k))
	p.Y.Max += float64(k) * 0.25 // room for the legend above the top group
	return []Chart{{Name: "impact", Kind: ChartImpact, Workload: -1, Title: "Impact per workload and side",
		Alt: "horizontal bars: the change of each workload's primary metric from A to each side in percent, as in the table, one bar per side; pale bars are not significant",
		w:   vg.Points(620), h: h, plot: p}}, nil
}
