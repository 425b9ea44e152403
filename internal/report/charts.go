package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/sectax/sectax/internal/compare"
)

// maxDots is the most repetitions a strip plot draws per side; beyond it,
// every k-th repetition is drawn (in run order, so drift still shows) and
// the chart says so. A chart of 10^5 dots is megabytes of SVG that shows
// no more than 2,000 do.
const maxDots = 2000

// Chart colours: A, B, and grey for a change that is not significant.
var (
	colorA    = color.RGBA{R: 0xd9, G: 0x5f, B: 0x02, A: 0xff}
	colorB    = color.RGBA{R: 0x1b, G: 0x9e, B: 0x77, A: 0xff}
	colorGrey = color.RGBA{R: 0xb8, G: 0xb8, B: 0xb8, A: 0xff}
	colorPub  = color.RGBA{R: 0x74, G: 0x70, B: 0xb3, A: 0xff}
)

// Chart kinds.
const (
	ChartImpact  = "impact"
	ChartMedians = "medians"
	ChartSamples = "samples"
)

// Chart is one chart of a comparison, drawn with gonum/plot; SVG and PNG
// render it.
type Chart struct {
	// Name is a file name without extension ("impact", "01-syscall-basic-medians").
	Name string
	// Kind is ChartImpact, ChartMedians or ChartSamples.
	Kind string
	// Workload is the index of the workload in the report (-1 for impact).
	Workload int
	// Title and Alt describe the chart in words.
	Title, Alt string
	w, h       vg.Length
	plot       *plot.Plot
	// legend, when set, is drawn in a band of its own below the plot,
	// never on the plotted area where it would cover points.
	legend *plot.Legend
}

// draw draws the chart on dc: the plot, and its legend below it.
func (c Chart) draw(dc draw.Canvas) {
	if c.legend == nil {
		c.plot.Draw(dc)
		return
	}
	r := c.legend.Rectangle(dc)
	band := r.Max.Y - r.Min.Y + vg.Points(6)
	c.plot.Draw(draw.Crop(dc, 0, 0, band, 0))
	c.legend.Draw(draw.Crop(draw.Crop(dc, 0, 0, vg.Points(3), band-dc.Max.Y+dc.Min.Y), vg.Points(8), 0, 0, 0))
}

var slugRe = regexp.MustCompile(`[^a-z0-9]+`)

func slug(s string) string {
	s = strings.Trim(slugRe.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if len(s) > 40 {
		s = s[:40]
	}
	if s == "" {
		s = "workload"
	}
	return s
}

// SVG renders the chart as a standalone SVG document. Fonts are named, not
// embedded, and nothing outside the document is referenced.
func (c Chart) SVG() ([]byte, error) {
	cv := vgsvg.New(c.w, c.h)
	c.draw(draw.New(cv))
	var b bytes.Buffer
	if _, err := cv.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("chart %s: %w", c.Name, err)
	}
	return b.Bytes(), nil
}

// PNG renders the chart as a PNG image at 144 dpi (sharp on a blog page).
func (c Chart) PNG() ([]byte, error) {
	cv := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(c.w, c.h), vgimg.UseDPI(144))}
	c.draw(draw.New(cv))
	var b bytes.Buffer
	if _, err := cv.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("chart %s: %w", c.Name, err)
	}
	return b.Bytes(), nil
}

// Charts draws the charts of a comparison. A pair's: the impact of B
// against A per workload (primary metrics), then for each workload its
// medians with their intervals and a strip plot of every sample in run
// order. Three or more sides': one impact chart, a bar per side.
func Charts(c *compare.Comparison) ([]Chart, error) {
	if alone(c) {
		return pairCharts(c.Comparisons[0])
	}
	return sidesCharts(c)
}

