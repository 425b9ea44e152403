package report

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/stats"
)

// What the charts of a comparison draw from it: each workload's primary
// metric on every side, and the impact chart (charts.go draws the medians
// and the samples).

// sideColors are the colours of the sides A, B, C, … in the medians and
// samples charts; they repeat after eight sides.
var sideColors = []color.RGBA{colorA, colorB,
	{R: 0xe7, G: 0x29, B: 0x8a, A: 0xff}, {R: 0x66, G: 0xa6, B: 0x1e, A: 0xff}, {R: 0xe6, G: 0xab, B: 0x02, A: 0xff},
	{R: 0xa6, G: 0x76, B: 0x1d, A: 0xff}, {R: 0x66, G: 0x66, B: 0x66, A: 0xff}, colorPub}

// sideColor is the colour of side i (0 is A, the baseline).
func sideColor(i int) color.RGBA { return sideColors[i%len(sideColors)] }

// sidePublished says, per side (A first), whether its figures are
// published.
func sidePublished(c *compare.Comparison) []bool {
	out := []bool{c.Baseline.Published}
	for _, rep := range c.Comparisons {
		out = append(out, rep.B.Published)
	}
	return out
}

// primaryLine is one workload of the charts: each side's primary metric
// against A (a side's primary metric is the first one it shares with A,
// so sides may differ), nil where a side lacks the workload.
type primaryLine struct {
	w     compare.Workload
	names []string
	sides []*compare.Metric
}

// base is the first side's metric that holds A's summary and samples.
func (l primaryLine) base() *compare.Metric {
	for _, m := range l.sides {
		if m != nil {
			return m
		}
	}
	return nil
}

// unit is the primary metric's unit.
func (l primaryLine) unit() string {
	if m := l.base(); m != nil {
		return m.Unit
	}
	return ""
}

// summaries are the primary metric's summary of every side, A first; nil
// where a side lacks it.
func (l primaryLine) summaries() []*stats.Summary {
	out := make([]*stats.Summary, 1, len(l.sides)+1)
	if m := l.base(); m != nil {
		out[0] = &m.A
	}
	for _, m := range l.sides {
		var s *stats.Summary
		if m != nil {
			s = &m.B
		}
		out = append(out, s)
	}
	return out
}

