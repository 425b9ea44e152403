package report

import (
	"bytes"
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/sectax/sectax/internal/attribute"
)

// Waterfall colours: a step that removes tax, one that adds it back.
var (
	waterfallDown = color.RGBA{R: 0x1b, G: 0x9e, B: 0x77, A: 0xff}
	waterfallUp   = color.RGBA{R: 0xd9, G: 0x5f, B: 0x02, A: 0xff}
)

// WaterfallChart is the cumulative waterfall of one workload: a floating
// bar per step of the plan's cumulative order, from the tax removed before
// the step to the tax removed after it.
type WaterfallChart struct {
	// Name is a file name without extension ("01-syscall-basic-waterfall").
	Name  string
	Title string
	plot  *plot.Plot
}

// WaterfallCharts draws one waterfall per workload that has one (two
// steps or more besides on).
func WaterfallCharts(a *attribute.Attribution) ([]WaterfallChart, error) {
	var out []WaterfallChart
	for i, wl := range a.Workloads {
		if len(wl.Waterfall) < 2 {
			continue
		}
		title := fmt.Sprintf("%s %s: tax removed step by step (%s)", wl.Workload, wl.Params, wl.Metric)
		p := plot.New()
		p.Title.Text = title
		for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
			&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font} {
			f.Typeface, f.Variant = "Liberation", "Sans"
		}
		p.Title.TextStyle.Font.Size = vg.Points(11)
		p.Y.Label.Text = "tax removed against on (%)"
		var names []string
		for _, s := range wl.Waterfall {
			names = append(names, s.Config)
		}
		p.NominalX(names...)
		p.X.Tick.Label.Rotation = 0.5
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
		p.Add(plotter.NewGrid(), waterfallBars(wl.Waterfall))
		out = append(out, WaterfallChart{Name: fmt.Sprintf("%02d-%s-waterfall", i+1, slug(wl.Workload)), Title: title, plot: p})
	}
	return out, nil
}

// PNG renders the chart at 144 dpi.
func (c WaterfallChart) PNG() ([]byte, error) {
	cv := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(16*vg.Centimeter, 10*vg.Centimeter), vgimg.UseDPI(144))}
	c.plot.Draw(draw.New(cv))
	var b bytes.Buffer
	if _, err := cv.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("chart %s: %w", c.Name, err)
	}
	return b.Bytes(), nil
}

// SVG renders the chart as a standalone SVG document.
func (c WaterfallChart) SVG() ([]byte, error) {
	cv := vgsvg.New(16*vg.Centimeter, 10*vg.Centimeter)
	c.plot.Draw(draw.New(cv))
	var b bytes.Buffer
	if _, err := cv.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("chart %s: %w", c.Name, err)
	}
	return b.Bytes(), nil
}

// waterfallBars is a plotter of floating bars, one per step.
type waterfallBars []attribute.Step

// Plot implements plot.Plotter.
func (w waterfallBars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	prev := 0.0
	for i, s := range w {
		lo, hi := prev, s.CumulativePct
		col := waterfallDown
		if hi < lo {
			lo, hi, col = hi, lo, waterfallUp
		}
		if i == 0 || hi == lo {
			// on: the origin, a thin mark at zero.
			hi = lo + 0.0001
		}
		x0, x1 := trX(float64(i)-0.35), trX(float64(i)+0.35)
		rect := vg.Rectangle{Min: vg.Point{X: x0, Y: trY(lo)}, Max: vg.Point{X: x1, Y: trY(hi)}}
		c.FillPolygon(col, c.ClipPolygonXY([]vg.Point{rect.Min, {X: rect.Max.X, Y: rect.Min.Y}, rect.Max, {X: rect.Min.X, Y: rect.Max.Y}}))
		prev = s.CumulativePct
	}
}

// DataRange implements plot.DataRanger.
func (w waterfallBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = -0.5, float64(len(w))-0.5
	for _, s := range w {
		ymin, ymax = min(ymin, s.CumulativePct), max(ymax, s.CumulativePct)
	}
	if ymax == ymin {
		ymax = ymin + 1
	}
	return xmin, xmax, ymin, ymax
}