// pairCharts are the charts of a pair (Charts).
func pairCharts(rep *compare.Report) ([]Chart, error) {
	var out []Chart
	imp, err := impactChart(rep)
	if err != nil {
		return nil, err
	}
	out = append(out, imp)
	for i, wl := range rep.Workloads {
		if len(wl.Metrics) == 0 {
			continue
		}
		base := fmt.Sprintf("%02d-%s", i+1, slug(wl.ID))
		m, err := mediansChart(rep, wl)
		if err != nil {
			return nil, err
		}
		m.Name, m.Workload = base+"-medians", i
		out = append(out, m)
		if max(len(wl.Metrics[0].RawA), len(wl.Metrics[0].RawB)) <= 1 {
			continue // one dot a side (a published figure) shows nothing a strip plot could
		}
		s, err := samplesChart(rep, wl)
		if err != nil {
			return nil, err
		}
		s.Name, s.Workload = base+"-samples", i
		out = append(out, s)
	}
	return out, nil
}

// chartFont is the one face every chart is drawn with (Liberation Sans
// Regular, metric-compatible with Arial and Helvetica): the only face the
// binary carries (go.mod replaces go-fonts/liberation with
// third_party/liberation, whose other faces are this one).
var chartFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

func init() {
	// Text that gonum styles itself (legends, tick labels of plotters)
	// starts from the default font: make it the one face too.
	plot.DefaultFont = chartFont
}

func newPlot(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
		&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font, &p.Legend.TextStyle.Font} {
		f.Typeface, f.Variant = chartFont.Typeface, chartFont.Variant
	}
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.X.Label.TextStyle.Font.Size = vg.Points(9)
	p.Y.Label.TextStyle.Font.Size = vg.Points(9)
	p.X.Tick.Label.Font.Size = vg.Points(8.5)
	p.Y.Tick.Label.Font.Size = vg.Points(8.5)
	p.Legend.TextStyle.Font.Size = vg.Points(8.5)
	return p
}

// impact returns the percentage by which B is better than A in the primary
// metric's better direction ((speedup-1)·100), and whether it is finite: it
// decides a bar's colour, not its length.
func impact(m compare.Metric) (float64, bool) {
	v := (m.Speedup - 1) * 100
	return v, !math.IsNaN(v) && !math.IsInf(v, 0)
}

// change is the length of a metric's bar in an impact chart: the change
// of its median from A to B in percent, the table's change column (a
// µs/op that fell from 1.09 to 0.434 is −60.2% in both), and whether it
// is finite.
func change(m compare.Metric) (float64, bool) {
	return m.ChangePct, !math.IsNaN(m.ChangePct) && !math.IsInf(m.ChangePct, 0)
}

// geomeanChange is the geometric mean as a change of cost from A to B in
// percent (a speedup of 2.51 is −60.2%), on the scale of the metrics' bars.
func geomeanChange(speedup float64) float64 { return (1/speedup - 1) * 100 }

// impactXLabel says what an impact chart's bars are, so that a reader
// sees they are the table's figures.
const impactXLabel = "change from A to B, % (the table's change column; negative: B lower)"

// impactChart is a horizontal bar per workload: how much better B is than
// A in percent; bars of changes that are not significant are grey.
func impactChart(rep *compare.Report) (Chart, error) {
	p := newPlot(fmt.Sprintf("Impact: B (%s) against A (%s), primary metric of each workload", rep.B.Ref, rep.A.Ref))
	p.X.Label.Text = impactXLabel
	rows := impactRows(rep)
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
	h := vg.Points(float64(70 + 24*n))
	return Chart{Name: "impact", Kind: ChartImpact, Workload: -1, Title: "Impact per workload",
		Alt: "horizontal bars: the change of each workload's primary metric from A to B in percent, as in the table's change column, with 95% interval whiskers where both sides have repetitions; green bars are better in B, orange worse, grey not significant",
		w:   vg.Points(620), h: h, plot: p}, nil
}

// impactRow is one bar of a pair's impact chart: its name, its length
// (change, the table's figure), its colour, and its interval when there is
// one.
type impactRow struct {
	name   string
	v      float64
	c      color.Color
	lo, hi float64 // the interval of v, when hasCI
	hasCI  bool
}

