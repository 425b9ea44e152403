package report

import (
	"bytes"
	"cmp"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"regexp"
	"slices"
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

// WriteImages renders each chart as a PNG and hands it to write as
// NAME.png (the caller writes it into dir, a name of sectax's), and
// returns the images a Markdown report links: dir/NAME.png, relative to
// the folder of the report file out when there is one ("" or "-":
// standard output, the path as written).
func WriteImages(charts []Chart, dir, out string, write func(name string, png []byte) error) ([]Image, error) {
	var images []Image
	for _, c := range charts {
		data, err := c.PNG()
		if err != nil {
			return nil, err
		}
		if err := write(c.Name+".png", data); err != nil {
			return nil, err
		}
		link := filepath.Join(dir, c.Name+".png")
		if out != "" && out != "-" {
			if rel, err := filepath.Rel(filepath.Dir(out), link); err == nil {
				link = rel
			}
		}
		images = append(images, Image{Title: c.Title, Alt: c.Alt, Path: filepath.ToSlash(link)})
	}
	return images, nil
}

// Charts draws the charts of a comparison, the same for any number of
// sides: the impact of each side against A per workload (primary
// metrics), then for each workload its medians with their intervals and a
// strip plot of every sample in run order, a bar and a colour per side.
func Charts(c *compare.Comparison) ([]Chart, error) {
	var out []Chart
	imp, err := impactChart(c)
	if err != nil {
		return nil, err
	}
	out = append(out, imp)
	for i, pl := range primaryLines(c) {
		base := fmt.Sprintf("%02d-%s", i+1, slug(pl.w.ID))
		m, err := mediansChart(c, pl)
		if err != nil {
			return nil, err
		}
		m.Name, m.Workload = base+"-medians", i
		out = append(out, m)
		if maxLen(pl.raws()) <= 1 {
			continue // one dot a side (a published figure) shows nothing a strip plot could
		}
		s, err := samplesChart(c, pl)
		if err != nil {
			return nil, err
		}
		s.Name, s.Workload = base+"-samples", i
		out = append(out, s)
	}
	return out, nil
}

// maxLen is the length of the longest of xss.
func maxLen(xss [][]float64) int {
	n := 0
	for _, xs := range xss {
		n = max(n, len(xs))
	}
	return n
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
	p.X.Tick.Marker, p.Y.Tick.Marker = numTicks{}, numTicks{}
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

// whiskers are error bars at x positions 0, 1, … (the sides).
type whiskers struct {
	xys  plotter.XYs
	errs plotter.YErrors
}

func (w whiskers) Len() int                        { return len(w.xys) }
func (w whiskers) XY(i int) (float64, float64)     { return w.xys[i].X, w.xys[i].Y }
func (w whiskers) YError(i int) (float64, float64) { return w.errs[i].Low, w.errs[i].High }

// mediansChart shows the primary metric's median of every side side by
// side, with 95% interval whiskers where there is an interval.
func mediansChart(c *compare.Comparison, pl primaryLine) (Chart, error) {
	name := strings.Join(pl.names, " / ")
	p := newPlot(fmt.Sprintf("%s: median %s", pl.w.ID, name))
	p.Y.Label.Text = pl.unit()
	p.Y.Min = 0
	var wh whiskers
	top := 0.0
	sums, pubs := pl.summaries(), sidePublished(c)
	var labels []string
	for i, sum := range sums {
		labels = append(labels, compare.SideLetter(i)+" "+c.Sides()[i])
		if sum == nil {
			continue
		}
		bar, err := plotter.NewBarChart(plotter.Values{sum.Center}, vg.Points(40))
		if err != nil {
			return Chart{}, err
		}
		bar.XMin = float64(i)
		bar.Color = sideColor(i)
		bar.LineStyle.Width = 0
		p.Add(bar)
		top = math.Max(top, sum.Center)
		if !pubs[i] && sum.HasCI && !math.IsInf(sum.Lo, 0) && !math.IsInf(sum.Hi, 0) {
			wh.xys = append(wh.xys, plotter.XY{X: float64(i), Y: sum.Center})
			wh.errs = append(wh.errs, struct{ Low, High float64 }{sum.Center - sum.Lo, sum.Hi - sum.Center})
			top = math.Max(top, sum.Hi)
		}
	}
	if top > 0 && !math.IsInf(top, 0) {
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
	p.NominalX(labels...)
	p.Add(plotter.NewGrid())
	return Chart{Kind: ChartMedians, Title: pl.w.Title() + ": medians",
		Alt: fmt.Sprintf("bars: median %s of each side with 95%% interval whiskers", name),
		w:   vg.Points(float64(200 + 50*len(sums))), h: vg.Points(230), plot: p}, nil
}

// samplesChart plots every repetition of each side in run order, so the
// spread and any drift show.
func samplesChart(c *compare.Comparison, pl primaryLine) (Chart, error) {
	name := strings.Join(pl.names, " / ")
	p := newPlot(fmt.Sprintf("%s: every sample of %s", pl.w.ID, name))
	p.Y.Label.Text = pl.unit()
	p.X.Label.Text = "repetition, in run order"
	raws := pl.raws()
	maxN := maxLen(raws)
	step := max(1, (maxN+maxDots-1)/maxDots)
	leg := p.Legend // the plot's style; drawn below the plot (Chart.draw)
	leg.Top, leg.Left = false, true
	if step > 1 {
		p.X.Label.Text = fmt.Sprintf("repetition, in run order (every %d%s shown)", step, ordinal(step))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for s, xs := range raws {
		if len(xs) == 0 {
			continue
		}
		pts := make(plotter.XYs, 0, len(xs)/step+1)
		for i, v := range xs {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
			if i%step == 0 {
				pts = append(pts, plotter.XY{X: float64(i + 1), Y: v})
			}
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return Chart{}, err
		}
		sc.GlyphStyle.Color = sideColor(s)
		sc.GlyphStyle.Radius = vg.Points(2.6)
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		p.Add(sc)
		leg.Add(compare.SideLetter(s)+" "+c.Sides()[s], sc)
	}
	// Room around the dots.
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
	return Chart{Kind: ChartSamples, Title: pl.w.Title() + ": every sample",
		Alt: fmt.Sprintf("dots: every repetition of %s on each side, in run order", name),
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

// numTicks are gonum's default ticks labelled as the report writes a
// number (Num: "25", "600", "14,000", "0.25"), not gonum's "25.00" beside
// a chart whose values read "600".
type numTicks struct{}

// Ticks implements plot.Ticker.
func (numTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = Num(ts[i].Value)
		}
	}
	return ts
}

// zeroTicks are numTicks with 0 among them, labelled, when the axis spans
// it: the impact chart's bars start at 0.
type zeroTicks struct{}

// Ticks implements plot.Ticker.
func (zeroTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := numTicks{}.Ticks(lo, hi)
	if lo > 0 || hi < 0 {
		return ts
	}
	for i := range ts {
		if ts[i].Value == 0 {
			ts[i].Label = "0"
			return ts
		}
	}
	ts = append(ts, plot.Tick{Value: 0, Label: "0"})
	slices.SortFunc(ts, func(a, b plot.Tick) int { return cmp.Compare(a.Value, b.Value) })
	return ts
}