// raws are the primary metric's samples of every side in run order, A
// first.
func (l primaryLine) raws() [][]float64 {
	out := make([][]float64, 1, len(l.sides)+1)
	if m := l.base(); m != nil {
		out[0] = m.RawA
	}
	for _, m := range l.sides {
		var xs []float64
		if m != nil {
			xs = m.RawB
		}
		out = append(out, xs)
	}
	return out
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

// impactXLabel says what an impact chart's bars are, so that a reader
// sees they are the table's figures.
const impactXLabel = "change from A, % (the table's vs A column; negative: the side lower)"

// impactRow is one bar of the impact chart: its name, its length (change,
// the table's figure), its colour, and its interval when there is one.
type impactRow struct {
	name   string
	v      float64
	c      color.Color
	lo, hi float64 // the interval of v, when hasCI
	hasCI  bool
}

// impactRows are the bars of the impact chart: per workload, the first
// on top, a bar per side (B, C, …) for its primary metric, then a
// geometric mean per side. With more than one side beside A, a bar's
// label begins with its side's letter; with one, nothing need tell the
// bars apart.
func impactRows(c *compare.Comparison) []impactRow {
	var rows []impactRow
	side := func(s int) string {
		if len(c.Comparisons) == 1 {
			return ""
		}
		return compare.SideLetter(s+1) + ": "
	}
	for _, pl := range primaryLines(c) {
		name := pl.w.ID
		if pl.w.Control {
			name += " (control)"
		}
		for s, m := range pl.sides {
			if m == nil {
				continue
			}
			v, ok := change(*m)
			if !ok {
				v = 0
			}
			col := color.Color(colorB)
			switch better, _ := impact(*m); {
			case m.Verdict == compare.VerdictUntested:
				col = colorPub
			case m.Verdict == compare.VerdictSame:
				col = colorGrey
			case better < 0:
				col = colorA
			}
			r := impactRow{name: side(s) + name + " " + m.Name, v: v, c: col}
			if lo, hi, ok := impactInterval(*m); ok {
				r.lo, r.hi, r.hasCI = lo, hi, true
			}
			rows = append(rows, r)
		}
	}
	for s, rep := range c.Comparisons {
		if rep.Geomean != nil {
			rows = append(rows, impactRow{name: side(s) + "geomean (of cost)", v: geomeanChange(rep.Geomean.Speedup), c: color.Black})
		}
	}
	return rows
}

// impactChart is a horizontal bar per workload and side: the change of
// its primary metric from A in percent, as the table gives it, with the
// interval of the change; green bars are better than A, orange worse,
// grey not significant, purple published (untested); black the geometric
// means as changes of cost.
func impactChart(c *compare.Comparison) (Chart, error) {
	var others []string
	for i, rep := range c.Comparisons {
		others = append(others, fmt.Sprintf("%s (%s)", compare.SideLetter(i+1), rep.B.Ref))
	}
	p := newPlot(fmt.Sprintf("Impact: %s against A (%s), primary metric of each workload", strings.Join(others, ", "), c.Baseline.Ref))
	p.X.Label.Text = impactXLabel
	p.X.Tick.Marker = zeroTicks{}
	rows := impactRows(c)
	// The first workload on top: nominal Y counts from the bottom.
	n := len(rows)
	names := make([]string, n)
	for i, r := range rows {
		y := n - 1 - i
		bar, err := plotter.NewBarChart(plotter.Values{r.v}, vg.Points(14))
		if err != nil {
			return Chart{}, err
		}
		bar.Horizontal = true
		bar.XMin = float64(y)
		bar.Color = r.c
		bar.LineStyle.Width = 0
		p.Add(bar)
		names[y] = r.name
	}
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4 // room above the top bar
	lo, hi := 0.0, 0.0
	var wh xWhiskers
	for i, r := range rows {
		lo, hi = math.Min(lo, r.v), math.Max(hi, r.v)
		if r.hasCI {
			lo, hi = math.Min(lo, r.lo), math.Max(hi, r.hi)
			wh = append(wh, xWhisker{x: r.v, y: float64(n - 1 - i), lo: r.v - r.lo, hi: r.hi - r.v})
		}
	}
	if len(wh) > 0 {
		eb, err := plotter.NewXErrorBars(wh)
		if err != nil {
			return Chart{}, err
		}
		eb.LineStyle.Width = vg.Points(1.2)
		eb.CapWidth = vg.Points(8)
		p.Add(eb)
	}
	if pad := (hi - lo) * 0.06; pad > 0 {
		p.X.Min, p.X.Max = lo-pad, hi+pad // bars end inside the frame
	}
	p.Add(plotter.NewGrid())
	// The line every bar starts from.
	zero, err := plotter.NewLine(plotter.XYs{{X: 0, Y: p.Y.Min}, {X: 0, Y: p.Y.Max}})
	if err != nil {
		return Chart{}, err
	}
	zero.LineStyle.Width = vg.Points(1)
	zero.LineStyle.Color = color.Black
	p.Add(zero)
	h := vg.Points(float64(70 + 24*n))
	return Chart{Name: "impact", Kind: ChartImpact, Workload: -1, Title: "Impact per workload",
		Alt: "horizontal bars: the change of each workload's primary metric from A to each side in percent, as in the table's vs A column, with 95% interval whiskers where both sides have repetitions; green bars are better than A, orange worse, grey not significant, purple published figures (untested)",
		w:   vg.Points(880), h: h, plot: p}, nil
}