// impactRows are the bars of rep's impact chart, the first workload first
// and the geometric mean last.
func impactRows(rep *compare.Report) []impactRow {
	var rows []impactRow
	add := func(name string, v float64, c color.Color) {
		rows = append(rows, impactRow{name: name, v: v, c: c})
	}
	for _, wl := range rep.Workloads {
		if len(wl.Metrics) == 0 {
			continue
		}
		m := wl.Metrics[0]
		v, ok := change(m)
		if !ok {
			v = 0
		}
		c := color.Color(colorB)
		switch better, _ := impact(m); {
		case m.Verdict == compare.VerdictUntested:
			c = colorPub
		case m.Verdict == compare.VerdictSame:
			c = colorGrey
		case better < 0:
			c = colorA
		}
		name := wl.ID
		if wl.Control {
			name += " (control)"
		}
		add(name+" "+m.Name, v, c)
		if lo, hi, ok := impactInterval(m); ok {
			r := &rows[len(rows)-1]
			r.lo, r.hi, r.hasCI = lo, hi, true
		}
	}
	if rep.Geomean != nil {
		add("geomean (of cost)", geomeanChange(rep.Geomean.Speedup), color.Black)
	}
	return rows
}

// xWhiskers are horizontal error bars of the impact chart.
type xWhisker struct{ x, y, lo, hi float64 }
type xWhiskers []xWhisker

func (w xWhiskers) Len() int                        { return len(w) }
func (w xWhiskers) XY(i int) (float64, float64)     { return w[i].x, w[i].y }
func (w xWhiskers) XError(i int) (float64, float64) { return w[i].lo, w[i].hi }

// impactInterval is the interval of change(m): the ratio interval as a
// change from A to B in percent, the table's bracket.
func impactInterval(m compare.Metric) (lo, hi float64, ok bool) {
	if m.RatioInterval == nil {
		return 0, 0, false
	}
	lo, hi = m.RatioInterval.ChangePct()
	return lo, hi, true
}

// whiskers are error bars at x positions 0 and 1.
type whiskers struct {
	xys  plotter.XYs
	errs plotter.YErrors
}

func (w whiskers) Len() int                        { return len(w.xys) }
func (w whiskers) XY(i int) (float64, float64)     { return w.xys[i].X, w.xys[i].Y }
func (w whiskers) YError(i int) (float64, float64) { return w.errs[i].Low, w.errs[i].High }

// mediansChart shows the primary metric's median of A and B side by side,
// with 95% interval whiskers where there is an interval.
func mediansChart(rep *compare.Report, wl compare.Workload) (Chart, error) {
	m := wl.Metrics[0]
	p := newPlot(fmt.Sprintf("%s: median %s", wl.ID, m.Name))
	p.Y.Label.Text = m.Unit
	p.Y.Min = 0
	var wh whiskers
	for i, side := range []struct {
		s   compare.Metric
		pub bool
		c   color.Color
	}{{m, rep.A.Published, colorA}, {m, rep.B.Published, colorB}} {
		sum := side.s.A
		if i == 1 {
			sum = side.s.B
		}
		bar, err := plotter.NewBarChart(plotter.Values{sum.Center}, vg.Points(40))
		if err != nil {
			return Chart{}, err
		}
		bar.XMin = float64(i)
		bar.Color = side.c
		bar.LineStyle.Width = 0
		p.Add(bar)
		if !side.pub && sum.HasCI && !math.IsInf(sum.Lo, 0) && !math.IsInf(sum.Hi, 0) {
			wh.xys = append(wh.xys, plotter.XY{X: float64(i), Y: sum.Center})
			wh.errs = append(wh.errs, struct{ Low, High float64 }{sum.Center - sum.Lo, sum.Hi - sum.Center})
			if sum.Hi > p.Y.Max {
				p.Y.Max = sum.Hi
			}
		}
	}
	if top := math.Max(math.Max(m.A.Center, m.B.Center), p.Y.Max); top > 0 && !math.IsInf(top, 0) {
		p.Y.Max = top * 1.12 // headroom above the bars and whiskers
	}
	if wh.Len() > 0 {
		eb, err := plotter.NewYErrorBars(wh)
		if err != nil {
			return Chart{}, err
		}
		eb.LineStyle.Width = vg.Points(1.2)
		eb.CapWidth = vg.Points(10)
		p.Add(eb)
	}
	p.NominalX("A "+rep.A.Ref, "B "+rep.B.Ref)
	p.Add(plotter.NewGrid())
	return Chart{Kind: ChartMedians, Title: wl.Title() + ": medians",
		Alt: fmt.Sprintf("bars: median %s of A and B with 95%% interval whiskers", m.Name),
		w:   vg.Points(300), h: vg.Points(230), plot: p}, nil
}

// samplesChart plots every repetition of A and B in run order, so the
// spread and any drift show.
func samplesChart(rep *compare.Report, wl compare.Workload) (Chart, error) {
	m := wl.Metrics[0]
	p := newPlot(fmt.Sprintf("%s: every sample of %s", wl.ID, m.Name))
	p.Y.Label.Text = m.Unit
	p.X.Label.Text = "repetition, in run order"
	step := max(1, (max(len(m.RawA), len(m.RawB))+maxDots-1)/maxDots)
	leg := p.Legend // the plot's style; drawn below the plot (Chart.draw)
	leg.Top, leg.Left = false, true
	if step > 1 {
		p.X.Label.Text = fmt.Sprintf("repetition, in run order (every %d%s shown)", step, ordinal(step))
	}
	for _, side := range []struct {
		name string
		xs   []float64
		c    color.Color
	}{{"A " + rep.A.Ref, m.RawA, colorA}, {"B " + rep.B.Ref, m.RawB, colorB}} {
		if len(side.xs) == 0 {
			continue
		}
		pts := make(plotter.XYs, 0, len(side.xs)/step+1)
		for i, v := range side.xs {
			if i%step != 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			pts = append(pts, plotter.XY{X: float64(i + 1), Y: v})
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return Chart{}, err
		}
		sc.GlyphStyle.Color = side.c
		sc.GlyphStyle.Radius = vg.Points(2.6)
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		p.Add(sc)
		leg.Add(side.name, sc)
	}
	// Room around the dots.
	lo, hi, maxN := math.Inf(1), math.Inf(-1), 0
	for _, xs := range [][]float64{m.RawA, m.RawB} {
		maxN = max(maxN, len(xs))
		for _, v := range xs {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if !math.IsInf(lo, 0) {
		span := hi - lo
		if span == 0 {
			span = math.Abs(hi) * 0.1
		}
		if span == 0 {
			span = 1
		}
		p.Y.Min, p.Y.Max = lo-0.08*span, hi+0.08*span
		p.X.Min, p.X.Max = 0.5, float64(maxN)+0.5
		p.X.Tick.Marker = intTicks{}
	}
	p.Add(plotter.NewGrid())
	return Chart{Kind: ChartSamples, Title: wl.Title() + ": every sample",
		Alt: fmt.Sprintf("dots: every repetition of %s on A and B, in run order", m.Name),
		w:   vg.Points(300), h: vg.Points(250), plot: p, legend: &leg}, nil
}

// ordinal is the English suffix of n ("st", "nd", "rd", "th").
func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return "th"
	case n%10 == 1:
		return "st"
	case n%10 == 2:
		return "nd"
	case n%10 == 3:
		return "rd"
	}
	return "th"
}

// intTicks marks whole numbers only (repetition 1, 2, ...), at most about
// eight of them.
type intTicks struct{}

// Ticks implements plot.Ticker.
func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	step := math.Max(1, math.Ceil((hi-lo)/8))
	var out []plot.Tick
	for v := math.Max(1, math.Ceil(lo)); v <= hi; v += step {
		out = append(out, plot.Tick{Value: v, Label: strconv.Itoa(int(v))})
	}
	return out
}
